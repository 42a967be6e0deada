// One core's speed of the float-type products (F32, F16, BF16 weights) in the kernel set in use, on
// one weight matrix of random values: a prefill (by default 128 tokens, one of the products'
// 128-token blocks) as Gflop/s (2 per multiply-add), and one token (decode) as GB/s of weights
// read. The float counterpart of bench_packed_products: what to look at when the F16 or BF16
// prompt trails, without the rest of a model's step around it. A few tokens (4) show the tiles'
// speed with the activations in the core's caches; 64 and more, as a prompt runs them.
//
// Where the kernel set has tiles for F16 and BF16 rows in row groups (packed_rows.h,
// groupsFloatRows), the grouped copy is timed against the file's layout in alternating pairs, both
// in the engine's huge-page buffers: whether grouping pays on this machine, measured closely
// enough to decide it (the ratios' median and quartiles, above 1 where groups are faster).
//
// Usage: bench_float_products [ROWS] [COLUMNS] [TOKENS] [REPEATS]   (defaults: 2048 5632 128 9;
// the fastest of REPEATS timings is printed, and 4 · REPEATS pairs compared).
// INFERLENS_CPU_KERNELS picks a lower kernel set.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/packed_rows.h"
#include "backend/cpu/reference_ops.h"
#include "core/dtype_codec.h"
#include "fastest_seconds.h"

using namespace inferlens;

using inferlens::bench::fastestSeconds;
using inferlens::bench::pairedRatios;

namespace {

// Row groups against the file's layout for `weight`, both copied as the engine places them: a
// prefill of the tokens of `x` and one token, in `pairs` alternating pairs each.
void compareRowGroups(const TensorView& weight, const std::vector<float>& x, int tokens,
                      int pairs) {
    PackedStore store;
    std::byte* copy = store.take(weight.byteCount, "the file's layout");
    std::copy_n(weight.data, weight.byteCount, copy);
    TensorView file = weight;
    file.data = copy;
    std::byte* groups = store.take(groupedFloatBytes(weight), "row groups");
    groupFloatRowsInto(weight, groups);
    TensorView grouped = weight;
    grouped.packed = groups;
    std::vector<float> y(size_t(weight.rows() * tokens));
    const std::span<const float> token(x.data(), size_t(weight.columns()));
    const auto prefill = pairedRatios(
        pairs, [&] { matMat(file, x, tokens, y, nullptr); },
        [&] { matMat(grouped, x, tokens, y, nullptr); });
    const auto decode = pairedRatios(
        pairs, [&] { matVec(file, token, y, nullptr); },
        [&] { matVec(grouped, token, y, nullptr); });
    const auto quartiles = [](const std::vector<double>& r) {
        char text[64];
        std::snprintf(text, sizeof text, "%.3f (quartiles %.3f-%.3f)", r[r.size() / 2],
                      r[r.size() / 4], r[3 * r.size() / 4]);
        return std::string(text);
    };
    std::printf("     row groups' speed / the file layout's, %d pairs: prefill %s, decode %s\n",
                pairs, quartiles(prefill).c_str(), quartiles(decode).c_str());
}

}  // namespace

int main(int argc, char** argv) {
    const int64_t rows = argc > 1 ? std::atoll(argv[1]) : 2048;
    const int64_t columns = argc > 2 ? std::atoll(argv[2]) : 5632;
    const int tokens = argc > 3 ? std::atoi(argv[3]) : 128;
    const int repeats = argc > 4 ? std::atoi(argv[4]) : 9;
    if (rows < 1 || columns < 1 || tokens < 1 || repeats < 1) {
        std::fprintf(stderr, "usage: %s [ROWS] [COLUMNS] [TOKENS] [REPEATS]\n", argv[0]);
        return 2;
    }
    std::printf("kernel set: %s; %lld x %lld weights, %d-token prefill; fastest of %d\n",
                cpuKernelsName(cpuKernels()), static_cast<long long>(rows),
                static_cast<long long>(columns), tokens, repeats);
    std::mt19937 generator(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(size_t(tokens * columns));
    for (float& v : x)
        v = normal(generator);
    std::vector<float> values(size_t(rows * columns));
    for (float& v : values)
        v = 0.05f * normal(generator);
    std::vector<float> y(size_t(rows * tokens));
    for (const DType dtype : {DType::F32, DType::F16, DType::BF16}) {
        const int64_t rowBytes = columns * dtypeInfo(dtype).blockBytes;
        std::vector<std::byte> bytes(size_t(rows * rowBytes));
        for (int64_t r = 0; r < rows; ++r)
            encodeRow(dtype, std::span<const float>(values.data() + r * columns, size_t(columns)),
                      bytes.data() + r * rowBytes);
        const TensorView weight{"w", dtype, {rows, columns}, bytes.data(), int64_t(bytes.size())};
        const double prefill =
            fastestSeconds(repeats, [&] { matMat(weight, x, tokens, y, nullptr); });
        const double decode = fastestSeconds(repeats, [&] {
            matVec(weight, std::span<const float>(x.data(), size_t(columns)), y, nullptr);
        });
        std::printf("%-4s prefill %6.1f Gflop/s   decode %5.1f GB/s\n", dtypeName(dtype).data(),
                    2.0 * double(rows * columns) * tokens / prefill / 1e9,
                    double(bytes.size()) / decode / 1e9);
        // Not groupsFloatRows: the amx set has the tiles but keeps the file's layout until this
        // measures grouping there.
        if (groupedFloatTile(dtype, cpuKernels()) != nullptr && columns % kGroupedChunk == 0)
            compareRowGroups(weight, x, tokens, 4 * repeats);
    }
    return 0;
}
