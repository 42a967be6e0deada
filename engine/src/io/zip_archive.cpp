#include "io/zip_archive.h"

#include <array>
#include <optional>

#include "core/error.h"
#include "io/byte_reader.h"

namespace inferlens {
namespace {

// Record signatures and fixed sizes (PKWARE APPNOTE 6.3.x, sections 4.3.7 to 4.3.16).
constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint64_t kLocalHeaderBytes = 30;    // before the name and the extra field
constexpr uint64_t kCentralHeaderBytes = 46;  // before the name, extra field and comment
constexpr uint64_t kEndBytes = 22;            // before the archive comment
constexpr uint64_t kZip64LocatorBytes = 20;
constexpr uint64_t kZip64EndBytes = 56;  // the fixed part of the ZIP64 end record
constexpr uint64_t kMaxCommentBytes = 0xffff;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint16_t kFlagEncrypted = 1 << 0;
constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflate = 8;

// Where the central directory lies, from the end record (or its ZIP64 form).
struct Directory {
    uint64_t offset = 0;
    uint64_t size = 0;
    uint64_t entries = 0;
    uint64_t limit = 0;  // the central directory must end here: where the end records start
};

ByteReader readerAt(std::span<const std::byte> bytes, uint64_t offset, uint64_t count,
                    const std::string& path, const std::string& what) {
    if (offset > bytes.size() || count > bytes.size() - offset)
        throwFileError(path, what + " at offset " + std::to_string(offset) + " (" +
                                 std::to_string(count) + " bytes) lies outside the " +
                                 std::to_string(bytes.size()) + "-byte file (truncated?)");
    return ByteReader(bytes.subspan(offset, count), path);
}

// The end-of-central-directory record is the last 22 bytes plus a comment of up to 64 KiB, so it
// is searched for backwards over at most that much; a candidate counts only when its comment
// length reaches exactly the end of the file, so a signature inside the comment is not taken.
std::optional<uint64_t> findEndRecord(std::span<const std::byte> bytes) {
    if (bytes.size() < kEndBytes)
        return std::nullopt;
    const uint64_t last = bytes.size() - kEndBytes;
    const uint64_t first = last > kMaxCommentBytes ? last - kMaxCommentBytes : 0;
    for (uint64_t at = last + 1; at-- > first;) {
        ByteReader reader(bytes.subspan(at, kEndBytes), "");
        if (reader.read<uint32_t>("signature") != kEndSignature)
            continue;
        ByteReader comment(bytes.subspan(at + 20, 2), "");
        if (kEndBytes + comment.read<uint16_t>("comment length") == bytes.size() - at)
            return at;
    }
    return std::nullopt;
}

Directory readZip64End(std::span<const std::byte> bytes, uint64_t locatorAt,
                       const std::string& path) {
    ByteReader locator = readerAt(bytes, locatorAt, kZip64LocatorBytes, path, "ZIP64 locator");
    locator.read<uint32_t>("ZIP64 locator signature");
    const auto recordDisk = locator.read<uint32_t>("ZIP64 end record disk");
    const auto recordAt = locator.read<uint64_t>("ZIP64 end record offset");
    const auto disks = locator.read<uint32_t>("disk count");
    if (recordDisk != 0 || disks > 1)
        throwFileError(path, "multi-disk ZIP archives are not supported");
    if (recordAt > locatorAt || locatorAt - recordAt < kZip64EndBytes)
        throwFileError(path, "the ZIP64 end record offset " + std::to_string(recordAt) +
                                 " does not lie before its locator at " +
                                 std::to_string(locatorAt) + " (corrupt archive)");
    ByteReader record = readerAt(bytes, recordAt, kZip64EndBytes, path, "ZIP64 end record");
    if (record.read<uint32_t>("ZIP64 end signature") != kZip64EndSignature)
        throwFileError(path, "no ZIP64 end record at offset " + std::to_string(recordAt) +
                                 " where the locator points (corrupt archive)");
    record.read<uint64_t>("record size");
    record.read<uint16_t>("version made by");
    record.read<uint16_t>("version needed");
    const auto disk = record.read<uint32_t>("disk number");
    const auto directoryDisk = record.read<uint32_t>("central directory disk");
    const auto entriesHere = record.read<uint64_t>("entries on this disk");
    Directory directory;
    directory.entries = record.read<uint64_t>("entry count");
    directory.size = record.read<uint64_t>("central directory size");
    directory.offset = record.read<uint64_t>("central directory offset");
    directory.limit = recordAt;
    if (disk != 0 || directoryDisk != 0 || entriesHere != directory.entries)
        throwFileError(path, "multi-disk ZIP archives are not supported");
    return directory;
}

Directory readDirectoryLocation(std::span<const std::byte> bytes, const std::string& path) {
    const auto endAt = findEndRecord(bytes);
    if (!endAt)
        throwFileError(path,
                       "no ZIP end of central directory record in the last 64 KiB (not a "
                       "PyTorch checkpoint of the zip format, or truncated)");
    ByteReader end = readerAt(bytes, *endAt, kEndBytes, path, "end of central directory");
    end.read<uint32_t>("end signature");
    const auto disk = end.read<uint16_t>("disk number");
    const auto directoryDisk = end.read<uint16_t>("central directory disk");
    const auto entriesHere = end.read<uint16_t>("entries on this disk");
    Directory directory;
    directory.entries = end.read<uint16_t>("entry count");
    directory.size = end.read<uint32_t>("central directory size");
    directory.offset = end.read<uint32_t>("central directory offset");
    directory.limit = *endAt;

    // A ZIP64 locator right before the end record takes precedence: its fields are the true ones
    // when the 16- and 32-bit fields above are saturated at 0xFFFF / 0xFFFFFFFF.
    if (*endAt >= kZip64LocatorBytes) {
        ByteReader probe(bytes.subspan(*endAt - kZip64LocatorBytes, 4), path);
        if (probe.read<uint32_t>("ZIP64 locator signature") == kZip64LocatorSignature)
            return readZip64End(bytes, *endAt - kZip64LocatorBytes, path);
    }
    if (directory.entries == 0xffff || directory.size == 0xffffffff ||
        directory.offset == 0xffffffff)
        throwFileError(
            path, "the end record says ZIP64, but there is no ZIP64 locator (corrupt archive)");
    if (disk != 0 || directoryDisk != 0 || entriesHere != directory.entries)
        throwFileError(path, "multi-disk ZIP archives are not supported");
    return directory;
}

// The 32-bit fields of a central directory entry, widened by its ZIP64 extra field where they are
// saturated (the extra field holds exactly the saturated ones, in this order).
struct EntrySizes {
    uint64_t uncompressed = 0;
    uint64_t compressed = 0;
    uint64_t localHeaderOffset = 0;
};

void applyZip64Extra(std::span<const std::byte> extra, EntrySizes& sizes, const std::string& path,
                     const std::string& where) {
    ByteReader reader(extra, path);
    bool found = false;
    while (reader.remaining() >= 4) {
        const auto id = reader.read<uint16_t>("extra field id");
        const auto size = reader.read<uint16_t>("extra field size");
        if (size > reader.remaining())
            throwFileError(path, where + ": extra field " + std::to_string(id) + " of " +
                                     std::to_string(size) + " bytes passes the entry's end");
        ByteReader field(reader.readBytes(size, "extra field"), path);
        if (id != kZip64ExtraId || found)
            continue;
        found = true;
        for (uint64_t* value : {&sizes.uncompressed, &sizes.compressed, &sizes.localHeaderOffset}) {
            if (*value != 0xffffffff)
                continue;
            if (field.remaining() < 8)
                throwFileError(path,
                               where + ": the ZIP64 extra field lacks a 64-bit size or offset");
            *value = field.read<uint64_t>("ZIP64 value");
        }
    }
}

std::string describeMethod(uint16_t method) {
    if (method == kMethodDeflate)
        return "compressed (deflate)";
    return "compressed with method " + std::to_string(method);
}

// Reads the local header of an entry and returns where its data starts. The local copy of the name
// must agree with the central directory's, so a corrupt offset is caught here.
uint64_t localDataStart(std::span<const std::byte> bytes, const Directory& directory,
                        uint64_t headerAt, std::string_view name, const std::string& path,
                        const std::string& where) {
    if (headerAt > directory.offset || directory.offset - headerAt < kLocalHeaderBytes)
        throwFileError(path, where + ": local header offset " + std::to_string(headerAt) +
                                 " does not lie before the central directory (corrupt archive)");
    ByteReader header = readerAt(bytes, headerAt, kLocalHeaderBytes, path, where + " local header");
    if (header.read<uint32_t>("local header signature") != kLocalHeaderSignature)
        throwFileError(path, where + ": no local header at offset " + std::to_string(headerAt) +
                                 " (corrupt archive)");
    header.read<uint16_t>("version needed");
    const auto flags = header.read<uint16_t>("flags");
    const auto method = header.read<uint16_t>("method");
    header.readBytes(16, "time, date, CRC and sizes");  // the central directory's copies count
    const auto nameLength = header.read<uint16_t>("name length");
    const auto extraLength = header.read<uint16_t>("extra length");
    const uint64_t nameAt = headerAt + kLocalHeaderBytes;
    if (nameLength + uint64_t(extraLength) > directory.offset - nameAt)
        throwFileError(path, where + ": local header passes the central directory");
    const auto localName = bytes.subspan(nameAt, nameLength);
    if (std::string_view(reinterpret_cast<const char*>(localName.data()), localName.size()) != name)
        throwFileError(path,
                       where + ": the local header's name differs from the central directory's");
    if ((flags & kFlagEncrypted) != 0 || method != kMethodStored)
        throwFileError(path, where + ": the local header says encrypted or compressed");
    return nameAt + nameLength + extraLength;
}

}  // namespace

ZipArchive::ZipArchive(std::shared_ptr<const MappedFile> file) : file_(std::move(file)) {
    const auto bytes = file_->bytes();
    const std::string& path = file_->path();
    const Directory directory = readDirectoryLocation(bytes, path);
    if (directory.offset > directory.limit || directory.size > directory.limit - directory.offset)
        throwFileError(path, "the central directory [" + std::to_string(directory.offset) + ", +" +
                                 std::to_string(directory.size) +
                                 ") does not lie before the end record (corrupt or truncated)");
    // Each entry takes at least 46 bytes, so the count cannot drive more work than the bytes do.
    if (directory.entries > directory.size / kCentralHeaderBytes)
        throwFileError(path, "the end record claims " + std::to_string(directory.entries) +
                                 " entries, more than " + std::to_string(directory.size) +
                                 " central directory bytes can hold (corrupt archive)");

    ByteReader reader(bytes.subspan(directory.offset, directory.size), path);
    for (uint64_t index = 0; index < directory.entries; ++index) {
        std::string where = "zip entry #" + std::to_string(index);
        if (reader.read<uint32_t>("central directory signature") != kCentralHeaderSignature)
            throwFileError(path, where + ": no central directory header at offset " +
                                     std::to_string(directory.offset + reader.position() - 4) +
                                     " (corrupt central directory)");
        reader.read<uint16_t>("version made by");
        reader.read<uint16_t>("version needed");
        const auto flags = reader.read<uint16_t>("flags");
        const auto method = reader.read<uint16_t>("method");
        reader.read<uint32_t>("time and date");
        const auto crc = reader.read<uint32_t>("CRC-32");
        EntrySizes sizes;
        sizes.compressed = reader.read<uint32_t>("compressed size");
        sizes.uncompressed = reader.read<uint32_t>("uncompressed size");
        const auto nameLength = reader.read<uint16_t>("name length");
        const auto extraLength = reader.read<uint16_t>("extra length");
        const auto commentLength = reader.read<uint16_t>("comment length");
        reader.read<uint16_t>("start disk");
        reader.read<uint16_t>("internal attributes");
        reader.read<uint32_t>("external attributes");
        sizes.localHeaderOffset = reader.read<uint32_t>("local header offset");
        const auto nameBytes = reader.readBytes(nameLength, "entry name");
        const auto extra = reader.readBytes(extraLength, "extra field");
        reader.readBytes(commentLength, "entry comment");

        std::string name(reinterpret_cast<const char*>(nameBytes.data()), nameBytes.size());
        where += " '" + printableName(name) + "'";
        applyZip64Extra(extra, sizes, path, where);
        if ((flags & kFlagEncrypted) != 0)
            throwFileError(path, where + " is encrypted, which a PyTorch checkpoint never is");
        if (method != kMethodStored)
            throwFileError(path, where + " is " + describeMethod(method) +
                                     "; torch.save stores entries uncompressed and InferLens "
                                     "reads only those (re-save it with torch.save)");
        if (sizes.compressed != sizes.uncompressed)
            throwFileError(path, where + ": a stored entry's sizes disagree (" +
                                     std::to_string(sizes.compressed) + " vs " +
                                     std::to_string(sizes.uncompressed) + ")");
        // With a data descriptor (flag bit 3) the local header's sizes may be zero; the central
        // directory's, used here, are always the true ones.
        const uint64_t start =
            localDataStart(bytes, directory, sizes.localHeaderOffset, name, path, where);
        if (sizes.compressed > directory.offset - start)
            throwFileError(path, where + ": its " + std::to_string(sizes.compressed) +
                                     " bytes at offset " + std::to_string(start) +
                                     " pass the start of the central directory (truncated?)");
        Entry entry{name, bytes.subspan(start, sizes.compressed), crc};
        if (!entries_.emplace(name, std::move(entry)).second)
            throwFileError(path, where + " appears twice");
    }
}

const ZipArchive::Entry* ZipArchive::find(std::string_view name) const {
    const auto found = entries_.find(name);
    return found == entries_.end() ? nullptr : &found->second;
}

std::span<const std::byte> ZipArchive::verifiedEntry(std::string_view name) const {
    const Entry* entry = find(name);
    if (entry == nullptr)
        throwFileError(path(), "the archive has no entry '" + printableName(name) + "'");
    if (zipCrc32(entry->data) != entry->crc32)
        throwFileError(path(), "zip entry '" + printableName(name) +
                                   "' fails its CRC-32 check (corrupt archive)");
    return entry->data;
}

uint32_t zipCrc32(std::span<const std::byte> bytes) {
    static const auto table = [] {
        std::array<uint32_t, 256> values{};
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t value = i;
            for (int bit = 0; bit < 8; ++bit)
                value = (value & 1) != 0 ? 0xedb88320u ^ (value >> 1) : value >> 1;
            values[i] = value;
        }
        return values;
    }();
    uint32_t crc = 0xffffffffu;
    for (const std::byte byte : bytes)
        crc = table[(crc ^ uint32_t(byte)) & 0xff] ^ (crc >> 8);
    return crc ^ 0xffffffffu;
}

std::string printableName(std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f || c == '\'' || c == '\\') {
            out += "\\x";
            out += kHex[byte >> 4];
            out += kHex[byte & 15];
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace inferlens
