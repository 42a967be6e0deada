#pragma once

// Wall-clock limits of the tests that guard against a slow algorithm coming back. They are set
// for the normal build; a sanitizer build runs every instruction several times slower (shadow
// memory checks, race bookkeeping) and CI runs it with two tests in parallel, so its limits are
// scaled rather than loosened for everyone.

namespace inferlens::test {

#if defined(__SANITIZE_THREAD__)
constexpr double kSanitizerSlowdown = 8;
#elif defined(__SANITIZE_ADDRESS__)
constexpr double kSanitizerSlowdown = 4;
#else
constexpr double kSanitizerSlowdown = 1;
#endif

// `milliseconds` of the normal build, in this build.
constexpr long long wallClockBudgetMs(long long milliseconds) {
    return static_cast<long long>(milliseconds * kSanitizerSlowdown);
}

}  // namespace inferlens::test
