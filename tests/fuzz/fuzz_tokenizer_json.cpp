// Arbitrary tokenizer.json (and tokenizer_config.json, after the first NUL byte) through our
// reader and, when it accepts the file, through the Tokenizer it makes: a bad file is an Error,
// never a crash or a hang.

#include <string>

#include "core/error.h"
#include "models/model_files.h"
#include "tokenizer/hf_tokenizer_json.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t split = input.find('\0');
    const std::string json = input.substr(0, split);
    const std::string config = split == std::string::npos ? "" : input.substr(split + 1);
    try {
        inferlens::ModelFiles files;
        files.path = "fuzz/tokenizer.json";
        files.vocabulary = inferlens::parseHfTokenizerJson(json, config, files.path);
        files.pieceCount = int64_t(files.vocabulary->entries.size());
        const inferlens::Tokenizer tokenizer(files);
        (void)tokenizer.decode(tokenizer.encode("Hello 世界 \xff 123 <|im_end|>"));
    } catch (const inferlens::Error&) {
    }
    return 0;
}
