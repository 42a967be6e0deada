#include <cstdio>
#include <map>
#include <string>

#include "arguments.h"
#include "backend/cpu/cpu_features.h"
#include "backend/cpu/kernels.h"
#include "backend/devices.h"
#include "commands.h"
#include "kv_cache.h"
#include "models/model.h"
#include "tokenizer/chat_template.h"
#include "tokenizer/vocabulary_summary.h"

namespace inferlens::cli {
namespace {

std::string humanBytes(int64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 4) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.2f %s", value, units[unit]);
    return text;
}

void printDevices() {
    const CudaAvailability cuda = queryCudaDevices();
    std::printf("devices:      cpu");
    for (const auto& device : cuda.devices)
        std::printf(", cuda:%d (%s, %s, sm_%d%d)", device.index, device.name.c_str(),
                    humanBytes(device.totalMemoryBytes).c_str(), device.computeCapabilityMajor,
                    device.computeCapabilityMinor);
    if (cuda.devices.empty())
        std::printf(" (CUDA: %s)", cuda.message.c_str());
    std::printf("\nCPU kernels:  %s\n", cpuKernelsSummary().c_str());
    // Why an F16 or BF16 model's numbers differ a little from the exact model's, and from machine
    // to machine in their last digits.
    std::printf("F16/BF16:     activations rounded to the weights' type; BF16 products %s\n",
                bf16PairTile(cpuKernels()) != nullptr ? "on AVX512_BF16 (vdpbf16ps)"
                                                      : "as f32 multiply-adds");
}

// A GGUF file with a vocabulary and no tensors (llama.cpp's ggml-vocab-*.gguf): what it holds,
// and that `tokenize` is what it is good for.
int printVocabularyOnly(const std::string& path) {
    const ModelFiles files = openTokenizerFiles(path);
    std::printf("model:        %s\n", files.path.c_str());
    std::printf(
        "format:       GGUF, a vocabulary only (no tensors): inferlens-cli tokenize "
        "works on it, generation does not\n");
    std::printf("tokenizer:    %s\n", vocabularySummary(files).c_str());
    std::printf("valid: yes\n");
    return 0;
}

}  // namespace

int runInfo(const Words& words) {
    const Arguments args(words, {"model"}, {});
    if (isVocabularyOnlyGguf(args.modelPath()))
        return printVocabularyOnly(args.modelPath());
    const Model model = Model::open(args.modelPath());
    const ModelFiles& files = model.files();
    const ModelConfig& c = model.config();

    std::printf("model:        %s\n", files.path.c_str());
    const bool torchWeights = !files.weightFiles.empty() && files.weightFiles[0].ends_with(".bin");
    std::printf("format:       %s\n", files.format == ModelFormat::Gguf ? "GGUF"
                                      : torchWeights ? "Hugging Face directory (PyTorch checkpoint)"
                                                     : "Hugging Face directory (safetensors)");
    for (const auto& file : files.weightFiles)
        std::printf("weights file: %s\n", file.c_str());
    std::printf("architecture: %s\n", c.architecture.c_str());
    std::printf("layers:       %lld\n", (long long)c.layerCount);
    std::printf("hidden size:  %lld\n", (long long)c.hiddenSize);
    std::printf("attention:    %lld query heads, %lld KV heads, head dim %lld\n",
                (long long)c.headCount, (long long)c.kvHeadCount, (long long)c.headDim);
    std::printf("rope:         %lld of %lld dims per head, %s pairs, base %g\n",
                (long long)c.ropeDims, (long long)c.headDim,
                c.ropePairing == RopePairing::Adjacent ? "adjacent" : "rotate-half", c.ropeBase);
    if (c.ropeLinearFactor != 1.0 || !c.ropeFrequencyDivisors.empty())
        std::printf("rope scaling: %s\n",
                    !c.ropeFrequencyDivisors.empty()
                        ? (c.hasLlama3Scaling ? "llama3 (per-frequency factors from config.json)"
                                              : "per-frequency factors (rope_freqs.weight)")
                        : ("linear, positions / " + std::to_string(c.ropeLinearFactor)).c_str());
    if (c.slidingWindow > 0) {
        int64_t local = 0;
        for (int64_t layer = 0; layer < c.layerCount; ++layer)
            local += c.isSlidingLayer(layer) ? 1 : 0;
        std::printf("local layers: %lld of %lld, sliding window %lld positions, rope base %g\n",
                    (long long)local, (long long)c.layerCount, (long long)c.slidingWindow,
                    c.localRopeBase);
    }
    std::printf("ffn size:     %lld (%s)\n", (long long)c.ffnSize,
                c.ffnActivation == FfnActivation::GeluTanh ? "GELU-tanh gated" : "SwiGLU");
    if (c.qkvBias || c.qkNorm || c.postNorms || c.embeddingScale != 1.0 ||
        c.finalLogitSoftcap > 0) {
        std::string extras;
        const auto add = [&](const std::string& text) {
            extras += (extras.empty() ? "" : ", ") + text;
        };
        if (c.qkvBias)
            add("Q/K/V bias");
        if (c.qkNorm)
            add("Q/K RMSNorm per head");
        if (c.postNorms)
            add("post-attention and post-FFN norms");
        if (c.embeddingScale != 1.0)
            add("embeddings × " + std::to_string(c.embeddingScale));
        if (c.attentionScale > 0)
            add("attention scale " + std::to_string(c.attentionScale));
        if (c.finalLogitSoftcap > 0)
            add("logit softcap " + std::to_string(c.finalLogitSoftcap));
        std::printf("features:     %s\n", extras.c_str());
    }
    std::printf("vocabulary:   %lld rows in the output layer%s\n", (long long)c.vocabSize,
                c.tiedOutput ? " (tied to the token embedding)" : "");
    std::printf("context:      %lld (default --ctx-size %lld)\n", (long long)c.contextLength,
                (long long)std::min<int64_t>(c.contextLength, 4096));
    std::printf("rms norm eps: %g\n", c.rmsNormEps);
    std::printf("parameters:   %lld (%.2f M), %s of weights\n", (long long)files.parameterCount(),
                double(files.parameterCount()) / 1e6, humanBytes(files.weightBytes()).c_str());
    std::printf("tokenizer:    %s\n", vocabularySummary(files).c_str());
    std::printf("chat template: %s\n", describeChatTemplate(files).c_str());
    const auto perToken = [&](KvType type) {
        return kvCacheStats(c.layerCount, c.kvHeadCount, c.headCount, c.headDim, 1, 1, 1, type);
    };
    std::printf(
        "kv cache:     %s per token (f32; f16 %s, int8 %s); %s if every head had its own "
        "K/V\n",
        humanBytes(perToken(KvType::F32).bytesUsed).c_str(),
        humanBytes(perToken(KvType::F16).bytesUsed).c_str(),
        humanBytes(perToken(KvType::Int8).bytesUsed).c_str(),
        humanBytes(perToken(KvType::F32).bytesUsedFullMultiHead).c_str());
    printDevices();

    std::map<std::string, int> dtypeCounts;
    std::printf("tensors (%zu):\n", files.tensors.size());
    // In the architecture's order (embedding, layer 0, layer 1, ...), not alphabetically.
    for (const TensorSpec& spec : files.architecture->tensorSpecs(c)) {
        const auto found = files.tensors.find(spec.ggufName);
        if (found == files.tensors.end())
            continue;
        const auto& [name, tensor] = *found;
        ++dtypeCounts[std::string(dtypeName(tensor.dtype))];
        std::printf("  %-28s %-5s %s\n", name.c_str(), std::string(dtypeName(tensor.dtype)).c_str(),
                    shapeToString(tensor.shape).c_str());
    }
    std::printf("dtypes:      ");
    for (const auto& [dtype, count] : dtypeCounts)
        std::printf(" %s × %d", dtype.c_str(), count);
    std::printf("\n");
    for (const auto& name : files.unusedTensors)
        std::printf("unused tensor: %s\n", name.c_str());
    std::printf("valid: yes\n");
    return 0;
}

}  // namespace inferlens::cli
