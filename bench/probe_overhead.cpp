// What probes cost. Decodes the same tokens on a synthetic model with: no ProbeSet; a ProbeSet
// whose probe wants nothing (each probe point is then one branch on a flag); a probe that wants
// every event but attention; and one that wants every event and the attention of every head. The
// four variants alternate within each round, so machine noise hits them alike; the median ms per
// decode step of each is printed.
//
// usage: bench_probe_overhead [--rounds N] [--steps N]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "convert/synthetic_model.h"
#include "generator.h"

using namespace inferlens;

namespace {

class Subscriber final : public Probe {
  public:
    explicit Subscriber(ProbeInterest wants) : wants_(std::move(wants)) {}
    ProbeInterest interest() const override { return wants_; }
    void onLayerEnd(const LayerEvent& e) override { sink_ += double(e.layer); }
    void onAttention(const AttentionEvent& e) override { sink_ += double(e.weights[0]); }
    void onKvCache(int64_t, const KvCacheStats& s) override { sink_ += double(s.tokens); }
    void onStepEnd(const StepEvent& e) override { sink_ += e.seconds; }

  private:
    ProbeInterest wants_;
    double sink_ = 0;
};

double millisecondsPerStep(const Model& model, ProbeSet* probes, int64_t steps) {
    Generator generator(model, {}, probes);
    std::vector<float> logits(size_t(model.config().vocabSize));
    const int32_t prompt[] = {5, 6, 7, 8};
    generator.step(prompt, logits);
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < steps; ++i) {
        const int32_t token[] = {argmax(logits)};
        generator.step(token, logits);
    }
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    return elapsed.count() / double(steps);
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    int rounds = 7;
    int64_t steps = 32;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--rounds") == 0)
            rounds = std::atoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--steps") == 0)
            steps = std::atoll(argv[i + 1]);
    }
    const auto path = std::filesystem::temp_directory_path() / "inferlens-bench-probes.gguf";
    SyntheticModelOptions options;
    options.architecture = "chatglm";
    options.layers = 8;
    options.hidden = 512;
    options.heads = 8;
    options.kvHeads = 2;
    options.ffn = 1376;
    options.vocab = 4096;
    options.context = 1024;
    options.dtype = DType::F16;
    writeSyntheticModel(options, path.string());
    const Model model = Model::open(path.string());

    ProbeInterest everythingButAttention;
    everythingButAttention.steps = everythingButAttention.layers = everythingButAttention.kvCache =
        everythingButAttention.finished = true;
    ProbeInterest everything = everythingButAttention;
    everything.attention = [](int64_t, int64_t) { return true; };
    Subscriber idle({}), busy(everythingButAttention), attention(everything);
    ProbeSet idleSet, busySet, attentionSet;
    idleSet.add(&idle);
    busySet.add(&busy);
    attentionSet.add(&attention);

    struct Variant {
        const char* name;
        ProbeSet* probes;
        std::vector<double> samples;
    };
    std::vector<Variant> variants{{"no ProbeSet", nullptr, {}},
                                  {"probe wanting nothing", &idleSet, {}},
                                  {"all events but attention", &busySet, {}},
                                  {"all events + attention of every head", &attentionSet, {}}};
    for (int round = 0; round < rounds; ++round)
        for (auto& variant : variants)
            variant.samples.push_back(millisecondsPerStep(model, variant.probes, steps));
    std::printf("model: chatglm, 8 layers, hidden 512, f16; %lld decode steps, %d rounds\n",
                static_cast<long long>(steps), rounds);
    const double baseline = median(variants[0].samples);
    for (const auto& variant : variants)
        std::printf("%-40s %8.3f ms/step  (%+.1f%%)\n", variant.name, median(variant.samples),
                    100.0 * (median(variant.samples) / baseline - 1.0));
    std::filesystem::remove(path);
    return 0;
}
