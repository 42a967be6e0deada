#include "backend/cpu/packed_rows.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

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

bool packs(DType dtype, CpuKernels kernels) {
    const PackedFormat* format = packedFormat(dtype);
    return format != nullptr && format->tile(kernels) != nullptr;
}

void PackedBuffer::Free::operator()(std::byte* bytes) const {
    std::free(bytes);
}

namespace {

// `size` bytes for a copy of `name`: large ones 2 MiB-aligned and advised to use huge pages; small
// ones (a GQA model's key and value matrices) would waste most of such a page, so they get plain
// cache-line alignment.
PackedBuffer allocate(int64_t size, const std::string& name) {
    constexpr size_t kHugePage = size_t(2) << 20;
    PackedBuffer buffer;
    buffer.size = size;
    const size_t alignment = size_t(size) >= 4 * kHugePage ? kHugePage : 64;
    const size_t allocated = (size_t(size) + alignment - 1) / alignment * alignment;
    buffer.bytes.reset(static_cast<std::byte*>(std::aligned_alloc(alignment, allocated)));
    if (buffer.bytes == nullptr)
        throw Error("out of memory copying " + name + " (" + std::to_string(allocated >> 20) +
                    " MiB)");
    if (alignment == kHugePage)
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

// A float matrix as it is, in memory of its own: 1 MiB pieces on the pool's threads, each read in
// through one call (io/mapped_file.h) rather than a page fault per 4 KiB.
PackedBuffer copyRows(const TensorView& matrix, ThreadPool* pool) {
    PackedBuffer buffer = allocate(matrix.byteCount, matrix.name);
    constexpr int64_t kPiece = int64_t(1) << 20;
    split((matrix.byteCount + kPiece - 1) / kPiece, pool, [&](int64_t first, int64_t last) {
        const int64_t begin = first * kPiece, end = std::min(matrix.byteCount, last * kPiece);
        prefaultMappedPages(matrix.data + begin, size_t(end - begin));
        std::memcpy(buffer.bytes.get() + begin, matrix.data + begin, size_t(end - begin));
    });
    return buffer;
}

}  // namespace

PackedBuffer packRows(const TensorView& matrix, ThreadPool* pool) {
    const PackedFormat& format = *packedFormat(matrix.dtype);
    const int64_t rows = matrix.rows();
    const int64_t blocks = matrix.columns() / dtypeInfo(matrix.dtype).blockElements;
    const int64_t groups = (rows + kPackedRows - 1) / kPackedRows;
    const int64_t groupBytes = blocks * format.blockBytes;
    PackedBuffer buffer = allocate(groups * groupBytes, matrix.name);
    split(groups, pool, [&](int64_t first, int64_t last) {
        for (int64_t g = first; g < last; ++g) {
            const std::byte* rowPointers[kPackedRows];
            for (int j = 0; j < kPackedRows; ++j)
                rowPointers[j] =
                    g * kPackedRows + j < rows ? matrix.row(g * kPackedRows + j) : nullptr;
            for (int64_t b = 0; b < blocks; ++b)
                format.packBlock(rowPointers, b,
                                 buffer.bytes.get() + g * groupBytes + b * format.blockBytes);
        }
    });
    return buffer;
}

PackedTile packedTile(DType dtype, CpuKernels kernels) {
    const PackedFormat* format = packedFormat(dtype);
    return format != nullptr ? format->tile(kernels) : nullptr;
}

int64_t packedGroupBytes(const TensorView& matrix) {
    return matrix.columns() / dtypeInfo(matrix.dtype).blockElements *
           packedFormat(matrix.dtype)->blockBytes;
}

void placeForProducts(TensorView& view, PackedStore& store, ThreadPool* pool) {
    if (view.shape.size() != 2 || view.packed != nullptr)
        return;
    const std::byte* file = view.data;
    if (packs(view.dtype, cpuKernels())) {
        store.buffers.push_back(packRows(view, pool));
        view.packed = store.buffers.back().bytes.get();
    } else if (!isBlockQuantized(view.dtype)) {
        store.buffers.push_back(copyRows(view, pool));
        view.data = store.buffers.back().bytes.get();
    } else {
        return;  // the other block types are read from the file
    }
    // The file's copy is read again only for rare things (an embedding row, a converter).
    releaseMappedPages(file, size_t(view.byteCount));
}

}  // namespace inferlens
