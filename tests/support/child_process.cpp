#include "support/child_process.h"
#include "support/sanitizer_build.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>

#include "core/error.h"

namespace inferlens::test {
namespace {

constexpr rlim_t kAddressSpaceLimit = rlim_t(4) << 30;
constexpr size_t kMaxMessageBytes = 4096;  // well inside a pipe's buffer: the child never blocks

bool addressSpaceLimitApplies() {
    return !kAddressSanitizer && !kThreadSanitizer;
}

[[noreturn]] void childMain(const std::function<void()>& body, int fd) {
    // Qt Test's fatal-signal handler would attach a debugger: let a crash be a plain crash.
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS})
        ::signal(signal, SIG_DFL);
    rlimit noCore{0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);
    if (addressSpaceLimitApplies()) {
        rlimit limit{};
        ::getrlimit(RLIMIT_AS, &limit);
        if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > kAddressSpaceLimit) {
            limit.rlim_cur = kAddressSpaceLimit;
            ::setrlimit(RLIMIT_AS, &limit);
        }
    }
    std::string kind, message;
    try {
        body();
        kind = "accepted";
    } catch (const Error& error) {
        kind = "error";
        message = error.what();
    } catch (const std::bad_alloc&) {
        kind = "bad_alloc";
        message = "std::bad_alloc (a huge allocation)";
    } catch (const std::exception& error) {
        kind = "exception";
        message = std::string("not an inferlens::Error: ") + error.what();
    } catch (...) {
        kind = "exception";
        message = "an exception that is not a std::exception";
    }
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    const std::string text =
        kind + "\n" + std::to_string(usage.ru_maxrss) + "\n" + message.substr(0, kMaxMessageBytes);
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t written = ::write(fd, text.data() + done, text.size() - done);
        if (written <= 0)
            break;
        done += size_t(written);
    }
    ::_exit(0);
}

}  // namespace

ChildOutcome runInChild(const std::function<void()>& body, int timeoutMs) {
    int fds[2];
    if (::pipe(fds) != 0)
        return {"crash", "pipe failed", 0};
    const pid_t child = ::fork();
    if (child < 0)
        return {"crash", "fork failed", 0};
    if (child == 0) {
        ::close(fds[0]);
        childMain(body, fds[1]);
    }
    ::close(fds[1]);
    // Sanitized builds run several times slower: a hang is still a hang at five times the limit.
    if (!addressSpaceLimitApplies())
        timeoutMs *= 5;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    int status = 0;
    while (::waitpid(child, &status, WNOHANG) != child) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(child, SIGKILL);
            ::waitpid(child, &status, 0);
            ::close(fds[0]);
            return {"hang", "still running after " + std::to_string(timeoutMs) + " ms; killed", 0};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::string result;
    char buffer[1024];
    for (ssize_t got; (got = ::read(fds[0], buffer, sizeof buffer)) > 0;)
        result.append(buffer, size_t(got));
    ::close(fds[0]);
    if (WIFSIGNALED(status))
        return {"crash",
                "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                    ::strsignal(WTERMSIG(status)) + ")",
                0};
    const size_t first = result.find('\n');
    const size_t second = first == std::string::npos ? first : result.find('\n', first + 1);
    if (second == std::string::npos)
        return {"crash", "the child process wrote no result", 0};
    ChildOutcome outcome;
    outcome.kind = result.substr(0, first);
    outcome.peakRssKiB = std::stol(result.substr(first + 1, second - first - 1));
    outcome.message = result.substr(second + 1);
    return outcome;
}

}  // namespace inferlens::test
