// GGUF files: the container (header, metadata, tensor directory, data ranges), then everything
// openModelFiles checks (architecture, hyper-parameters, tensor shapes and types) and the
// tokenizer built from the file's vocabulary.

#include "core/error.h"
#include "fuzz_input.h"
#include "models/model_files.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static inferlens::fuzz::InputFile input(".gguf");
    try {
        const inferlens::ModelFiles files = inferlens::openModelFiles(input.write(data, size));
        const inferlens::Tokenizer tokenizer(files);
        tokenizer.tokenize("Hello, 世界");
    } catch (const inferlens::Error&) {
    }
    return 0;
}
