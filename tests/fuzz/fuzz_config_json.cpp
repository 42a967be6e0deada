// config.json: parsed as JSON, read by each architecture, and validated.

#include <string_view>

#include "core/error.h"
#include "io/json_file.h"
#include "models/architecture.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const nlohmann::json json = inferlens::parseJsonObject(text, "config.json");
        for (const inferlens::Architecture* architecture :
             {&inferlens::glmArchitecture(), &inferlens::llamaArchitecture()}) {
            try {
                const inferlens::ModelConfig config =
                    architecture->configFromHf(json, "config.json");
                inferlens::validateConfig(config, "config.json");
            } catch (const inferlens::Error&) {
            }
        }
        inferlens::architectureForHfConfig(json, "config.json");
    } catch (const inferlens::Error&) {
    }
    return 0;
}
