#include <cstdio>

#include "arguments.h"
#include "commands.h"
#include "convert/model_converter.h"

namespace inferlens::cli {

int runConvert(const Words& words) {
    const Arguments args(words, {"model", "out", "format", "dtype"}, {});
    const std::string out = args.required("out");
    const auto format = args.format("format");
    if (!format)
        throw UsageError("--format is required");
    const ModelFiles source = openModelFiles(args.modelPath());
    convertModel(source, *format, args.dtype("dtype"), out);
    std::printf("wrote %s\n", out.c_str());
    return 0;
}

}  // namespace inferlens::cli
