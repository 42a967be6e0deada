// safetensors files: the header's length and JSON, dtypes, shapes and byte ranges.

#include "core/error.h"
#include "fuzz_input.h"
#include "io/safetensors_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static inferlens::fuzz::InputFile input(".safetensors");
    try {
        const inferlens::SafetensorsFile file(input.write(data, size));
    } catch (const inferlens::Error&) {
    }
    return 0;
}
