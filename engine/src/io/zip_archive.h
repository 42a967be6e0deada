#pragma once
// A read-only ZIP archive over a memory-mapped file, for PyTorch checkpoints (torch.save has
// written a ZIP of stored entries since PyTorch 1.6). Only what those need: the central directory
// (ZIP64 included, for archives, entries or offsets past 4 GiB) and entries stored uncompressed,
// which are exposed as byte spans into the mapping, so weights are used in place. Compressed or
// encrypted entries are refused with an error naming the entry. Every size and offset is checked
// against the file before it is used; CRCs are checked only by `verifiedEntry` (for small entries:
// checking gigabytes of weights would defeat the mapping).

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "io/mapped_file.h"

namespace inferlens {

class ZipArchive {
  public:
    struct Entry {
        std::string name;
        std::span<const std::byte> data;  // the stored bytes, inside the mapping
        uint32_t crc32 = 0;               // as the central directory records it
    };

    // Throws Error naming the file when it is not a ZIP archive or any record is inconsistent.
    explicit ZipArchive(std::shared_ptr<const MappedFile> file);

    const std::string& path() const { return file_->path(); }
    const std::shared_ptr<const MappedFile>& file() const { return file_; }
    // By name, in name order.
    const std::map<std::string, Entry, std::less<>>& entries() const { return entries_; }
    const Entry* find(std::string_view name) const;
    // The entry's bytes after checking its CRC-32; throws Error when it is absent or corrupt.
    std::span<const std::byte> verifiedEntry(std::string_view name) const;

  private:
    std::shared_ptr<const MappedFile> file_;
    std::map<std::string, Entry, std::less<>> entries_;
};

// CRC-32 as ZIP uses it (IEEE 802.3, reflected, initial and final XOR 0xFFFFFFFF).
uint32_t zipCrc32(std::span<const std::byte> bytes);

// `text` for an error message: control characters and quotes written as \xNN, so that a name read
// from a file can neither break the message's single line nor its quoting.
std::string printableName(std::string_view text);

}  // namespace inferlens
