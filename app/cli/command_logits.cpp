#include <cstdio>

#include "arguments.h"
#include "commands.h"
#include "core/error.h"
#include "device_choice.h"
#include "generator.h"
#include "io/npy_writer.h"

namespace inferlens::cli {

int runLogits(const Words& words) {
    const Arguments args(words,
                         {"model", "ids", "out", "ctx-size", "threads", "device", "attention",
                          "kv-type", "window", "sinks"},
                         {"no-cache"});
    const std::vector<int32_t> ids = args.integerList("ids");
    const std::string out = args.required("out");
    GeneratorOptions options = backendOptions(args);
    options.useKvCache = !args.flag("no-cache");
    Model model = openModel(args.modelPath(), options);
    Generator generator(makeBackend(model, options), options.useKvCache);
    const int64_t window = generator.slidingWindow();
    if (window == 0 && int64_t(ids.size()) > generator.contextSize())
        throw Error(std::to_string(ids.size()) + " ids do not fit in the context of " +
                    std::to_string(generator.contextSize()) + " tokens (--ctx-size)");

    // One prefill step over all ids (a sliding cache: one per window), keeping every position's
    // logits.
    const auto vocab = size_t(model.config().vocabSize);
    std::vector<float> logits(ids.size() * vocab);
    generator.prefill(ids, logits);
    writeNpyFloat32(out, {int64_t(ids.size()), int64_t(vocab)}, logits);
    std::printf("wrote %s: logits [%zu, %lld]; greedy next token after the last id: %d\n",
                out.c_str(), ids.size(), static_cast<long long>(vocab),
                argmax(std::span<const float>(logits).subspan((ids.size() - 1) * size_t(vocab))));
    return 0;
}

}  // namespace inferlens::cli
