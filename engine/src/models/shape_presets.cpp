#include "models/shape_presets.h"

#include "core/error.h"

namespace inferlens {
namespace {

struct Preset {
    const char* name;
    ModelConfig config;
};

ModelConfig shape(const char* architecture, int64_t layers, int64_t hidden, int64_t heads,
                  int64_t kvHeads, int64_t headDim, int64_t ffn, int64_t vocab, int64_t context,
                  int64_t ropeDims, bool qkvBias) {
    ModelConfig c;
    c.architecture = architecture;
    c.layerCount = layers;
    c.hiddenSize = hidden;
    c.headCount = heads;
    c.kvHeadCount = kvHeads;
    c.headDim = headDim;
    c.ffnSize = ffn;
    c.vocabSize = vocab;
    c.contextLength = context;
    c.ropeDims = ropeDims;
    c.ropePairing = RopePairing::Adjacent;  // GGUF's pairing, and GLM's
    c.rmsNormEps = 1e-5;
    c.qkvBias = qkvBias;
    return c;
}

const std::vector<Preset>& presets() {
    // From THUDM/chatglm2-6b's and TinyLlama/TinyLlama-1.1B-Chat-v1.0's config.json.
    static const std::vector<Preset> all{
        {"chatglm2-6b", shape("chatglm", 28, 4096, 32, 2, 128, 13696, 65024, 32768, 64, true)},
        {"tinyllama-1.1b", shape("llama", 22, 2048, 32, 4, 64, 5632, 32000, 2048, 64, false)},
    };
    return all;
}

}  // namespace

std::vector<std::string> shapePresetNames() {
    std::vector<std::string> names;
    for (const Preset& preset : presets())
        names.push_back(preset.name);
    return names;
}

ModelConfig shapePreset(const std::string& name) {
    for (const Preset& preset : presets())
        if (name == preset.name)
            return preset.config;
    std::string known;
    for (const std::string& preset : shapePresetNames())
        known += (known.empty() ? "" : ", ") + preset;
    throw Error("unknown model shape '" + name + "' (known: " + known + ")");
}

}  // namespace inferlens
