// The whole forward pass on the GPU against the CPU on the same synthetic models of every
// architecture (GLM, LLaMA, Qwen2, Qwen3, Gemma 3):
// logits of every prompt position and of each decode step, greedy tokens, the attention
// probabilities the probes receive, chunked prefills, decode graphs, cancelled steps, and the
// errors a user can meet (no such device, a model that does not fit, an id outside the
// vocabulary).

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <tuple>

#include "backend/cpu/cpu_forward.h"
#include "backend/cuda_backend.h"
#include "convert/synthetic_model.h"
#include "core/error.h"
#include "generator.h"
#include "gpu_test.h"
#include "models/shape_presets.h"

using namespace inferlens;
using namespace inferlens::gputest;

namespace {

class TemporaryDirectory {
  public:
    TemporaryDirectory() {
        char name[] = "/tmp/inferlens-gpu-test-XXXXXX";
        if (mkdtemp(name) == nullptr)
            throw Failure{"cannot create a temporary directory"};
        path_ = name;
    }
    ~TemporaryDirectory() { std::filesystem::remove_all(path_); }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

struct ModelCase {
    std::string name;
    SyntheticModelOptions options;
};

// Widths that are whole Q8_0/Q4_0 blocks, and a context long enough for a prefill of two chunks.
SyntheticModelOptions shape(const char* architecture, int64_t kvHeads, DType dtype,
                            ModelFormat format = ModelFormat::Gguf) {
    SyntheticModelOptions o;
    o.architecture = architecture;
    o.layers = 3;
    o.hidden = 256;
    o.heads = 8;
    o.kvHeads = kvHeads;
    o.ffn = 512;
    o.vocab = 500;
    o.context = 1100;
    o.dtype = dtype;
    o.seed = 42;
    o.format = format;
    return o;
}

// How close the GPU's logits must come to the CPU's. Both compute F32 models in f32; with F16 or
// BF16 weights cuBLAS rounds a prefill's activations to that type; with block types the CPU
// quantizes activations to 8 bits (as llama.cpp does) while the GPU does not.
double logitTolerance(DType dtype) {
    switch (dtype) {
        case DType::F32:
            return 1e-4;
        case DType::F16:
            return 5e-3;
        case DType::BF16:
            return 2e-2;
        default:
            return 4e-2;
    }
}

std::vector<int32_t> promptOf(int64_t length, int64_t vocab) {
    std::vector<int32_t> ids;
    for (int64_t i = 0; i < length; ++i)
        ids.push_back(int32_t(3 + (i * 37) % (vocab - 3)));
    return ids;
}

std::unique_ptr<ForwardBackend> cpuBackend(const Model& model, int64_t context) {
    return std::make_unique<CpuForward>(model, context, 2);
}

// Prefill `promptLength` tokens (every position's logits), then `steps` greedy decode steps on
// each backend, feeding each the tokens it chose itself.
void compareRuns(const std::string& name, const Model& model, int64_t promptLength, int64_t steps,
                 double tolerance, bool sameTokens) {
    const int64_t vocab = model.config().vocabSize, context = model.config().contextLength;
    Generator cpu(cpuBackend(model, context));
    Generator gpu(makeCudaForward(model, 0, context));
    const std::vector<int32_t> prompt = promptOf(promptLength, vocab);
    std::vector<float> cpuLogits(size_t(promptLength * vocab)), gpuLogits(cpuLogits.size());
    cpu.step(prompt, cpuLogits);
    gpu.step(prompt, gpuLogits);
    expectClose(name + ": prefill logits of " + std::to_string(promptLength) + " positions",
                gpuLogits, cpuLogits, tolerance);
    std::vector<float> cpuLast(cpuLogits.end() - vocab, cpuLogits.end());
    std::vector<float> gpuLast(gpuLogits.end() - vocab, gpuLogits.end());
    std::vector<int32_t> cpuTokens, gpuTokens;
    for (int64_t s = 0; s < steps; ++s) {
        cpuTokens.push_back(argmax(cpuLast));
        gpuTokens.push_back(argmax(gpuLast));
        const int32_t cpuNext[] = {cpuTokens.back()};
        const int32_t gpuNext[] = {sameTokens ? gpuTokens.back() : cpuTokens.back()};
        cpu.step(cpuNext, cpuLast);
        gpu.step(gpuNext, gpuLast);
        if (s == 0 || s == steps - 1)
            expectClose(name + ": decode step " + std::to_string(s + 1) + " logits", gpuLast,
                        cpuLast, tolerance);
    }
    if (sameTokens)
        expect(cpuTokens == gpuTokens, name + ": greedy tokens differ between CPU and GPU");
    expect(cpu.cachedTokens() == gpu.cachedTokens(), name + ": KV cache sizes differ");
}

// Every attention block the probes receive, keyed by (step, layer, head).
class AttentionRecording final : public Probe {
  public:
    ProbeInterest interest() const override {
        ProbeInterest wanted;
        wanted.attention = [](int64_t layer, int64_t head) { return layer != 1 || head % 2 == 0; };
        wanted.hiddenStates = true;
        return wanted;
    }
    void onAttention(const AttentionEvent& event) override {
        blocks[{event.step, event.layer, event.head}] = {
            event.firstQuery, event.queryCount, event.keyCount,
            std::vector<float>(event.weights.begin(), event.weights.end())};
    }
    void onHiddenState(const HiddenStateEvent& event) override {
        hidden[{event.step, event.layer}] =
            std::vector<float>(event.hidden.begin(), event.hidden.end());
    }
    struct Block {
        int64_t firstQuery, queryCount, keyCount;
        std::vector<float> weights;
    };
    std::map<std::tuple<int64_t, int64_t, int64_t>, Block> blocks;
    std::map<std::pair<int64_t, int64_t>, std::vector<float>> hidden;
};

}  // namespace

GPU_TEST(logitsAndGreedyTokensMatchTheCpuForGlmAndLlama) {
    TemporaryDirectory directory;
    const std::vector<ModelCase> cases{
        {"chatglm f32", shape("chatglm", 2, DType::F32)},
        {"llama f32 (GGUF, adjacent RoPE)", shape("llama", 2, DType::F32)},
        {"llama f32 (Hugging Face, rotate-half RoPE)",
         shape("llama", 4, DType::F32, ModelFormat::HuggingFace)},
        {"llama f32 multi-query", shape("llama", 1, DType::F32)},
    };
    for (const ModelCase& c : cases) {
        const std::string path =
            directory.file(std::to_string(&c - cases.data()) +
                           (c.options.format == ModelFormat::Gguf ? ".gguf" : ""));
        writeSyntheticModel(c.options, path);
        const Model model = Model::open(path);
        compareRuns(c.name, model, 9, 12, logitTolerance(DType::F32), true);
    }
}

// The architectures past the plain decoder: Q/K/V biases with rotate-half RoPE (qwen2), per-head
// Q/K norms (qwen3), Llama 3 RoPE factors, and Gemma 3's embedding scale, GELU-tanh, post-norms,
// norm offset (Hugging Face layout), local layers with their own window and RoPE base (a window
// of 16 under prompts of 40 and 700 tokens, so that the mask matters within and across chunks)
// and logit soft-capping.
GPU_TEST(newArchitecturesMatchTheCpu) {
    TemporaryDirectory directory;
    const auto with = [](SyntheticModelOptions o,
                         const std::function<void(SyntheticModelOptions&)>& edit) {
        edit(o);
        return o;
    };
    const auto gemma = [&](DType dtype, ModelFormat format) {
        return with(shape("gemma3", 1, dtype, format), [](SyntheticModelOptions& o) {
            o.headDim = 64;
            o.slidingWindow = 16;
            o.slidingPattern = 3;
            o.finalLogitSoftcap = 30;
            o.tiedOutput = true;
        });
    };
    const std::vector<ModelCase> cases{
        {"qwen2 f32", with(shape("qwen2", 2, DType::F32),
                           [](SyntheticModelOptions& o) { o.tiedOutput = true; })},
        {"qwen3 f32 (head dim 64)",
         with(shape("qwen3", 2, DType::F32), [](SyntheticModelOptions& o) { o.headDim = 64; })},
        {"llama3 f32 (Hugging Face, rope_scaling llama3)",
         with(shape("llama", 2, DType::F32, ModelFormat::HuggingFace),
              [](SyntheticModelOptions& o) {
                  o.ropeScaling = "llama3";
                  o.ropeOriginalContext = 64;
              })},
        {"gemma3 f32", gemma(DType::F32, ModelFormat::Gguf)},
        {"gemma3 f32 (Hugging Face, norms 1 + w)", gemma(DType::F32, ModelFormat::HuggingFace)},
    };
    for (const ModelCase& c : cases) {
        const std::string path =
            directory.file("new" + std::to_string(&c - cases.data()) +
                           (c.options.format == ModelFormat::Gguf ? ".gguf" : ""));
        writeSyntheticModel(c.options, path);
        const Model model = Model::open(path);
        compareRuns(c.name, model, 40, 8, logitTolerance(DType::F32), true);
    }
    const std::string quantized = directory.file("gemma-q8.gguf");
    writeSyntheticModel(gemma(DType::Q8_0, ModelFormat::Gguf), quantized);
    compareRuns("gemma3 q8_0", Model::open(quantized), 40, 6, logitTolerance(DType::Q8_0), false);
    const std::string longPrompt = directory.file("gemma-long.gguf");
    writeSyntheticModel(gemma(DType::F32, ModelFormat::Gguf), longPrompt);
    compareRuns("gemma3 f32, 700-token prompt", Model::open(longPrompt), 700, 2,
                logitTolerance(DType::F32), true);
}

GPU_TEST(everyWeightTypeStaysWithinItsToleranceOfTheCpu) {
    TemporaryDirectory directory;
    for (const char* architecture : {"chatglm", "llama"})
        for (const DType dtype : {DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0, DType::Q4_K}) {
            const std::string name =
                std::string(architecture) + " " + std::string(dtypeName(dtype));
            const std::string path = directory.file(name + ".gguf");
            writeSyntheticModel(shape(architecture, 2, dtype), path);
            const Model model = Model::open(path);
            // Both backends are fed the CPU's tokens, so the comparison stays step by step.
            compareRuns(name, model, 9, 6,
                        logitTolerance(dtype == DType::Q4_K ? DType::Q4_0 : dtype), false);
        }
}

GPU_TEST(aPrefillLongerThanOneChunkMatchesTheCpu) {
    TemporaryDirectory directory;
    const std::string path = directory.file("long.gguf");
    writeSyntheticModel(shape("llama", 2, DType::F32), path);
    const Model model = Model::open(path);
    compareRuns("llama f32, 700-token prompt", model, 700, 2, logitTolerance(DType::F32), true);
}

GPU_TEST(probesReceiveTheSameAttentionAndHiddenStatesOnBothBackends) {
    TemporaryDirectory directory;
    const std::string path = directory.file("probes.gguf");
    writeSyntheticModel(shape("chatglm", 2, DType::F32), path);
    const Model model = Model::open(path);
    const int64_t context = 64;
    AttentionRecording onCpu, onGpu;
    ProbeSet cpuProbes, gpuProbes;
    cpuProbes.add(&onCpu);
    gpuProbes.add(&onGpu);
    Generator cpu(cpuBackend(model, context), true, &cpuProbes);
    Generator gpu(makeCudaForward(model, 0, context), true, &gpuProbes);
    std::vector<float> logits(size_t(model.config().vocabSize));
    const std::vector<int32_t> prompt = promptOf(11, model.config().vocabSize);
    cpu.step(prompt, logits);
    gpu.step(prompt, logits);
    for (const int32_t token : {5, 17, 99}) {
        const int32_t next[] = {token};
        cpu.step(next, logits);
        gpu.step(next, logits);
    }
    expect(onCpu.blocks.size() == onGpu.blocks.size() && !onCpu.blocks.empty(),
           "both backends deliver the same attention blocks");
    // 4 steps × (3 layers with 8, 4, 8 wanted heads)
    expect(onGpu.blocks.size() == 4 * 20, "only the wanted heads are delivered");
    for (const auto& [key, expected] : onCpu.blocks) {
        const auto found = onGpu.blocks.find(key);
        expect(found != onGpu.blocks.end(), "a block the CPU delivered is missing on the GPU");
        const AttentionRecording::Block& got = found->second;
        expect(got.firstQuery == expected.firstQuery && got.queryCount == expected.queryCount &&
                   got.keyCount == expected.keyCount,
               "attention blocks have the same shape");
        // Rows sum to one and the causal mask holds.
        for (int64_t q = 0; q < got.queryCount; ++q) {
            double sum = 0.0;
            for (int64_t k = 0; k < got.keyCount; ++k) {
                const float w = got.weights[size_t(q * got.keyCount + k)];
                if (k > got.firstQuery + q)
                    expect(w == 0.0f, "no weight after the query's own position");
                sum += w;
            }
            expect(std::abs(sum - 1.0) < 1e-5, "attention rows sum to one");
        }
        if (std::get<0>(key) == 0 && std::get<1>(key) == 0 && std::get<2>(key) == 0)
            expectClose("attention probabilities, prefill, layer 0 head 0", got.weights,
                        expected.weights, 1e-5);
        expect(normalisedError(got.weights, expected.weights) < 1e-4,
               "attention probabilities agree on every block");
    }
    expect(onCpu.hidden.size() == onGpu.hidden.size(), "hidden states of every layer");
    for (const auto& [key, expected] : onCpu.hidden)
        expect(normalisedError(onGpu.hidden.at(key), expected) < 1e-4,
               "hidden states agree after every layer");
    expectClose("hidden state, last step, last layer", onGpu.hidden.at({3, 2}),
                onCpu.hidden.at({3, 2}), 1e-4);
}

GPU_TEST(decodeGraphsGiveTheSameLogitsAsPlainLaunches) {
    TemporaryDirectory directory;
    const std::string path = directory.file("graphs.gguf");
    writeSyntheticModel(shape("llama", 2, DType::Q4_0), path);
    const Model model = Model::open(path, false);
    Generator graphs(makeCudaForward(model, 0, 64));
    setenv("INFERLENS_CUDA_GRAPHS", "0", 1);
    Generator plain(makeCudaForward(model, 0, 64));
    unsetenv("INFERLENS_CUDA_GRAPHS");
    std::vector<float> a(size_t(model.config().vocabSize)), b(a.size());
    const std::vector<int32_t> prompt = promptOf(5, model.config().vocabSize);
    graphs.step(prompt, a);
    plain.step(prompt, b);
    for (int step = 0; step < 8; ++step) {
        const int32_t next[] = {argmax(a)};
        graphs.step(next, a);
        plain.step(next, b);
        expect(a == b, "a replayed graph computes exactly what its launches compute");
    }
    std::printf("        8 decode steps bit-identical with and without CUDA graphs\n");
}

GPU_TEST(anAbandonedStepLeavesTheCacheAsItWas) {
    TemporaryDirectory directory;
    const std::string path = directory.file("cancel.gguf");
    writeSyntheticModel(shape("chatglm", 2, DType::F32), path);
    const Model model = Model::open(path);
    auto backend = makeCudaForward(model, 0, 64);
    ForwardBackend& gpu = *backend;
    const std::vector<int32_t> prompt = promptOf(6, model.config().vocabSize);
    std::vector<float> logits(size_t(model.config().vocabSize));
    gpu.beginStep(prompt, 0);
    for (int64_t layer = 0; layer < model.config().layerCount; ++layer)
        gpu.runLayer(layer, nullptr);
    gpu.finishStep(logits, 1);
    const int32_t next[] = {7};
    gpu.beginStep(next, 6);
    gpu.runLayer(0, nullptr);  // cancelled after one layer
    expect(gpu.cachedTokens() == 6, "the abandoned token is not cached");
    gpu.beginStep(next, 6);
    for (int64_t layer = 0; layer < model.config().layerCount; ++layer)
        gpu.runLayer(layer, nullptr);
    gpu.finishStep(logits, 1);

    Generator cpu(cpuBackend(model, 64));
    std::vector<float> expected(logits.size());
    cpu.step(prompt, expected);
    cpu.step(next, expected);
    expectClose("logits after a cancelled and repeated step", logits, expected, 1e-4);
}

GPU_TEST(usersGetClearErrorsAndTheBackendStaysUsable) {
    TemporaryDirectory directory;
    const std::string path = directory.file("errors.gguf");
    writeSyntheticModel(shape("llama", 2, DType::F16), path);
    const Model model = Model::open(path, false);
    const auto message = [](const std::function<void()>& action) -> std::string {
        try {
            action();
        } catch (const Error& error) {
            return error.what();
        }
        return "";
    };

    const std::string noDevice = message([&] { makeCudaForward(model, 99, 64); });
    std::printf("        %s\n", noDevice.c_str());
    expect(noDevice.find("there is no CUDA device 99") != std::string::npos,
           "a missing device index is named");

    ModelConfig huge = shapePreset("chatglm2-6b");
    huge.layerCount = 20000;  // about 4 TB of F16 weights
    const std::string tooLarge =
        message([&] { makeSyntheticCudaForward(huge, DType::F16, 1, 0, 4096); });
    std::printf("        %s\n", tooLarge.c_str());
    expect(tooLarge.find("does not fit in the memory of cuda:0") != std::string::npos &&
               tooLarge.find("GB") != std::string::npos,
           "a model too large is refused with the numbers");

    Generator gpu(makeCudaForward(model, 0, 64));
    std::vector<float> logits(size_t(model.config().vocabSize));
    const int32_t outside[] = {int32_t(model.config().vocabSize)};
    const std::string badToken = message([&] { gpu.step(outside, logits); });
    expect(badToken.find("outside the vocabulary") != std::string::npos,
           "an id outside the vocabulary is refused");
    const int32_t fine[] = {3, 4};
    gpu.step(fine, logits);
    expect(gpu.cachedTokens() == 2, "the generator runs on after a refused step");
}

GPU_TEST(syntheticFullSizeShapesRunWithoutNaNs) {
    for (const DType dtype : {DType::F16, DType::Q4_0}) {
        ModelConfig config = shapePreset("tinyllama-1.1b");
        auto backend = makeSyntheticCudaForward(config, dtype, 3, 0, 256);
        Generator gpu(std::move(backend));
        std::vector<float> logits(size_t(config.vocabSize));
        gpu.step(promptOf(100, config.vocabSize), logits);
        const int32_t next[] = {argmax(logits)};
        gpu.step(next, logits);
        bool finite = true;
        for (const float value : logits)
            finite = finite && std::isfinite(value);
        expect(finite, "random " + std::string(dtypeName(dtype)) + " weights give finite logits");
    }
}

GPU_TEST_MAIN()
