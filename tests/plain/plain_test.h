#pragma once
// A minimal harness for tests that must not link Qt: the GPU tests (tests/gpu/check.sh builds them
// on a machine without Qt) and the threading tests (run under ThreadSanitizer, which Debian's
// uninstrumented Qt would confuse). Each test registers itself with PLAIN_TEST; runTests() runs
// them all and prints PASS/FAIL lines like Qt Test's.

#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace inferlens::plaintest {

struct Failure {
    std::string message;
};

struct TestCase {
    const char* name;
    std::function<void()> body;
};

inline std::vector<TestCase>& registry() {
    static std::vector<TestCase> tests;
    return tests;
}

struct Register {
    Register(const char* name, std::function<void()> body) {
        registry().push_back({name, std::move(body)});
    }
};

// ‖a − b‖ / ‖b‖ over all values (b is the reference).
inline double normalisedError(std::span<const float> a, std::span<const float> b) {
    double difference = 0.0, reference = 0.0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        difference += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
        reference += double(b[i]) * double(b[i]);
    }
    if (a.size() != b.size())
        throw Failure{"sizes differ: " + std::to_string(a.size()) + " vs " +
                      std::to_string(b.size())};
    return reference == 0.0 ? std::sqrt(difference) : std::sqrt(difference / reference);
}

// Fails unless the normalised error is at most `tolerance`; prints it either way, so that the log
// of a GPU run records how close each comparison came.
inline void expectClose(const std::string& what, std::span<const float> actual,
                        std::span<const float> reference, double tolerance) {
    const double error = normalisedError(actual, reference);
    std::printf("        %-48s normalised error %.3g (tolerance %.3g)\n", what.c_str(), error,
                tolerance);
    if (!(error <= tolerance)) {
        std::ostringstream message;
        message << what << ": normalised error " << error << " exceeds " << tolerance;
        throw Failure{message.str()};
    }
}

inline void expect(bool condition, const std::string& what) {
    if (!condition)
        throw Failure{what};
}

inline int runTests() {
    int failures = 0;
    for (const TestCase& test : registry()) {
        std::printf("RUN    : %s\n", test.name);
        std::fflush(stdout);
        try {
            test.body();
            std::printf("PASS   : %s\n", test.name);
        } catch (const Failure& failure) {
            std::printf("FAIL!  : %s: %s\n", test.name, failure.message.c_str());
            ++failures;
        } catch (const std::exception& error) {
            std::printf("FAIL!  : %s: exception: %s\n", test.name, error.what());
            ++failures;
        }
        std::fflush(stdout);
    }
    std::printf("%d passed, %d failed\n", int(registry().size()) - failures, failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace inferlens::plaintest

#define PLAIN_TEST(name)                                                            \
    static void name();                                                             \
    static const ::inferlens::plaintest::Register name##Registration(#name, &name); \
    static void name()
