#include "arguments.h"
#include "commands.h"
#include "convert/synthetic_model.h"

#include <cstdio>

namespace inferlens::cli {

int runSynth(const Words& words) {
    const Arguments args(words,
                         {"out",
                          "arch",
                          "layers",
                          "hidden",
                          "heads",
                          "kv-heads",
                          "head-dim",
                          "ffn",
                          "vocab",
                          "ctx",
                          "rope-base",
                          "dtype",
                          "seed",
                          "format",
                          "rope-scaling",
                          "rope-factor",
                          "rope-original-ctx",
                          "sliding-window",
                          "sliding-pattern",
                          "local-rope-base",
                          "softcap"},
                         {"tied-embeddings"});
    SyntheticModelOptions options;
    options.architecture = args.value("arch").value_or(options.architecture);
    options.layers = args.integer("layers", options.layers);
    options.hidden = args.integer("hidden", options.hidden);
    options.heads = args.integer("heads", options.heads);
    options.kvHeads = args.integer("kv-heads", options.kvHeads);
    options.headDim = args.integer("head-dim", options.headDim);
    options.ffn = args.integer("ffn", options.ffn);
    options.vocab = args.integer("vocab", options.vocab);
    options.context = args.integer("ctx", options.context);
    options.ropeBase = args.number("rope-base", options.ropeBase);
    options.tiedOutput = args.flag("tied-embeddings");
    options.ropeScaling = args.value("rope-scaling").value_or(options.ropeScaling);
    options.ropeFactor = args.number("rope-factor", options.ropeFactor);
    options.ropeOriginalContext = args.integer("rope-original-ctx", options.ropeOriginalContext);
    options.slidingWindow = args.integer("sliding-window", options.slidingWindow);
    options.slidingPattern = args.integer("sliding-pattern", options.slidingPattern);
    options.localRopeBase = args.number("local-rope-base", options.localRopeBase);
    options.finalLogitSoftcap = args.number("softcap", options.finalLogitSoftcap);
    options.dtype = args.dtype("dtype").value_or(options.dtype);
    options.seed = uint64_t(args.integer("seed", int64_t(options.seed)));
    options.format = args.format("format").value_or(ModelFormat::Gguf);
    const std::string out = args.required("out");
    writeSyntheticModel(options, out);
    std::printf("wrote %s\n", out.c_str());
    return 0;
}

}  // namespace inferlens::cli
