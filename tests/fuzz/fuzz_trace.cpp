// Trace files (JSON lines) as the desktop app replays them: every line parsed, its fields checked,
// the events put back in order. Built where the desktop app is (it is the app's reader).

#include "core/error.h"
#include "fuzz_input.h"
#include "trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static inferlens::fuzz::InputFile input(".jsonl");
    try {
        inferlens::gui::readTrace(QString::fromStdString(input.write(data, size)));
    } catch (const inferlens::Error&) {
    }
    return 0;
}
