#pragma once
// Running code that reads untrusted input in a forked child process, under a 4 GiB address-space
// limit (when no sanitizer needs the address space) and a time limit, so that a crash, a hang or
// an attempt to allocate gigabytes fails one case instead of taking the whole test down.

#include <functional>
#include <string>

namespace inferlens::test {

struct ChildOutcome {
    // "error" (an inferlens::Error), "accepted" (no exception), "bad_alloc", "exception" (any other
    // exception), "crash" or "hang".
    std::string kind;
    std::string message;  // the exception's message, or what happened
    long peakRssKiB = 0;
};

ChildOutcome runInChild(const std::function<void()>& body, int timeoutMs = 4000);

}  // namespace inferlens::test
