#include "io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace inferlens {

MappedFile::MappedFile(const std::string& path) : path_(path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; for regular files it changes nothing.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        throwFileError(path, std::string("cannot open: ") + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        throwFileError(path, "not a regular file");
    }
    size_ = static_cast<size_t>(info.st_size);
    if (size_ > 0) {
        void* mapping = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mapping == MAP_FAILED) {
            const int error = errno;
            ::close(fd);
            throwFileError(path, std::string("cannot map into memory: ") + std::strerror(error));
        }
        data_ = static_cast<const std::byte*>(mapping);
    }
    ::close(fd);
}

MappedFile::~MappedFile() {
    if (data_ != nullptr)
        ::munmap(const_cast<std::byte*>(data_), size_);
}

void releaseMappedPages(const std::byte* data, size_t bytes) {
    const auto pageSize = uintptr_t(::sysconf(_SC_PAGESIZE));
    const uintptr_t first = (uintptr_t(data) + pageSize - 1) / pageSize * pageSize;
    const uintptr_t last = (uintptr_t(data) + bytes) / pageSize * pageSize;
    if (first < last)  // advice only: a failure leaves the pages resident, which is harmless
        ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace inferlens
