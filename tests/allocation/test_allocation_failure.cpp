// Allocation failures surface as errors, never as aborts. This program replaces the global
// operator new with one that can be told to fail the n-th allocation, then runs the engine's whole
// job on the bundled model — open the files, place the weights, build the tokenizer, render a chat
// prompt, generate with two threads, a sampler and a probe that captures attention, hidden states
// and sampling traces — once to count its allocations, then again with allocation n failing, for n
// spread over the whole run and over the generation itself. Each run must either finish or throw
// (std::bad_alloc or our Error) on the calling thread; a failure on a pool thread that escaped
// would call std::terminate, and the handler installed here names the run before the process
// aborts. A last set of runs refuses every allocation over a size, as Linux refuses a request it
// can never back. (Failing every allocation from some point on is not modelled: Linux does not
// fail small requests but overcommits and lets the OOM killer end the process, and libraries such
// as nlohmann-json allocate while unwinding, in destructors that cannot throw.)
//
// Allocations outside operator new (the weights' aligned_alloc, the file mappings) are checked
// where they are made and throw Error; the sanitizer runs see this program too (LeakSanitizer:
// nothing leaks on any of these paths). Not injected: allocations inside sentencepiece's model
// parsing, which is not exception-safe (see insideSentencePiece).

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include <dlfcn.h>
#include <execinfo.h>

#include "core/error.h"
#include "generator.h"
#include "models/model.h"
#include "plain/plain_test.h"
#include "probe.h"
#include "sampling/sampler.h"
#include "sampling/sampler_chooser.h"
#include "tokenizer/chat_template.h"
#include "tokenizer/tokenizer.h"

using namespace inferlens;
using namespace inferlens::plaintest;

namespace {

std::atomic<int64_t> allocationCount{0};
std::atomic<int64_t> failAt{-1};   // the allocation that fails; -1: none
std::atomic<size_t> failAbove{0};  // every allocation larger than this fails; 0: none
std::atomic<int64_t> currentRun{-1};
std::atomic<int64_t> generationStart{0};  // the allocation count when generate() begins

// Whether the allocation being made comes from inside sentencepiece (or the protobuf-lite it
// parses its model with): that code is not exception-safe (a failed allocation mid-parse leaves a
// message its destructor then crashes on), so failures are not injected there; the next
// allocation outside it fails instead. Only walked for an allocation about to fail.
bool insideSentencePiece() {
    void* frames[64];
    const int count = backtrace(frames, 64);
    for (int i = 0; i < count; ++i) {
        Dl_info info;
        if (dladdr(frames[i], &info) != 0 && info.dli_fname != nullptr &&
            (std::strstr(info.dli_fname, "sentencepiece") != nullptr ||
             std::strstr(info.dli_fname, "protobuf") != nullptr))
            return true;
    }
    return false;
}

void* allocate(size_t size, size_t alignment) {
    const int64_t index = allocationCount.fetch_add(1, std::memory_order_relaxed);
    const size_t limit = failAbove.load(std::memory_order_relaxed);
    if (index == failAt.load(std::memory_order_relaxed) || (limit > 0 && size > limit)) {
        if (!insideSentencePiece())
            return nullptr;
        if (index == failAt.load(std::memory_order_relaxed))
            failAt.store(index + 1, std::memory_order_relaxed);  // the next one outside it
    }
    if (size == 0)
        size = 1;
    if (alignment <= alignof(std::max_align_t))
        return std::malloc(size);
    return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}

void* allocateOrThrow(size_t size, size_t alignment) {
    if (void* pointer = allocate(size, alignment))
        return pointer;
    throw std::bad_alloc();
}

}  // namespace

void* operator new(size_t size) {
    return allocateOrThrow(size, 0);
}
void* operator new[](size_t size) {
    return allocateOrThrow(size, 0);
}
void* operator new(size_t size, std::align_val_t alignment) {
    return allocateOrThrow(size, size_t(alignment));
}
void* operator new[](size_t size, std::align_val_t alignment) {
    return allocateOrThrow(size, size_t(alignment));
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
    return allocate(size, 0);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
    return allocate(size, 0);
}
void operator delete(void* pointer) noexcept {
    std::free(pointer);
}
void operator delete[](void* pointer) noexcept {
    std::free(pointer);
}
void operator delete(void* pointer, size_t) noexcept {
    std::free(pointer);
}
void operator delete[](void* pointer, size_t) noexcept {
    std::free(pointer);
}
void operator delete(void* pointer, std::align_val_t) noexcept {
    std::free(pointer);
}
void operator delete[](void* pointer, std::align_val_t) noexcept {
    std::free(pointer);
}
void operator delete(void* pointer, size_t, std::align_val_t) noexcept {
    std::free(pointer);
}
void operator delete[](void* pointer, size_t, std::align_val_t) noexcept {
    std::free(pointer);
}

namespace {

// Copies what a GUI probe would: attention rows, hidden states, sampling traces.
class CopyingProbe final : public Probe {
  public:
    ProbeInterest interest() const override {
        ProbeInterest wanted;
        wanted.tokenization = wanted.steps = wanted.layers = wanted.kvCache = true;
        wanted.sampling = wanted.hiddenStates = true;
        wanted.attention = [](int64_t, int64_t) { return true; };
        return wanted;
    }
    void onAttention(const AttentionEvent& event) override {
        copies_.assign(event.weights.begin(), event.weights.end());
    }
    void onHiddenState(const HiddenStateEvent& event) override {
        copies_.assign(event.hidden.begin(), event.hidden.end());
    }
    void onSampling(int64_t, const SamplingTrace& trace) override { traces_.push_back(trace); }

  private:
    std::vector<float> copies_;
    std::vector<SamplingTrace> traces_;
};

// The whole job; returns the number of tokens generated.
size_t runTheEngine() {
    const Model model = Model::open(INFERLENS_BUNDLED_MODEL);
    const Tokenizer tokenizer(model.files());
    const ChatTemplate chat(detectChatTemplate(model.files()).kind, tokenizer);
    const std::vector<ChatMessage> conversation{{ChatRole::User, "背一首李白的诗。"}};
    const RenderedPrompt prompt = chat.render(conversation);
    CopyingProbe probe;
    ProbeSet probes;
    probes.add(&probe);
    GeneratorOptions options;
    options.threads = 2;
    options.contextSize = 256;
    Generator generator(model, options, &probes);
    SamplingParams params;
    params.seed = 3;
    Sampler sampler(params, tokenizer.tokenCount());
    SamplerChooser chooser(sampler);
    generationStart.store(allocationCount.load());
    return generator.generate(prompt.ids, 12, chooser, {}).tokens.size();
}

enum class Outcome { Finished, OutOfMemory, Error };

// Runs the engine with allocation `index` failing, or every allocation over `limit` bytes.
Outcome runWithFailure(int64_t index, size_t limit) {
    allocationCount.store(0);
    failAbove.store(limit);
    failAt.store(index);
    Outcome outcome = Outcome::Finished;
    try {
        runTheEngine();
    } catch (const std::bad_alloc&) {
        outcome = Outcome::OutOfMemory;
    } catch (const Error&) {
        outcome = Outcome::Error;
    }
    failAt.store(-1);
    failAbove.store(0);
    return outcome;
}

}  // namespace

PLAIN_TEST(everyFailedAllocationIsAnExceptionOnTheCallingThread) {
    void* warmUp[4];
    backtrace(warmUp, 4);  // loads what backtrace needs before any allocation may fail
    std::set_terminate([] {
        std::fprintf(stderr, "std::terminate in run %lld\n", (long long)currentRun.load());
        std::abort();
    });
    allocationCount.store(0);
    const size_t tokens = runTheEngine();
    const int64_t total = allocationCount.load();
    expect(tokens == 12, "the run without failures generated " + std::to_string(tokens));
    std::printf("        %lld allocations in a whole run\n", (long long)total);

    // Failing once at n: 200 points spread over the whole run, and 200 over the generation
    // (every one of its allocations when it has no more).
    const int64_t generation = generationStart.load();
    std::printf("        %lld of them while generating\n", (long long)(total - generation));
    int counts[3] = {0, 0, 0};
    const int64_t points = 400;
    for (int64_t i = 0; i < points; ++i) {
        const int64_t n = i < points / 2
                              ? i * total / (points / 2)
                              : generation + (i - points / 2) * (total - generation) / (points / 2);
        currentRun.store(n);
        ++counts[int(runWithFailure(n, 0))];
    }
    std::printf("        failing one allocation: %d finished, %d out of memory, %d Error\n",
                counts[0], counts[1], counts[2]);
    expect(counts[1] + counts[2] > points / 2, "most failed allocations must surface");

    // Every request over a size refused, as Linux refuses one larger than it can ever back
    // (smaller ones succeed under overcommit until the OOM killer ends the process, which no
    // program can handle).
    for (const size_t limit : {size_t(16) << 10, size_t(256) << 10, size_t(4) << 20}) {
        currentRun.store(-int64_t(limit));
        const Outcome outcome = runWithFailure(-1, limit);
        std::printf("        every allocation over %zu KiB refused: %s\n", limit >> 10,
                    outcome == Outcome::Finished ? "finished" : "an exception");
    }
}

int main() {
    return runTests();
}
