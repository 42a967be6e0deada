#include "models/shape_presets.h"

#include "core/error.h"

namespace inferlens {
namespace {

struct Preset {
    const char* name;
    ModelConfig config;
};

ModelConfig chatglm2() {
    // THUDM/chatglm2-6b config.json
    ModelConfig c;
    c.architecture = "chatglm";
    c.layerCount = 28;
    c.hiddenSize = 4096;
    c.headCount = 32;
    c.kvHeadCount = 2;
    c.headDim = 128;
    c.ffnSize = 13696;
    c.vocabSize = 65024;
    c.contextLength = 32768;
    c.ropeDims = 64;
    c.ropePairing = RopePairing::Adjacent;
    c.rmsNormEps = 1e-5;
    c.qkvBias = true;
    return c;
}

ModelConfig tinyllama() {
    // TinyLlama/TinyLlama-1.1B-Chat-v1.0 config.json, with GGUF's adjacent RoPE pairs
    ModelConfig c;
    c.architecture = "llama";
    c.layerCount = 22;
    c.hiddenSize = 2048;
    c.headCount = 32;
    c.kvHeadCount = 4;
    c.headDim = 64;
    c.ffnSize = 5632;
    c.vocabSize = 32000;
    c.contextLength = 2048;
    c.ropeDims = 64;
    c.ropePairing = RopePairing::Adjacent;
    c.rmsNormEps = 1e-5;
    return c;
}

const std::vector<Preset>& presets() {
    static const std::vector<Preset> all{{"chatglm2-6b", chatglm2()},
                                         {"tinyllama-1.1b", tinyllama()}};
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
    std::string known;
    for (const Preset& preset : presets()) {
        if (name == preset.name)
            return preset.config;
        known += known.empty() ? preset.name : std::string(", ") + preset.name;
    }
    throw Error("unknown model shape '" + name + "' (known: " + known + ")");
}

}  // namespace inferlens
