#include "io/atomic_file_writer.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.h"

namespace inferlens {

AtomicFileWriter::AtomicFileWriter(std::string path)
    : path_(std::move(path)), temporaryPath_(path_ + ".partial") {
    file_ = std::fopen(temporaryPath_.c_str(), "wb");
    if (file_ == nullptr)
        throwFileError(path_, std::string("cannot create: ") + std::strerror(errno));
}

AtomicFileWriter::~AtomicFileWriter() {
    if (file_ != nullptr) {
        std::fclose(file_);
        std::remove(temporaryPath_.c_str());
    }
}

void AtomicFileWriter::write(const void* data, size_t size) {
    if (size != 0 && std::fwrite(data, 1, size, file_) != size)
        throwFileError(path_, std::string("write failed: ") + std::strerror(errno));
    position_ += size;
}

void AtomicFileWriter::write(std::span<const std::byte> bytes) {
    write(bytes.data(), bytes.size());
}

void AtomicFileWriter::writeZeros(size_t count) {
    const std::vector<std::byte> zeros(count);
    write(zeros.data(), zeros.size());
}

void AtomicFileWriter::commit() {
    const bool flushed = std::fflush(file_) == 0;
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!flushed || !closed) {
        std::remove(temporaryPath_.c_str());
        throwFileError(path_, std::string("write failed: ") + std::strerror(errno));
    }
    std::error_code error;
    std::filesystem::rename(temporaryPath_, path_, error);
    if (error) {
        std::remove(temporaryPath_.c_str());
        throwFileError(path_, "cannot rename into place: " + error.message());
    }
}

}  // namespace inferlens
