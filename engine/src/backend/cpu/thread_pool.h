#pragma once
// A fixed set of worker threads for splitting one operation (the rows of a matrix-vector product)
// across cores. The calling thread works too, so a pool of size 1 has no workers and runs inline.
// Between operations the threads spin briefly before sleeping, since a decode step hands out its
// products faster than a sleeping thread wakes.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace inferlens {

class ThreadPool {
  public:
    explicit ThreadPool(int threads);  // threads >= 1; 0 means one per hardware thread
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return int(workers_.size()) + 1; }
    // Calls body(begin, end) on disjoint chunks covering [0, count) and returns when all are done.
    // `chunks` (0: one per thread, at most `count`) sets how many: thread i runs chunk i, then
    // whatever chunks beyond the first size() are left, as it comes free — so a thread slowed by
    // something else on its core (a neighbour on a shared machine) leaves its share to the others
    // rather than keeping them waiting. With one chunk per thread, body runs at most once per
    // thread.
    // An exception thrown by a chunk (a kernel's per-thread buffer that cannot grow, say) is
    // rethrown here once every chunk has ended, on the calling thread: the first one, if several
    // threw. The other chunks still run to their end.
    void parallelFor(int64_t count, const std::function<void(int64_t begin, int64_t end)>& body,
                     int64_t chunks = 0);
    // A chunk count for parallelFor that splits `amount` (bytes, multiply-adds, …) into chunks of
    // about `perChunk`: a whole number per thread, at least one, so that on threads equally fast
    // each runs as many as the others, none left running a last chunk alone while they wait (23
    // chunks on 16 threads take two chunks' time for 1.4 chunks' work each).
    int64_t chunksOf(int64_t amount, int64_t perChunk) const {
        return size() * std::max<int64_t>(1, amount / (perChunk * size()));
    }

  private:
    void work(int index);
    void runChunks(int index);
    void rethrowFailure();

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(int64_t, int64_t)>* body_ = nullptr;
    int64_t count_ = 0;
    int64_t chunks_ = 0;
    std::atomic<int64_t> nextChunk_{0};  // the next chunk past the first size() to hand out
    std::exception_ptr failure_;         // the first chunk's exception; under mutex_
    // Checked without the mutex by threads that spin between products (thread_pool.cpp).
    std::atomic<uint64_t> generation_{0};
    std::atomic<int> pending_{0};
    std::atomic<bool> stopping_{false};
};

}  // namespace inferlens
