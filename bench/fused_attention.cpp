// One core's speed of the CPU's fused attention (backend/cpu/fused_attention) alone, in
// TinyLlama-1.1B's shape (32 query heads of 64, 4 KV heads): a causal prefill of PROMPT tokens
// from position 0 as Gflop/s (4 · head_dim flops per query head and visible key: the scores and
// the weighted sum of the values), and one decode row after it, as microseconds per layer. What to
// look at when a long prompt's tokens/s falls faster than the peer's (bench/RESULTS.md), without
// the weights' products around it.
//
// Usage: bench_fused_attention [PROMPT] [REPEATS] [KV_TYPE]   (defaults: 512 7 f32; the fastest
// of REPEATS timings is printed). INFERLENS_CPU_KERNELS picks a lower kernel set.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/fused_attention.h"
#include "backend/cpu/kv_rows.h"
#include "fastest_seconds.h"

using namespace inferlens;

using inferlens::bench::fastestSeconds;

int main(int argc, char** argv) try {
    const int64_t prompt = argc > 1 ? std::atoll(argv[1]) : 512;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
    const KvType kvType = parseKvType(argc > 3 ? argv[3] : "f32");
    if (prompt < 1 || repeats < 1) {
        std::fprintf(stderr, "usage: %s [PROMPT] [REPEATS] [KV_TYPE]\n", argv[0]);
        return 2;
    }
    AttentionLayout layout;
    layout.headDim = 64;
    layout.headCount = 32;
    layout.kvHeadCount = 4;
    layout.kvRowWidth = layout.kvHeadCount * layout.headDim;
    layout.scale = 0.125f;
    const int64_t queryWidth = layout.headCount * layout.headDim;
    const int64_t positions = prompt + 1;

    std::mt19937 generator(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const auto randomFloats = [&](int64_t count) {
        std::vector<float> values(static_cast<size_t>(count));
        for (float& v : values)
            v = normal(generator);
        return values;
    };
    const std::vector<float> queries = randomFloats(positions * queryWidth);
    const std::vector<float> keyFloats = randomFloats(positions * layout.kvRowWidth);
    const std::vector<float> valueFloats = randomFloats(positions * layout.kvRowWidth);
    const int64_t rowBytes = kvRowBytes(kvType, layout.kvHeadCount, layout.headDim);
    const auto encoded = [&](const std::vector<float>& floats) {
        std::vector<std::byte> bytes(size_t(positions * rowBytes));
        for (int64_t p = 0; p < positions; ++p)
            encodeKvRow(kvType,
                        std::span(floats.data() + p * layout.kvRowWidth, size_t(layout.kvRowWidth)),
                        layout.headDim, bytes.data() + p * rowBytes);
        return bytes;
    };
    const std::vector<std::byte> keyBytes = encoded(keyFloats), valueBytes = encoded(valueFloats);
    const KvRows keys{kvType, keyBytes.data(), layout.kvHeadCount, layout.headDim, rowBytes};
    const KvRows values{kvType, valueBytes.data(), layout.kvHeadCount, layout.headDim, rowBytes};
    std::vector<float> out(size_t(positions * queryWidth));

    const double prefill = fastestSeconds(
        repeats, [&] { fusedAttention(layout, queries, 0, prompt, keys, values, out, nullptr); });
    const double decode = fastestSeconds(repeats * 16, [&] {
        fusedAttention(layout, std::span(queries).subspan(size_t(prompt * queryWidth)), prompt, 1,
                       keys, values, std::span(out).subspan(size_t(prompt * queryWidth)), nullptr);
    });
    const double pairs = double(prompt) * double(prompt + 1) / 2 * double(layout.headCount);
    std::printf("kernel set: %s; KV %s; %lld-token prefill; fastest of %d\n",
                cpuKernelsName(cpuKernels()), kvTypeName(kvType), static_cast<long long>(prompt),
                repeats);
    std::printf("prefill %6.1f Gflop/s (%.2f ms)   decode at %lld: %6.1f us, %5.1f Gflop/s\n",
                pairs * 4.0 * double(layout.headDim) / prefill / 1e9, prefill * 1e3,
                static_cast<long long>(prompt), decode * 1e6,
                double(positions * layout.headCount) * 4.0 * double(layout.headDim) / decode / 1e9);
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
}
