#pragma once
// A whole file mapped read-only into memory. Weights are used in place from the mapping, so opening
// a multi-gigabyte model costs page-table entries, not copies.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace inferlens {

class MappedFile {
  public:
    explicit MappedFile(const std::string& path);  // throws Error naming the path
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::string& path() const { return path_; }
    std::span<const std::byte> bytes() const { return {data_, size_}; }
    size_t size() const { return size_; }

  private:
    std::string path_;
    const std::byte* data_ = nullptr;
    size_t size_ = 0;
};

// Drops the whole pages of [data, data + bytes) from this process's resident memory when the range
// lies in a live MappedFile (anything else is left alone); a later read brings them back from the
// file. For weights that have
// been copied into another layout (backend/cpu/packed_rows.h), so that they are not held twice.
void releaseMappedPages(const std::byte* data, size_t bytes);
// Reads the pages of [data, data + bytes) in with one call instead of a page fault per page (for
// a copy that is about to read them all); advice only, ignored by kernels before Linux 5.14.
void prefaultMappedPages(const std::byte* data, size_t bytes);

}  // namespace inferlens
