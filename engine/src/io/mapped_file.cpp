#include "io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "core/error.h"

namespace inferlens {
namespace {

// The live mappings, so that releaseMappedPages can refuse memory that is not a file's: dropping
// the pages of ordinary memory (a tensor converted in memory, say) would zero them.
std::mutex mappingsMutex;
std::vector<std::span<const std::byte>> mappings;

bool insideAMapping(const std::byte* data, size_t bytes) {
    std::lock_guard lock(mappingsMutex);
    return std::any_of(mappings.begin(), mappings.end(), [&](std::span<const std::byte> mapping) {
        return data >= mapping.data() && data + bytes <= mapping.data() + mapping.size();
    });
}

}  // namespace

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
        std::lock_guard lock(mappingsMutex);
        mappings.emplace_back(data_, size_);
    }
    ::close(fd);
}

MappedFile::~MappedFile() {
    if (data_ == nullptr)
        return;
    {
        std::lock_guard lock(mappingsMutex);
        std::erase_if(mappings, [this](std::span<const std::byte> m) { return m.data() == data_; });
    }
    ::munmap(const_cast<std::byte*>(data_), size_);
}

void releaseMappedPages(const std::byte* data, size_t bytes) {
    if (!insideAMapping(data, bytes))
        return;
    const auto pageSize = uintptr_t(::sysconf(_SC_PAGESIZE));
    const uintptr_t first = (uintptr_t(data) + pageSize - 1) / pageSize * pageSize;
    const uintptr_t last = (uintptr_t(data) + bytes) / pageSize * pageSize;
    if (first < last)  // advice only: a failure leaves the pages resident, which is harmless
        ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

void prefaultMappedPages(const std::byte* data, size_t bytes) {
#ifdef MADV_POPULATE_READ
    const auto pageSize = uintptr_t(::sysconf(_SC_PAGESIZE));
    const uintptr_t first = uintptr_t(data) / pageSize * pageSize;
    ::madvise(reinterpret_cast<void*>(first), uintptr_t(data) + bytes - first, MADV_POPULATE_READ);
#else
    (void)data;
    (void)bytes;
#endif
}

}  // namespace inferlens
