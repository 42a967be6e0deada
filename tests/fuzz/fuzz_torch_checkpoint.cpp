// PyTorch checkpoints: the zip container, then the pickle subset of a state dict and the storages
// it names.

#include "core/error.h"
#include "fuzz_input.h"
#include "io/torch_checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static inferlens::fuzz::InputFile input(".bin");
    try {
        const inferlens::TorchCheckpoint checkpoint(input.write(data, size));
    } catch (const inferlens::Error&) {
    }
    return 0;
}
