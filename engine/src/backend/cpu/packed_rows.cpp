#include "backend/cpu/packed_rows.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "backend/cpu/amx_tiles.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/packed_formats.h"
#include "core/error.h"
#include "io/mapped_file.h"

namespace inferlens {
namespace {

const PackedFormat* packedFormat(DType dtype) {
    const PackedFormat* legacy = packedLegacyFormat(dtype);
    return legacy != nullptr ? legacy : packedKFormat(dtype);
}

}  // namespace

// Amx is Avx512 plus, for a prefill of some types, the AMX rows product: the one-group and pair
// tiles are the AVX-512 ones.
PackedTile packedTile(DType dtype, CpuKernels kernels) {
    const PackedFormat* format = packedFormat(dtype);
    if (format == nullptr)
        return nullptr;
    return format->tile(kernels == CpuKernels::Amx ? CpuKernels::Avx512 : kernels);
}

PackedPairTile packedPairTile(DType dtype, CpuKernels kernels) {
    const PackedFormat* format = packedFormat(dtype);
    if (format == nullptr || format->pairTile == nullptr)
        return nullptr;
    return format->pairTile(kernels == CpuKernels::Amx ? CpuKernels::Avx512 : kernels);
}

// Only when the process has the tiles' permission, which cpuSupports asks for.
PackedRowsTile packedRowsTile(DType dtype, CpuKernels kernels) {
    if (kernels != CpuKernels::Amx || !cpuSupports(CpuKernels::Amx))
        return nullptr;
    const PackedRowsTile legacy = amxLegacyRows(dtype);
    return legacy != nullptr ? legacy : amxKRows(dtype);
}

bool packs(DType dtype, CpuKernels kernels) {
    return packedTile(dtype, kernels) != nullptr;
}

bool groupsFloatRows(const TensorView& view, CpuKernels kernels) {
    if (kernels != CpuKernels::Avx512 || view.shape.size() != 2 ||
        view.columns() % kGroupedChunk != 0)
        return false;
    // BF16 too, whichever tile runs it (bf16PairTile): on vdpbf16ps pairs, TinyLlama BF16 on one
    // AMD Zen 4 core, alternating, decoded at 9.1–9.3 tokens/s from the file's four streams and at
    // 13.0–14.0 grouped (two threads 12.6–13.7 → 15.0–15.4), its 128-token prompt 85 → 88–91.
    return view.dtype == DType::F16 || view.dtype == DType::BF16;
}

int64_t groupedFloatBytes(const TensorView& matrix) {
    return (matrix.rows() + kTileRows - 1) / kTileRows * kTileRows * matrix.rowBytes();
}

int64_t groupedRowOffset(const TensorView& matrix, int64_t row) {
    const int64_t elementBytes = matrix.rowBytes() / matrix.columns();
    return row / kTileRows * kTileRows * matrix.rowBytes() +
           row % kTileRows * kGroupedChunk * elementBytes;
}

void PackedBuffer::Free::operator()(std::byte* bytes) const {
    std::free(bytes);
}

namespace {

constexpr size_t kHugePage = size_t(2) << 20;
constexpr int64_t kAlignment = 64;  // each placed matrix starts on a cache line

// `size` bytes, 2 MiB-aligned and advised to use huge pages.
PackedBuffer allocate(int64_t size, const std::string& what) {
    PackedBuffer buffer;
    buffer.size = size;
    const size_t allocated = (size_t(size) + kHugePage - 1) / kHugePage * kHugePage;
    buffer.bytes.reset(static_cast<std::byte*>(std::aligned_alloc(kHugePage, allocated)));
    if (buffer.bytes == nullptr)
        throw Error("out of memory placing " + what + " (" + std::to_string(allocated >> 20) +
                    " MiB)");
    ::madvise(buffer.bytes.get(), allocated, MADV_HUGEPAGE);
    return buffer;
}

// Runs body(first, last) over [0, count) on the pool's threads, or here without one.
void split(int64_t count, ThreadPool* pool, const std::function<void(int64_t, int64_t)>& body) {
    if (pool != nullptr)
        pool->parallelFor(count, body);
    else
        body(0, count);
}

int64_t packedBytes(const TensorView& matrix) {
    return (matrix.rows() + kPackedRows - 1) / kPackedRows * packedGroupBytes(matrix);
}

// What placeForProducts does with `view`.
enum class Placement { None, Pack, Group, Copy };
Placement placement(const TensorView& view) {
    if (view.shape.size() != 2 || view.packed != nullptr)
        return Placement::None;
    if (packs(view.dtype, cpuKernels()))
        return Placement::Pack;
    if (groupsFloatRows(view, cpuKernels()))
        return Placement::Group;
    return isBlockQuantized(view.dtype) ? Placement::None : Placement::Copy;
}

// A float matrix as it is into `out`: 1 MiB pieces on the pool's threads, each read in through
// one call (io/mapped_file.h) rather than a page fault per 4 KiB.
void copyRows(const TensorView& matrix, std::byte* out, ThreadPool* pool) {
    constexpr int64_t kPiece = int64_t(1) << 20;
    split((matrix.byteCount + kPiece - 1) / kPiece, pool, [&](int64_t first, int64_t last) {
        const int64_t begin = first * kPiece, end = std::min(matrix.byteCount, last * kPiece);
        prefaultMappedPages(matrix.data + begin, size_t(end - begin));
        std::memcpy(out + begin, matrix.data + begin, size_t(end - begin));
    });
}

}  // namespace

void packRowsInto(const TensorView& matrix, std::byte* out, ThreadPool* pool) {
    const PackedFormat& format = *packedFormat(matrix.dtype);
    const int64_t rows = matrix.rows();
    const int64_t blocks = matrix.columns() / dtypeInfo(matrix.dtype).blockElements;
    const int64_t groupBytes = packedGroupBytes(matrix);
    split((rows + kPackedRows - 1) / kPackedRows, pool, [&](int64_t first, int64_t last) {
        for (int64_t g = first; g < last; ++g) {
            const std::byte* rowPointers[kPackedRows];
            for (int j = 0; j < kPackedRows; ++j)
                rowPointers[j] =
                    g * kPackedRows + j < rows ? matrix.row(g * kPackedRows + j) : nullptr;
            for (int64_t b = 0; b < blocks; ++b)
                format.packBlock(rowPointers, b, out + g * groupBytes + b * format.blockBytes);
        }
    });
}

void groupFloatRowsInto(const TensorView& matrix, std::byte* out, ThreadPool* pool) {
    const int64_t rows = matrix.rows();
    const int64_t elementBytes = matrix.rowBytes() / matrix.columns();
    const int64_t chunkBytes = kGroupedChunk * elementBytes;
    split((rows + kTileRows - 1) / kTileRows, pool, [&](int64_t first, int64_t last) {
        for (int64_t g = first; g < last; ++g) {
            const int64_t present = std::min<int64_t>(kTileRows, rows - g * kTileRows);
            prefaultMappedPages(matrix.row(g * kTileRows), size_t(present * matrix.rowBytes()));
            for (int64_t row = g * kTileRows; row < (g + 1) * kTileRows; ++row) {
                std::byte* to = out + groupedRowOffset(matrix, row);
                for (int64_t i = 0; i < matrix.columns(); i += kGroupedChunk) {
                    std::byte* chunk = to + groupedIndex(i) * elementBytes;
                    if (row < rows)
                        std::memcpy(chunk, matrix.row(row) + i * elementBytes, size_t(chunkBytes));
                    else
                        std::memset(chunk, 0, size_t(chunkBytes));
                }
            }
        }
    });
}

PackedBuffer packRows(const TensorView& matrix, ThreadPool* pool) {
    PackedBuffer buffer = allocate(packedBytes(matrix), matrix.name);
    packRowsInto(matrix, buffer.bytes.get(), pool);
    return buffer;
}

int64_t placedBytes(const TensorView& view) {
    const Placement how = placement(view);
    const int64_t bytes = how == Placement::Pack    ? packedBytes(view)
                          : how == Placement::Group ? groupedFloatBytes(view)
                          : how == Placement::Copy  ? view.byteCount
                                                    : 0;
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

void PackedStore::reserve(int64_t bytes) {
    if (bytes <= 0)
        return;
    buffers_.push_back(allocate(bytes, "the model's matrices"));
    next_ = buffers_.back().bytes.get();
    left_ = bytes;
}

std::byte* PackedStore::take(int64_t bytes, const std::string& what) {
    if (bytes > left_) {  // beyond what was reserved: a buffer of its own
        buffers_.push_back(allocate(bytes, what));
        return buffers_.back().bytes.get();
    }
    std::byte* taken = next_;
    next_ += bytes;
    left_ -= bytes;
    return taken;
}

int64_t packedGroupBytes(const TensorView& matrix) {
    return matrix.columns() / dtypeInfo(matrix.dtype).blockElements *
           packedFormat(matrix.dtype)->blockBytes;
}

void placeForProducts(TensorView& view, PackedStore& store, ThreadPool* pool) {
    const Placement how = placement(view);
    if (how == Placement::None)
        return;  // the other block types are read from the file
    const std::byte* file = view.data;
    std::byte* place = store.take(placedBytes(view), view.name);
    if (how == Placement::Pack) {
        packRowsInto(view, place, pool);
        view.packed = place;
    } else if (how == Placement::Group) {
        groupFloatRowsInto(view, place, pool);
        view.packed = place;
    } else {
        copyRows(view, place, pool);
        view.data = place;
    }
    // The file's copy is read again only for rare things (an embedding row, a converter).
    releaseMappedPages(file, size_t(view.byteCount));
}

}  // namespace inferlens
