// The engine's threads without Qt, so that ThreadSanitizer sees only instrumented code (CI runs
// this under TSan, and under ASan/LSan with the rest of the suite): the thread pool's hand-out of
// chunks, and a generation on its own thread — probes handing their data to another thread as the
// GUI does — cancelled, paused, stepped and resumed 100 times at random points, which must never
// deadlock or leave the generator unusable.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <mutex>
#include <new>
#include <random>
#include <thread>

#include <unistd.h>

#include "backend/cpu/thread_pool.h"
#include "convert/synthetic_model.h"
#include "generator.h"
#include "plain/plain_test.h"

using namespace inferlens;
using namespace inferlens::plaintest;
using namespace std::chrono_literals;

namespace {

// Attention rows and hidden states copied on the engine thread and consumed on another, like the
// GUI's probe and its panels.
class HandOffProbe final : public Probe {
  public:
    HandOffProbe() : consumer_([this] { consume(); }) {}
    ~HandOffProbe() override {
        {
            const std::lock_guard lock(mutex_);
            done_ = true;
        }
        ready_.notify_one();
        consumer_.join();
    }
    ProbeInterest interest() const override {
        ProbeInterest wanted;
        wanted.attention = [](int64_t, int64_t head) { return head == 0; };
        wanted.hiddenStates = true;
        wanted.layers = true;
        wanted.kvCache = true;
        return wanted;
    }
    void onAttention(const AttentionEvent& event) override {
        push(std::vector<float>(event.weights.begin(), event.weights.end()));
    }
    void onHiddenState(const HiddenStateEvent& event) override {
        push(std::vector<float>(event.hidden.begin(), event.hidden.end()));
    }
    int64_t consumed() const { return consumed_.load(); }

  private:
    void push(std::vector<float> values) {
        {
            const std::lock_guard lock(mutex_);
            queue_.push_back(std::move(values));
        }
        ready_.notify_one();
    }
    void consume() {
        std::unique_lock lock(mutex_);
        while (true) {
            ready_.wait(lock, [this] { return done_ || !queue_.empty(); });
            if (queue_.empty())
                return;
            const std::vector<float> values = std::move(queue_.front());
            queue_.pop_front();
            lock.unlock();
            double sum = 0.0;
            for (const float value : values)
                sum += value;
            consumed_ += sum == sum ? 1 : 0;  // reads every value
            lock.lock();
        }
    }

    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::vector<float>> queue_;
    bool done_ = false;
    std::atomic<int64_t> consumed_{0};
    std::thread consumer_;
};

std::string syntheticModel() {
    const auto path = std::filesystem::temp_directory_path() /
                      ("inferlens-threading-" + std::to_string(::getpid()) + ".gguf");
    SyntheticModelOptions options;
    options.layers = 4;
    options.hidden = 64;
    options.heads = 4;
    options.kvHeads = 2;
    options.ffn = 128;
    options.context = 512;
    writeSyntheticModel(options, path.string());
    return path.string();
}

}  // namespace

PLAIN_TEST(threadPoolHandsOutEveryIndexExactlyOnce) {
    ThreadPool pool(4);
    std::mt19937 random(1);
    std::vector<std::atomic<int>> hits(5000);
    for (int round = 0; round < 300; ++round) {
        const int64_t count = std::uniform_int_distribution<int64_t>(1, 5000)(random);
        for (int64_t i = 0; i < count; ++i)
            hits[size_t(i)].store(0);
        pool.parallelFor(count, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i)
                hits[size_t(i)].fetch_add(1);
        });
        for (int64_t i = 0; i < count; ++i)
            expect(hits[size_t(i)].load() == 1,
                   "index " + std::to_string(i) + " of " + std::to_string(count) + " ran " +
                       std::to_string(hits[size_t(i)].load()) + " times");
    }
}

// With more chunks than threads, each chunk runs once, on the boundaries asked for, and the
// threads between them cover every index once.
PLAIN_TEST(threadPoolHandsOutMoreChunksThanThreadsAsTheyComeFree) {
    ThreadPool pool(3);
    for (const int64_t count : {int64_t(2), int64_t(5), int64_t(1000)}) {
        const int64_t chunks = 16, expectedChunks = std::min(chunks, count);
        std::mutex mutex;
        std::vector<std::pair<int64_t, int64_t>> ranges;
        pool.parallelFor(
            count,
            [&](int64_t begin, int64_t end) {
                std::lock_guard lock(mutex);
                ranges.emplace_back(begin, end);
            },
            chunks);
        std::sort(ranges.begin(), ranges.end());
        expect(int64_t(ranges.size()) == expectedChunks,
               std::to_string(ranges.size()) + " chunks ran of " + std::to_string(count) +
                   " indices, not " + std::to_string(expectedChunks));
        for (size_t c = 0; c < ranges.size(); ++c) {
            const int64_t begin = count * int64_t(c) / expectedChunks;
            const int64_t end = count * int64_t(c + 1) / expectedChunks;
            expect(ranges[c] == std::make_pair(begin, end),
                   "chunk " + std::to_string(c) + " of " + std::to_string(count) + " ran [" +
                       std::to_string(ranges[c].first) + ", " + std::to_string(ranges[c].second) +
                       ") instead of [" + std::to_string(begin) + ", " + std::to_string(end) + ")");
        }
    }
}

// Chunk counts are a whole number per thread, of about the size asked for (the tail of an amount
// that does not divide evenly goes to the chunks), and at least one per thread.
PLAIN_TEST(threadPoolCountsAWholeNumberOfChunksPerThread) {
    constexpr int64_t kMiB = int64_t(1) << 20;
    for (const int threads : {1, 2, 3, 16}) {
        const ThreadPool pool(threads);
        for (const int64_t amount : {int64_t(1), kMiB, 23 * kMiB, 100 * kMiB + 7}) {
            const int64_t chunks = pool.chunksOf(amount, kMiB);
            const std::string label = std::to_string(amount) + " bytes on " +
                                      std::to_string(threads) +
                                      " threads: " + std::to_string(chunks) + " chunks";
            expect(chunks >= threads && chunks % threads == 0, label);
            // Chunks of at least the size asked for, under twice it, once there is enough.
            if (amount >= kMiB * threads)
                expect(amount / chunks >= kMiB && amount / chunks < 2 * kMiB, label);
        }
    }
    expect(ThreadPool(16).chunksOf(23 * kMiB, kMiB) == 16, "23 MiB on 16 threads: one chunk each");
    expect(ThreadPool(2).chunksOf(23 * kMiB, kMiB) == 22, "23 MiB on 2 threads: 11 chunks each");
}

// A chunk that throws, on a worker or on the calling thread, reaches the caller of parallelFor
// (not std::terminate) after every other chunk has run, and the pool works on afterwards.
PLAIN_TEST(aChunkThatThrowsReachesTheCallerAndThePoolGoesOn) {
    ThreadPool pool(4);
    for (const int64_t throwing : {0, 3, 7}) {  // the calling thread's chunk is the first
        std::vector<std::atomic<int>> hits(8);
        bool caught = false;
        try {
            pool.parallelFor(8, [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) {
                    hits[size_t(i)].fetch_add(1);
                    if (i == throwing)
                        throw std::bad_alloc();
                }
            });
        } catch (const std::bad_alloc&) {
            caught = true;
        }
        expect(caught, "chunk " + std::to_string(throwing) + "'s exception was not rethrown");
        // Four chunks of two: only the rest of the throwing chunk is skipped.
        const int64_t skipped = throwing % 2 == 0 ? throwing + 1 : -1;
        for (int64_t i = 0; i < 8; ++i)
            expect(hits[size_t(i)].load() == (i == skipped ? 0 : 1),
                   "index " + std::to_string(i) + " ran " + std::to_string(hits[size_t(i)].load()) +
                       " times with " + std::to_string(throwing) + " throwing");
    }
    std::atomic<int64_t> total{0};
    pool.parallelFor(100, [&](int64_t begin, int64_t end) { total += end - begin; });
    expect(total.load() == 100, "the pool did not run every index after the failures");
}

PLAIN_TEST(cancelPauseAndResumeAtRandomPointsNeverDeadlock) {
    const std::string path = syntheticModel();
    const Model model = Model::open(path);
    std::filesystem::remove(path);
    HandOffProbe probe;
    ProbeSet probes;
    probes.add(&probe);
    GenerationControl control;
    GeneratorOptions options;
    options.threads = 2;
    options.contextSize = 512;
    Generator generator(model, options, &probes, &control);
    std::mt19937 random(7);
    const std::vector<int32_t> prompt{3, 17, 42, 99, 5, 8};
    int cancelled = 0, finished = 0;
    for (int round = 0; round < 100; ++round) {
        generator.reset();
        control.clearCancel();
        std::atomic<bool> done{false};
        Generation result;
        std::thread engine([&] {
            GreedyChooser greedy;
            result = generator.generate(prompt, 200, greedy, {});
            done = true;
        });
        // A random moment, then a random request: cancel now, or pause (maybe stepping a layer or
        // a token while paused) and then cancel or resume.
        std::this_thread::sleep_for(std::chrono::microseconds(random() % 3000));
        switch (random() % 4) {
            case 0:
                control.cancel();
                break;
            case 1:
                control.pause();
                std::this_thread::sleep_for(std::chrono::microseconds(random() % 1000));
                control.stepLayer();
                control.cancel();  // also ends a pause
                break;
            case 2:
                control.pause();
                control.stepToken();
                std::this_thread::sleep_for(std::chrono::microseconds(random() % 1000));
                control.resume();
                control.cancel();
                break;
            default:
                control.pause();
                std::this_thread::sleep_for(std::chrono::microseconds(random() % 1000));
                control.resume();
                control.cancel();
                break;
        }
        // A deadlock shows as a generation that never returns.
        const auto start = std::chrono::steady_clock::now();
        while (!done && std::chrono::steady_clock::now() - start < 20s)
            std::this_thread::sleep_for(100us);
        if (!done) {
            std::fprintf(stderr, "round %d: the generation did not return within 20 s\n", round);
            std::abort();  // a hung thread cannot be joined
        }
        engine.join();
        (result.reason == FinishReason::Cancelled ? cancelled : finished) += 1;
        expect(generator.cachedTokens() <= generator.tokenCount(),
               "the cache never holds more than the sequence");
    }
    std::printf("        100 rounds: %d cancelled, %d ran to the end; %lld probe items consumed\n",
                cancelled, finished, static_cast<long long>(probe.consumed()));
    expect(cancelled > 50, "most rounds are cancelled mid-generation");
    // The generator still works after all that.
    generator.reset();
    control.clearCancel();
    control.resume();
    GreedyChooser greedy;
    const Generation last = generator.generate(prompt, 5, greedy, {});
    expect(last.tokens.size() == 5, "a generation after the stress runs to its end");
}

int main() {
    return runTests();
}
