#include "backend/cpu/thread_pool.h"

#include <algorithm>

#include "core/error.h"

namespace inferlens {

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
        stopping_ = true;
    }
    wake_.notify_all();
    for (auto& worker : workers_)
        worker.join();
}

void ThreadPool::runChunk(int index) {
    const int64_t chunks = size();
    const int64_t begin = count_ * index / chunks;
    const int64_t end = count_ * (index + 1) / chunks;
    if (begin < end)
        (*body_)(begin, end);
}

void ThreadPool::parallelFor(int64_t count, const std::function<void(int64_t, int64_t)>& body) {
    if (workers_.empty()) {
        body(0, count);
        return;
    }
    {
        std::lock_guard lock(mutex_);
        body_ = &body;
        count_ = count;
        pending_ = int(workers_.size());
        ++generation_;
    }
    wake_.notify_all();
    runChunk(0);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
}

void ThreadPool::work(int index) {
    uint64_t seen = 0;
    while (true) {
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
            if (stopping_)
                return;
            seen = generation_;
        }
        runChunk(index);
        {
            std::lock_guard lock(mutex_);
            --pending_;
        }
        done_.notify_one();
    }
}

}  // namespace inferlens
