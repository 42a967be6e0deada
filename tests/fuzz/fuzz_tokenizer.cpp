// The tokenizer wrapper on arbitrary text (invalid UTF-8, control characters, special-token names
// included), with the bundled model's vocabulary: encoding with byte spans, decoding, and the
// streaming detokenizer fed the ids one by one, which must agree with decode.

#include <cstdlib>
#include <string_view>

#include "core/error.h"
#include "models/default_model.h"
#include "models/model_files.h"
#include "tokenizer/streaming_detokenizer.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const inferlens::ModelFiles files =
        inferlens::openModelFiles(inferlens::findDefaultModel());
    static const inferlens::Tokenizer tokenizer(files);
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const inferlens::TokenizationInfo info = tokenizer.tokenize(text);
        const std::vector<int32_t> ids = info.ids();
        const std::string decoded = tokenizer.decode(ids);
        inferlens::StreamingDetokenizer stream(tokenizer);
        std::string streamed;
        for (const int32_t id : ids)
            streamed += stream.push(id);
        streamed += stream.flush();
        if (streamed != decoded)
            std::abort();  // the streaming detokenizer must give decode's bytes
        inferlens::TokenizationInfo generated;
        for (const int32_t id : ids)
            tokenizer.appendGenerated(generated, id);
    } catch (const inferlens::Error&) {
    }
    return 0;
}
