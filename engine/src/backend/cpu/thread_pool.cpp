#include "backend/cpu/thread_pool.h"

#include <algorithm>

#include "core/error.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace inferlens {

namespace {

// How long a thread keeps checking for the next product before it sleeps: a decode step hands out
// ~155 products a few microseconds apart, and a wake-up through the kernel costs more than that
// (about 60 µs of checking here).
constexpr int kSpinChecks = 20000;

void relax() {
#if defined(__x86_64__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
    if (threads < 0)
        throw Error("--threads must be positive, got " + std::to_string(threads));
    if (threads == 0)
        threads = int(std::max(1u, std::thread::hardware_concurrency()));
    for (int index = 1; index < threads; ++index)
        workers_.emplace_back([this, index] { work(index); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(mutex_);
        stopping_.store(true);
    }
    wake_.notify_all();
    for (auto& worker : workers_)
        worker.join();
}

void ThreadPool::runChunks(int index) {
    for (int64_t chunk = index; chunk < chunks_;
         chunk = nextChunk_.fetch_add(1, std::memory_order_relaxed)) {
        const int64_t begin = count_ * chunk / chunks_;
        const int64_t end = count_ * (chunk + 1) / chunks_;
        if (begin >= end)
            continue;
        try {
            (*body_)(begin, end);
        } catch (...) {
            std::lock_guard lock(mutex_);
            if (!failure_)
                failure_ = std::current_exception();
        }
    }
}

void ThreadPool::rethrowFailure() {
    std::exception_ptr failure;
    {
        std::lock_guard lock(mutex_);
        std::swap(failure, failure_);
    }
    if (failure)
        std::rethrow_exception(failure);
}

void ThreadPool::parallelFor(int64_t count, const std::function<void(int64_t, int64_t)>& body,
                             int64_t chunks) {
    if (workers_.empty()) {
        body(0, count);
        return;
    }
    {
        std::lock_guard lock(mutex_);
        body_ = &body;
        count_ = count;
        chunks_ = chunks > 0 ? std::min(chunks, count) : size();
        nextChunk_.store(size(), std::memory_order_relaxed);
        pending_.store(int(workers_.size()));
        generation_.fetch_add(1, std::memory_order_release);  // publishes body_ and count_
    }
    wake_.notify_all();
    runChunks(0);
    bool done = false;
    for (int check = 0; check < kSpinChecks && !done; ++check) {
        done = pending_.load(std::memory_order_acquire) == 0;
        if (!done)
            relax();
    }
    if (!done) {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    rethrowFailure();
}

void ThreadPool::work(int index) {
    uint64_t seen = 0;
    while (true) {
        // Spin a little for the next product, then sleep until one comes.
        bool ready = false;
        for (int check = 0; check < kSpinChecks && !ready; ++check) {
            ready = generation_.load(std::memory_order_acquire) != seen || stopping_.load();
            if (!ready)
                relax();
        }
        if (!ready) {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] {
                return stopping_.load() || generation_.load(std::memory_order_acquire) != seen;
            });
        }
        if (stopping_.load())
            return;
        seen = generation_.load(std::memory_order_acquire);
        runChunks(index);
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            // Under the mutex, so that a caller about to sleep cannot miss it.
            std::lock_guard lock(mutex_);
            done_.notify_one();
        }
    }
}

}  // namespace inferlens
