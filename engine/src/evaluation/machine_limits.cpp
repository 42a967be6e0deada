#include "evaluation/machine_limits.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "backend/cpu/amx_tiles.h"
#include "backend/cpu/simd_x86.h"

// GCC 12 warns inside its own AVX-512 headers (their placeholder "undefined" vectors).
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace inferlens {
namespace {

using Clock = std::chrono::steady_clock;

// Runs `work(thread)` on `threads` threads released together, so that thread start-up is not
// timed; returns the seconds from the release to the last one's end.
double timeTogether(int threads, const std::function<void(int)>& work) {
    std::atomic<bool> go{false};
    std::atomic<int> ready{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            ready.fetch_add(1);
            while (!go.load(std::memory_order_acquire))
                std::this_thread::yield();
            work(t);
        });
    while (ready.load() < threads)
        std::this_thread::yield();
    const auto start = Clock::now();
    go.store(true, std::memory_order_release);
    for (std::thread& thread : pool)
        thread.join();
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// --- read bandwidth ---

uint64_t readPortable(const std::byte* data, size_t bytes) {
    const auto* words = reinterpret_cast<const uint64_t*>(data);
    uint64_t a = 0, b = 0, c = 0, d = 0;
    for (size_t i = 0; i + 4 <= bytes / 8; i += 4) {
        a += words[i];
        b ^= words[i + 1];
        c += words[i + 2];
        d ^= words[i + 3];
    }
    return a + b + c + d;
}

#if defined(__x86_64__)
// Four independent 32-byte streams per iteration: enough loads in flight to saturate memory, and
// no arithmetic that could be the bottleneck instead.
INFERLENS_AVX2 uint64_t readAvx2(const std::byte* data, size_t bytes) {
    __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
    for (size_t i = 0; i + 128 <= bytes; i += 128) {
        a = _mm256_xor_si256(a, _mm256_load_si256(reinterpret_cast<const __m256i*>(data + i)));
        b = _mm256_xor_si256(b, _mm256_load_si256(reinterpret_cast<const __m256i*>(data + i + 32)));
        c = _mm256_xor_si256(c, _mm256_load_si256(reinterpret_cast<const __m256i*>(data + i + 64)));
        d = _mm256_xor_si256(d, _mm256_load_si256(reinterpret_cast<const __m256i*>(data + i + 96)));
    }
    const __m256i all = _mm256_xor_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(c, d));
    return uint64_t(_mm256_extract_epi64(all, 0) ^ _mm256_extract_epi64(all, 3));
}

// Eight 64-byte streams: on the Xeon we measured, full-width loads read about a tenth faster than
// AVX2 ones (as fast as ../shared/tools/membw.c).
INFERLENS_AVX512 uint64_t readAvx512(const std::byte* data, size_t bytes) {
    __m512i acc[8];
    for (__m512i& v : acc)
        v = _mm512_setzero_si512();
    for (size_t i = 0; i + 512 <= bytes; i += 512)
        for (int k = 0; k < 8; ++k)
            acc[k] = _mm512_xor_si512(acc[k], _mm512_load_si512(data + i + 64 * size_t(k)));
    for (int k = 1; k < 8; ++k)
        acc[0] = _mm512_xor_si512(acc[0], acc[k]);
    return uint64_t(_mm512_reduce_add_epi64(acc[0]));
}
#endif

uint64_t readBuffer(const std::byte* data, size_t bytes) {
#if defined(__x86_64__)
    if (cpuSupports(CpuKernels::Avx512))
        return readAvx512(data, bytes);
    if (cpuSupports(CpuKernels::Avx2))
        return readAvx2(data, bytes);
#endif
    return readPortable(data, bytes);
}

struct FreeDeleter {
    void operator()(std::byte* p) const { std::free(p); }
};

double readBandwidthOf(const std::byte* buffer, size_t bytes, int threads, int passes) {
    // Chunks of whole loop iterations (512 bytes), one per thread.
    const size_t chunk = bytes / size_t(threads) / 512 * 512;
    std::vector<uint64_t> sinks(size_t(threads) * 8);  // 64 bytes apart: no false sharing
    double best = 0;
    for (int pass = 0; pass < passes; ++pass) {
        const double seconds = timeTogether(threads, [&](int t) {
            sinks[size_t(t) * 8] += readBuffer(buffer + size_t(t) * chunk, chunk);
        });
        best = std::max(best, double(chunk) * threads / seconds);
    }
    // The sums feed nothing, but a compiler cannot know that the loads had no effect.
    if (std::find(sinks.begin(), sinks.end(), uint64_t(0x5eed)) != sinks.end())
        best += 1e-9;
    return best;
}

std::unique_ptr<std::byte, FreeDeleter> touchedBuffer(size_t bytes) {
    std::unique_ptr<std::byte, FreeDeleter> buffer(
        static_cast<std::byte*>(std::aligned_alloc(64, bytes)));
    if (!buffer)
        return buffer;
    // Non-zero, so that every page is a real one (a zero page shared by all would sit in cache).
    std::memset(buffer.get(), 0x5a, bytes);
    return buffer;
}

// --- int8 peak ---

// Each thread warms its unit up (AVX-512 and AMX units run slower for their first microseconds),
// then counts how many calls of `loop` fit in the measuring window.
constexpr auto kWarmUp = std::chrono::milliseconds(4);
constexpr auto kWindow = std::chrono::milliseconds(20);

double peakOf(int threads, double opsPerCall, const std::function<void()>& loop) {
    std::vector<double> rates(static_cast<size_t>(threads));
    timeTogether(threads, [&](int t) {
        const auto warm = Clock::now() + kWarmUp;
        while (Clock::now() < warm)
            loop();
        const auto start = Clock::now();
        int64_t calls = 0;
        auto now = start;
        while (now < start + kWindow) {
            loop();
            ++calls;
            now = Clock::now();
        }
        rates[size_t(t)] =
            opsPerCall * double(calls) / std::chrono::duration<double>(now - start).count();
    });
    double total = 0;
    for (const double rate : rates)
        total += rate;
    return total;
}

constexpr int kLoopIterations = 256;  // per call: ~10 µs, so the clock is read rarely
// Latency 4–5 cycles × 2–3 per cycle issued. The loops over them are unrolled by pragma: GCC at
// -O2 kept a plain loop's accumulators in memory, one load and one store around every
// multiply-add, and the probe measured stores: 348 Gop/s for vpdpbusd on an AMD Zen 5 core whose
// Q8_0 pair tile ran at 524 (test_machine_limits); unrolled, 960.
constexpr int kAccumulators = 12;

int32_t portableLoop(const int8_t* signedBytes, const uint8_t* unsignedBytes) {
    int32_t sums[16] = {};
    for (int i = 0; i < kLoopIterations; ++i)
        for (int j = 0; j < 64; ++j)
            sums[j % 16] += int32_t(signedBytes[j]) * int32_t(unsignedBytes[j] ^ uint8_t(i));
    int32_t total = 0;
    for (const int32_t sum : sums)
        total += sum;
    return total;
}

#if defined(__x86_64__)
template <typename Vector>
INFERLENS_AVX512 int32_t reduceAccumulators(Vector (&acc)[kAccumulators]) {
    Vector all = acc[0];
    for (int k = 1; k < kAccumulators; ++k)
        all ^= acc[k];
    int32_t lanes[sizeof(Vector) / 4];
    std::memcpy(lanes, &all, sizeof(Vector));
    return lanes[0] ^ lanes[sizeof(Vector) / 4 - 1];
}

// AVX2 has no one-instruction int8 dot product: unsigned × signed bytes to int16 pair sums
// (vpmaddubsw), then int16 pairs to int32 (vpmaddwd with ones), as the AVX2 kernels do.
INFERLENS_AVX2 int32_t avx2Loop(const int8_t* signedBytes, const uint8_t* unsignedBytes) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(unsignedBytes));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(signedBytes));
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc[kAccumulators];
    for (__m256i& v : acc)
        v = _mm256_setzero_si256();
    for (int i = 0; i < kLoopIterations; ++i)
#pragma GCC unroll 16
        for (__m256i& v : acc)
            v = _mm256_add_epi32(v, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), ones));
    __m256i all = acc[0];
    for (int k = 1; k < kAccumulators; ++k)
        all = _mm256_xor_si256(all, acc[k]);
    return _mm256_extract_epi32(all, 0) ^ _mm256_extract_epi32(all, 7);
}

// vpdpbusd at both widths: the kernels use 256-bit registers, and on some CPUs the 512-bit form
// issues at half the rate, so the set's peak is the faster of the two.
INFERLENS_AVX512 int32_t vnni256Loop(const int8_t* signedBytes, const uint8_t* unsignedBytes) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(unsignedBytes));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(signedBytes));
    __m256i acc[kAccumulators];
    for (__m256i& v : acc)
        v = _mm256_setzero_si256();
    for (int i = 0; i < kLoopIterations; ++i)
#pragma GCC unroll 16
        for (__m256i& v : acc)
            v = _mm256_dpbusd_epi32(v, a, b);
    return reduceAccumulators(acc);
}

INFERLENS_AVX512 int32_t vnni512Loop(const int8_t* signedBytes, const uint8_t* unsignedBytes) {
    const __m512i a = _mm512_loadu_si512(unsignedBytes);
    const __m512i b = _mm512_loadu_si512(signedBytes);
    __m512i acc[kAccumulators];
    for (__m512i& v : acc)
        v = _mm512_setzero_si512();
    for (int i = 0; i < kLoopIterations; ++i)
#pragma GCC unroll 16
        for (__m512i& v : acc)
            v = _mm512_dpbusd_epi32(v, a, b);
    return reduceAccumulators(acc);
}

// AMX: eight tiles of 16 rows × 64 bytes; four int32 accumulators C0..C3 take the products of two
// A tiles (4, 5) and two B tiles (6, 7), so that each tile load feeds two products.

__attribute__((target("amx-tile,amx-int8"))) int32_t amxLoop(const int8_t* tileBytes) {
    TileConfig config;
    for (int t = 0; t < 8; ++t) {
        config.bytesPerRow[t] = 64;
        config.rows[t] = 16;
    }
    _tile_loadconfig(&config);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_loadd(4, tileBytes, 64);
    _tile_loadd(5, tileBytes, 64);
    _tile_loadd(6, tileBytes, 64);
    _tile_loadd(7, tileBytes, 64);
    for (int i = 0; i < kLoopIterations; ++i) {
        _tile_dpbusd(0, 4, 6);
        _tile_dpbusd(1, 4, 7);
        _tile_dpbusd(2, 5, 6);
        _tile_dpbusd(3, 5, 7);
    }
    alignas(64) int32_t result[16 * 16];
    _tile_stored(0, result, 64);
    _tile_release();
    return result[0] ^ result[255];
}
constexpr double kAmxMacsPerInstruction = 16 * 16 * 64;

#endif

// Operands that the compiler cannot see through; values small enough that no sum overflows in a
// way that matters (overflow of int32 lanes wraps, and the results are discarded anyway).
struct Operands {
    alignas(64) int8_t signedBytes[16 * 64];
    alignas(64) uint8_t unsignedBytes[64];
    Operands() {
        for (int i = 0; i < 16 * 64; ++i)
            signedBytes[i] = int8_t(i % 7 - 3);
        for (int i = 0; i < 64; ++i)
            unsignedBytes[i] = uint8_t(i % 5);
    }
};

std::atomic<int32_t> g_sink{0};  // results of the loops go here, so that none is optimised away

}  // namespace

double measureReadBandwidth(int threads, size_t bytes, int passes) {
    threads = std::max(1, threads);
    const auto buffer = touchedBuffer(bytes);
    return buffer ? readBandwidthOf(buffer.get(), bytes, threads, std::max(1, passes)) : 0;
}

const char* int8InstructionName(CpuKernels kernels) {
    if (kernels == CpuKernels::Amx)
        return "tdpbusd (AMX)";
    switch (kernels) {
        case CpuKernels::Portable:
            return "C++ int8 multiply-add loop";
        case CpuKernels::Avx2:
            return "vpmaddubsw + vpmaddwd";
        case CpuKernels::Avx512:
            return "vpdpbusd";
        default:
            return "?";
    }
}

double measureInt8Peak(CpuKernels kernels, int threads) {
    threads = std::max(1, threads);
    if (kernels == CpuKernels::Amx)
        return measureAmxInt8Peak(threads);
    if (!cpuSupports(kernels))
        return 0;
    static const Operands operands;
    const int8_t* s = operands.signedBytes;
    const uint8_t* u = operands.unsignedBytes;
    const auto sink = [](int32_t value) { g_sink.fetch_xor(value, std::memory_order_relaxed); };
    switch (kernels) {
        case CpuKernels::Portable:
            return peakOf(threads, 2.0 * 64 * kLoopIterations, [&] { sink(portableLoop(s, u)); });
#if defined(__x86_64__)
        case CpuKernels::Avx2:
            return peakOf(threads, 2.0 * 32 * kAccumulators * kLoopIterations,
                          [&] { sink(avx2Loop(s, u)); });
        case CpuKernels::Avx512:
            return std::max(peakOf(threads, 2.0 * 32 * kAccumulators * kLoopIterations,
                                   [&] { sink(vnni256Loop(s, u)); }),
                            peakOf(threads, 2.0 * 64 * kAccumulators * kLoopIterations,
                                   [&] { sink(vnni512Loop(s, u)); }));
#endif
        default:
            return 0;
    }
}

bool amxInt8Usable() {
    return cpuSupports(CpuKernels::Amx);  // asks the kernel for the tiles, once per process
}

double measureAmxInt8Peak(int threads) {
#if defined(__x86_64__)
    if (!amxInt8Usable())
        return 0;
    static const Operands operands;
    return peakOf(std::max(1, threads), 2.0 * 4 * kAmxMacsPerInstruction * kLoopIterations, [] {
        g_sink.fetch_xor(amxLoop(operands.signedBytes), std::memory_order_relaxed);
    });
#else
    (void)threads;
    return 0;
#endif
}

double fractionOfLimit(double amount, double seconds, double limitPerSecond) {
    return seconds > 0 && limitPerSecond > 0 ? amount / seconds / limitPerSecond : 0;
}

MachineLimits measureMachineLimits(int threads) {
    MachineLimits limits;
    limits.threads = std::max(1, threads);
    // 256 MiB: larger than the last-level caches of the CPUs we meet (up to ~100 MiB on a socket),
    // and a pass takes a few tens of milliseconds.
    constexpr size_t kBufferBytes = size_t(256) << 20;
    constexpr int kPasses = 4;
    if (const auto buffer = touchedBuffer(kBufferBytes)) {
        limits.readBytesPerSecondOneThread =
            readBandwidthOf(buffer.get(), kBufferBytes, 1, kPasses);
        limits.readBytesPerSecond =
            limits.threads == 1
                ? limits.readBytesPerSecondOneThread
                : readBandwidthOf(buffer.get(), kBufferBytes, limits.threads, kPasses);
    }
    const CpuKernels kernels = cpuKernels();
    limits.kernels = cpuKernelsName(kernels);
    limits.instruction = int8InstructionName(kernels);
    limits.int8OpsPerSecondOneThread = measureInt8Peak(kernels, 1);
    limits.int8OpsPerSecond = limits.threads == 1 ? limits.int8OpsPerSecondOneThread
                                                  : measureInt8Peak(kernels, limits.threads);
    return limits;
}

}  // namespace inferlens
