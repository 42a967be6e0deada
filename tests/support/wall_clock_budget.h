#pragma once

// Wall-clock limits of the tests that guard against a slow algorithm coming back. They are set
// for the normal build; a sanitizer build runs every instruction several times slower (shadow
// memory checks, race bookkeeping) and CI runs it with two tests in parallel, so its limits are
// scaled rather than loosened for everyone.

#include "support/sanitizer_build.h"

namespace inferlens::test {

constexpr double kSanitizerSlowdown = kThreadSanitizer ? 8 : kAddressSanitizer ? 4 : 1;

// `milliseconds` of the normal build, in this build.
constexpr long long wallClockBudgetMs(long long milliseconds) {
    return static_cast<long long>(milliseconds * kSanitizerSlowdown);
}

// The longest the UI thread may stall while an answer streams: the project's limit of 250 ms in
// the normal build (the app tests hold it there); a sanitizer build scales it like the other
// limits (its soak test, with ASan and libFuzzer's coverage compiled in, stalled 534 ms here).
constexpr double kUiStallLimitMs = 250 * kSanitizerSlowdown;

}  // namespace inferlens::test
