#pragma once
// Device-side reading of the weight layouts of device_matrix.h: one value at a time (any layout),
// and a chunk of consecutive values dotted with f32 activations using 16-byte loads (the GEMV's
// inner loop). Shared by the kernel files that read weights.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "backend/cuda/device_matrix.h"

namespace inferlens::cuda {

__device__ __forceinline__ float halfBits(uint16_t bits) {
    return __half2float(__ushort_as_half(bits));
}

__device__ __forceinline__ float bf16Bits(uint16_t bits) {
    return __uint_as_float(uint32_t(bits) << 16);
}

// Value (row, column) of `w`, whatever its layout.
__device__ __forceinline__ float decodeValue(const DeviceMatrix& w, int64_t row, int64_t column) {
    const int64_t index = row * w.columns + column;
    switch (w.dtype) {
        case DType::F32:
            return static_cast<const float*>(w.values)[index];
        case DType::F16:
            return halfBits(static_cast<const uint16_t*>(w.values)[index]);
        case DType::BF16:
            return bf16Bits(static_cast<const uint16_t*>(w.values)[index]);
        case DType::Q8_0:
            return halfBits(w.scales[index / kQuantBlock]) *
                   float(static_cast<const int8_t*>(w.values)[index]);
        default: {  // Q4_0: byte j of a block holds value j (low nibble) and j + 16 (high nibble)
            const int64_t block = index / kQuantBlock, inBlock = index % kQuantBlock;
            const uint8_t byte = static_cast<const uint8_t*>(w.values)[block * 16 + (inBlock & 15)];
            const int nibble = inBlock < 16 ? (byte & 15) : (byte >> 4);
            return halfBits(w.scales[block]) * float(nibble - 8);
        }
    }
}

__device__ __forceinline__ float dot4(float4 a, const float* x) {
    const float4 b = *reinterpret_cast<const float4*>(x);
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

// Eight halves (one 16-byte load) dotted with x[0..8).
__device__ __forceinline__ float dotHalf8(uint4 raw, const float* x) {
    const __half2* h = reinterpret_cast<const __half2*>(&raw);
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 f = __half22float2(h[i]);
        sum += f.x * x[2 * i] + f.y * x[2 * i + 1];
    }
    return sum;
}

__device__ __forceinline__ float dotBf16x8(uint4 raw, const float* x) {
    const uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        sum += __uint_as_float(words[i] << 16) * x[2 * i];
        sum += __uint_as_float(words[i] & 0xffff0000u) * x[2 * i + 1];
    }
    return sum;
}

// Sixteen int8 quants (one load) dotted with x[0..16).
__device__ __forceinline__ float dotInt8x16(uint4 raw, const float* x) {
    const int8_t* q = reinterpret_cast<const int8_t*>(&raw);
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < 16; ++i)
        sum += float(q[i]) * x[i];
    return sum;
}

// The dot product of chunk `chunk` of a row with x (x already offset to the chunk's first
// column). Chunks are 8 values for the float layouts and one 32-value block for Q8_0/Q4_0; a
// float row whose width is not a multiple of 8 is read one value at a time instead (gemv).
template <DType kDType>
struct Chunk;

template <>
struct Chunk<DType::F32> {
    static constexpr int kValues = 8;
    __device__ static float dot(const DeviceMatrix& w, int64_t row, int64_t chunk, const float* x) {
        const float4* p =
            reinterpret_cast<const float4*>(static_cast<const float*>(w.values) + row * w.columns) +
            chunk * 2;
        return dot4(p[0], x) + dot4(p[1], x + 4);
    }
};

// F16 and BF16: eight 16-bit values per load, dotted by Lanes::dot8.
template <class Lanes>
struct SixteenBitChunk {
    static constexpr int kValues = 8;
    __device__ static float dot(const DeviceMatrix& w, int64_t row, int64_t chunk, const float* x) {
        const uint4* p = reinterpret_cast<const uint4*>(static_cast<const uint16_t*>(w.values) +
                                                        row * w.columns) +
                         chunk;
        return Lanes::dot8(*p, x);
    }
};

struct HalfLanes {
    __device__ static float dot8(uint4 raw, const float* x) { return dotHalf8(raw, x); }
};
struct Bf16Lanes {
    __device__ static float dot8(uint4 raw, const float* x) { return dotBf16x8(raw, x); }
};

template <>
struct Chunk<DType::F16> : SixteenBitChunk<HalfLanes> {};
template <>
struct Chunk<DType::BF16> : SixteenBitChunk<Bf16Lanes> {};

template <>
struct Chunk<DType::Q8_0> {
    static constexpr int kValues = kQuantBlock;
    __device__ static float dot(const DeviceMatrix& w, int64_t row, int64_t chunk, const float* x) {
        const int64_t block = row * (w.columns / kQuantBlock) + chunk;
        const uint4* q = reinterpret_cast<const uint4*>(static_cast<const int8_t*>(w.values) +
                                                        block * kQuantBlock);
        return halfBits(w.scales[block]) * (dotInt8x16(q[0], x) + dotInt8x16(q[1], x + 16));
    }
};

template <>
struct Chunk<DType::Q4_0> {
    static constexpr int kValues = kQuantBlock;
    __device__ static float dot(const DeviceMatrix& w, int64_t row, int64_t chunk, const float* x) {
        const int64_t block = row * (w.columns / kQuantBlock) + chunk;
        const uint4 raw =
            *reinterpret_cast<const uint4*>(static_cast<const uint8_t*>(w.values) + block * 16);
        const uint8_t* bytes = reinterpret_cast<const uint8_t*>(&raw);
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            sum += float((bytes[j] & 15) - 8) * x[j];
            sum += float((bytes[j] >> 4) - 8) * x[j + 16];
        }
        return halfBits(w.scales[block]) * sum;
    }
};

__device__ __forceinline__ float warpSum(float value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_xor_sync(0xffffffffu, value, offset);
    return value;
}

__device__ __forceinline__ float warpMax(float value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
    return value;
}

}  // namespace inferlens::cuda
