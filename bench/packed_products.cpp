// One core's speed of each packed block type's tile (packed_rows.h) in the kernel set in use, on
// one weight matrix of random blocks: a prefill's token block (128 tokens, as the products run it)
// as int8 operations per second (2 per multiply-add), and one token (decode) as GB/s of weights
// read; with the amx set, also the AMX rows product's prefill. What to look at when a type's prompt
// or decode speed trails another's: the whole-model figures of `inferlens-cli bench` mix every
// matrix, the attention and the rest.
//
// Usage: bench_packed_products [ROWS] [COLUMNS] [REPEATS]   (defaults: 2048 2048 15; the fastest
// of REPEATS timings is printed: on a shared machine the others measure the neighbours too).
// INFERLENS_CPU_KERNELS picks a lower kernel set.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/packed_rows.h"
#include "fastest_seconds.h"
#include "random_blocks.h"

using namespace inferlens;

using inferlens::bench::fastestSeconds;

int main(int argc, char** argv) {
    const int64_t rows = argc > 1 ? std::atoll(argv[1]) : 2048;
    const int64_t columns = argc > 2 ? std::atoll(argv[2]) : 2048;
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 15;
    if (rows < kPackedRows || rows % kPackedRows != 0 || columns % 256 != 0 || repeats < 1) {
        std::fprintf(stderr, "usage: %s [ROWS (a multiple of 8)] [COLUMNS (of 256)] [REPEATS]\n",
                     argv[0]);
        return 2;
    }
    constexpr int kTokens = 128;
    const CpuKernels kernels = cpuKernels();
    std::printf("kernel set: %s; %lld x %lld weights, %d tokens a prefill block; fastest of %d\n",
                cpuKernelsName(kernels), static_cast<long long>(rows),
                static_cast<long long>(columns), kTokens, repeats);
    std::mt19937 generator(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(size_t(kTokens * columns));
    for (float& v : x)
        v = normal(generator);
    std::vector<QuantizedActivations> quantized(kTokens);
    std::vector<const QuantizedActivations*> xs;
    for (int t = 0; t < kTokens; ++t) {
        quantized[size_t(t)].quantize(x.data() + t * columns, columns);
        xs.push_back(&quantized[size_t(t)]);
    }
    std::vector<float> out(size_t(2 * kPackedRows * kTokens));
    for (const DType dtype : {DType::Q8_0, DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1,
                              DType::Q4_K, DType::Q5_K, DType::Q6_K}) {
        const PackedTile tile = packedTile(dtype, kernels);
        if (tile == nullptr) {
            std::printf("%-5s not packed by this kernel set\n", dtypeName(dtype).data());
            continue;
        }
        const int64_t blockElements = dtypeInfo(dtype).blockElements;
        const int64_t blocks = columns / blockElements;
        const auto bytes = test::randomBlocks(dtype, rows * blocks, 5);
        const TensorView weight{"w", dtype, {rows, columns}, bytes.data(), int64_t(bytes.size())};
        const PackedBuffer packed = packRows(weight);
        const int64_t groupBytes = packedGroupBytes(weight);
        const PackedPairTile pairTile = packedPairTile(dtype, kernels);
        const auto run = [&](int tokens, bool pairs) {
            for (int64_t g = 0; g < rows / kPackedRows; g += pairs ? 2 : 1)
                if (pairs)
                    pairTile(packed.bytes.get() + g * groupBytes, groupBytes, xs.data(), tokens,
                             blocks, out.data());
                else
                    tile(packed.bytes.get() + g * groupBytes, xs.data(), tokens, blocks,
                         out.data());
        };
        run(kTokens, false);  // warm up: page the packed copy in
        const auto operations = [&](double seconds) {
            return 2.0 * double(rows * columns) * kTokens / seconds / 1e9;
        };
        for (const bool pairs : {false, true}) {
            if (pairs && (pairTile == nullptr || rows % (2 * kPackedRows) != 0))
                continue;
            const double prefill = fastestSeconds(repeats, [&] { run(kTokens, pairs); });
            const double decode = fastestSeconds(repeats, [&] { run(1, pairs); });
            std::printf("%-5s %-10s prefill %6.1f Gop/s   decode %5.1f GB/s\n",
                        dtypeName(dtype).data(), pairs ? "two groups" : "one group",
                        operations(prefill), double(packed.size) / decode / 1e9);
        }
        // The AMX rows product runs a prefill's whole row range at once.
        if (const PackedRowsTile rowsTile = packedRowsTile(dtype, kernels)) {
            std::vector<float> y(size_t(rows * kTokens));
            const double prefill = fastestSeconds(repeats, [&] {
                rowsTile(packed.bytes.get(), groupBytes, rows, xs.data(), kTokens, blocks, y.data(),
                         rows);
            });
            std::printf("%-5s %-10s prefill %6.1f Gop/s\n", dtypeName(dtype).data(), "AMX rows",
                        operations(prefill));
        }
    }
    return 0;
}
