#include "device_choice.h"

#include <cstdio>

#include "backend/devices.h"
#include "core/error.h"
#include "models/memory_estimate.h"

namespace inferlens::cli {

ComputeDevice chooseDevice(const Arguments& args) {
    ComputeDevice device;
    try {
        device = parseComputeDevice(args.value("device").value_or("cpu"));
    } catch (const Error& error) {
        throw UsageError(std::string("--device: ") + error.what());
    }
    if (!device.isCuda())
        return device;
    const CudaAvailability cuda = queryCudaDevices();
    if (cuda.devices.empty()) {
        std::fprintf(stderr, "inferlens-cli: %s; running on the CPU\n", cuda.message.c_str());
        return {};
    }
    return device;
}

GeneratorOptions backendOptions(const Arguments& args, bool attentionIsKernel) {
    GeneratorOptions options;
    options.device = chooseDevice(args);
    options.contextSize = args.integer("ctx-size", 0);
    options.threads = int(args.integer("threads", 0));
    try {
        options.kvType = parseKvType(args.value("kv-type").value_or("f32"));
    } catch (const Error& error) {
        throw UsageError(std::string("--kv-type: ") + error.what());
    }
    options.window = args.integer("window", 0);
    options.sinks = args.integer("sinks", options.window > 0 ? 4 : 0);
    if (options.window < 0 || options.sinks < 0 || (options.window == 0 && options.sinks > 0))
        throw UsageError("--sinks needs a --window, and neither may be negative");
    if (!attentionIsKernel)
        return options;
    try {
        options.attention = parseAttentionKernel(args.value("attention").value_or("fused"));
    } catch (const Error& error) {
        throw UsageError(std::string("--attention: ") + error.what());
    }
    return options;
}

namespace {

void requireMemoryForCpu(const ModelFiles& files, const GeneratorOptions& options) {
    requireMemory(estimateMemory(files.config, files.weightBytes(),
                                 cacheRowsAtMost(files.config, options), 512, options.kvType),
                  availableMemoryBytes(), files.path);
}

}  // namespace

Model openModel(const std::string& path, const GeneratorOptions& options) {
    ModelFiles files = openModelFiles(path);
    if (!options.device.isCuda())
        requireMemoryForCpu(files, options);
    return Model(std::move(files), !options.device.isCuda());
}

std::unique_ptr<ForwardBackend> makeBackend(Model& model, const GeneratorOptions& options) {
    if (options.device.isCuda()) {
        try {
            auto backend = makeForwardBackend(model, options);
            std::fprintf(stderr, "inferlens-cli: running on %s\n", backend->deviceName().c_str());
            return backend;
        } catch (const Error& error) {
            std::fprintf(stderr, "inferlens-cli: %s; running on the CPU instead\n", error.what());
        }
    }
    requireMemoryForCpu(model.files(), options);
    model.placeForCpu();
    GeneratorOptions cpu = options;
    cpu.device = {};
    return makeForwardBackend(model, cpu);
}

}  // namespace inferlens::cli
