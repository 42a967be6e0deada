#pragma once
// Writes a file under a temporary name and renames it into place only when everything was written,
// so an interrupted or failed write never leaves a half-written model where a good one is expected.

#include <cstddef>
#include <cstdio>
#include <span>
#include <string>

namespace inferlens {

class AtomicFileWriter {
  public:
    explicit AtomicFileWriter(std::string path);  // throws Error when the file cannot be created
    ~AtomicFileWriter();                          // removes the temporary file unless committed
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    void write(std::span<const std::byte> bytes);
    void write(const void* data, size_t size);
    void writeZeros(size_t count);
    uint64_t position() const { return position_; }
    void commit();  // flushes, closes and renames into place

  private:
    std::string path_;
    std::string temporaryPath_;
    std::FILE* file_ = nullptr;
    uint64_t position_ = 0;
};

}  // namespace inferlens
