#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "arguments.h"
#include "commands.h"
#include "core/error.h"
#include "evaluation/token_loss.h"
#include "generation_setup.h"
#include "io/json_file.h"

namespace inferlens::cli {
namespace {

// --text, or --file: a .jsonl file gives one document per line ({"text": ...}); any other file is
// one document.
std::vector<std::string> readDocuments(const Arguments& args) {
    if (const auto text = args.value("text"))
        return {*text};
    const std::string path = args.required("file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path + ": cannot open the file");
    std::vector<std::string> documents;
    if (!path.ends_with(".jsonl")) {
        std::ostringstream whole;
        whole << in.rdbuf();
        return {whole.str()};
    }
    std::string line;
    for (int lineNumber = 1; std::getline(in, line); ++lineNumber) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const std::string where = path + ":" + std::to_string(lineNumber);
        const nlohmann::json object = parseJsonObject(line, where);
        if (!object.contains("text") || !object["text"].is_string())
            throw Error(where + ": expected an object with a string field \"text\"");
        documents.push_back(object["text"].get<std::string>());
    }
    if (documents.empty())
        throw Error(path + ": no documents");
    return documents;
}

}  // namespace

// The mean next-token loss of the model on texts: each document as a training run saw it (the
// model's prefix, the text, the end-of-sequence token), every prediction after the prefix scored.
int runScore(const Words& words) {
    const Arguments args(words, {"model", "text", "file", "ctx-size", "threads"}, {"json"});
    if (args.value("text").has_value() == args.value("file").has_value())
        throw UsageError("score needs exactly one of --text and --file");
    const std::vector<std::string> documents = readDocuments(args);
    const Model model = Model::open(args.modelPath());
    const Tokenizer tokenizer(model.files());
    GeneratorOptions options;
    options.contextSize = args.integer("ctx-size", 0);
    options.threads = int(args.integer("threads", 0));
    Generator generator(model, options);

    TokenLoss total;
    for (size_t i = 0; i < documents.size(); ++i) {
        std::vector<int32_t> ids = tokenizer.encode(documents[i]);
        for (const int32_t eos : tokenizer.eosIds())
            ids.push_back(eos);
        try {
            total += scoreTokens(generator, ids, tokenizer.prefixIds().size());
        } catch (const Error& error) {
            throw Error("document " + std::to_string(i + 1) + ": " + error.what());
        }
    }
    if (args.flag("json")) {
        const nlohmann::json result{{"documents", documents.size()},
                                    {"predictions", total.predictions},
                                    {"mean_loss", total.mean()},
                                    {"perplexity", total.perplexity()}};
        std::printf("%s\n", result.dump().c_str());
    } else {
        std::printf(
            "%zu documents, %lld predicted tokens: mean loss %.4f nats/token, "
            "perplexity %.3f\n",
            documents.size(), static_cast<long long>(total.predictions), total.mean(),
            total.perplexity());
    }
    return 0;
}

}  // namespace inferlens::cli
