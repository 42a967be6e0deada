#include "backend/cpu/packed_rows.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

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

PackedBuffer packRows(const TensorView& matrix, ThreadPool* pool) {
    const PackedFormat& format = *packedFormat(matrix.dtype);
    const int64_t rows = matrix.rows();
    const int64_t blocks = matrix.columns() / dtypeInfo(matrix.dtype).blockElements;
    const int64_t groups = (rows + kPackedRows - 1) / kPackedRows;
    const int64_t groupBytes = blocks * format.blockBytes;
    // Large matrices in 2 MiB-aligned memory that may use huge pages; small ones (a GQA model's
    // key and value matrices) would waste most of such a page, so they get plain cache-line
    // alignment.
    constexpr size_t kHugePage = size_t(2) << 20;
    PackedBuffer buffer;
    buffer.size = groups * groupBytes;
    const size_t alignment = size_t(buffer.size) >= 4 * kHugePage ? kHugePage : 64;
    const size_t allocated = (size_t(buffer.size) + alignment - 1) / alignment * alignment;
    buffer.bytes.reset(static_cast<std::byte*>(std::aligned_alloc(alignment, allocated)));
    if (buffer.bytes == nullptr)
        throw Error("out of memory repacking " + matrix.name + " (" +
                    std::to_string(allocated >> 20) + " MiB)");
    if (alignment == kHugePage)
        ::madvise(buffer.bytes.get(), allocated, MADV_HUGEPAGE);
    const auto packGroups = [&](int64_t first, int64_t last) {
        for (int64_t g = first; g < last; ++g) {
            const std::byte* rowPointers[kPackedRows];
            for (int j = 0; j < kPackedRows; ++j)
                rowPointers[j] =
                    g * kPackedRows + j < rows ? matrix.row(g * kPackedRows + j) : nullptr;
            for (int64_t b = 0; b < blocks; ++b)
                format.packBlock(rowPointers, b,
                                 buffer.bytes.get() + g * groupBytes + b * format.blockBytes);
        }
    };
    if (pool != nullptr)
        pool->parallelFor(groups, packGroups);
    else
        packGroups(0, groups);
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

void packInto(TensorView& view, PackedStore& store, ThreadPool* pool) {
    if (view.shape.size() != 2 || !packs(view.dtype, cpuKernels()) || view.packed != nullptr)
        return;
    store.buffers.push_back(packRows(view, pool));
    view.packed = store.buffers.back().bytes.get();
    // The file's copy is read again only for rare things (an embedding row, a converter).
    releaseMappedPages(view.data, size_t(view.byteCount));
}

}  // namespace inferlens
