#include <cstdio>
#include <nlohmann/json.hpp>

#include "arguments.h"
#include "commands.h"
#include "models/model_files.h"
#include "tokenizer/tokenizer.h"
#include "trace/trace_json.h"

namespace inferlens::cli {

// The ids and pieces of --text, with the model's own prefix ([gMASK] sop, or <s>), the bytes of
// the text each stands for, and whether it is a special or a byte-fallback piece. Reads only the
// vocabulary, so it works on vocabulary-only GGUF files and on models whose architecture
// InferLens does not run.
int runTokenize(const Words& words) {
    const Arguments args(words, {"model", "text"}, {"json", "no-prefix"});
    const std::string text = args.required("text");
    const ModelFiles files = openTokenizerFiles(args.modelPath());
    const Tokenizer tokenizer(files);
    const TokenizationInfo info = tokenizer.tokenize(text, !args.flag("no-prefix"));

    if (args.flag("json")) {
        nlohmann::json result = toJson(info);  // the trace's "tokenized" event, plus the ids
        result.erase("event");
        result["ids"] = info.ids();
        std::printf("%s\n",
                    result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        return 0;
    }
    for (const TokenInfo& token : info.tokens) {
        const std::string source =
            info.text.substr(size_t(token.begin), size_t(token.end - token.begin));
        std::printf("%8d  %-20s  [%lld, %lld) %s%s%s\n", token.id, token.piece.c_str(),
                    static_cast<long long>(token.begin), static_cast<long long>(token.end),
                    token.special ? "special" : "", token.byteFallback ? "byte " : "",
                    token.special || token.byteFallback ? "" : ("\"" + source + "\"").c_str());
    }
    std::printf("%zu tokens\n", info.tokens.size());
    return 0;
}

}  // namespace inferlens::cli
