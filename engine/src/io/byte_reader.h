#pragma once
// Bounds-checked little-endian reading from a byte span. Every read that would pass the end throws
// an Error naming the file, the offset and what was being read, so a truncated or lying header can
// never make a parser read outside its buffer.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "core/error.h"

namespace inferlens {

class ByteReader {
  public:
    ByteReader(std::span<const std::byte> bytes, std::string file)
        : bytes_(bytes), file_(std::move(file)) {}

    size_t position() const { return position_; }
    size_t remaining() const { return bytes_.size() - position_; }
    const std::string& file() const { return file_; }

    template <typename T>
    T read(std::string_view what) {
        require(sizeof(T), what);
        T value;
        std::memcpy(&value, bytes_.data() + position_, sizeof(T));
        position_ += sizeof(T);
        return value;
    }

    std::span<const std::byte> readBytes(uint64_t count, std::string_view what) {
        require(count, what);
        auto part = bytes_.subspan(position_, count);
        position_ += count;
        return part;
    }

    void require(uint64_t count, std::string_view what) const {
        if (count > remaining())
            throwFileError(file_, "truncated: " + std::string(what) + " at offset " +
                                      std::to_string(position_) + " needs " +
                                      std::to_string(count) + " bytes, " +
                                      std::to_string(remaining()) + " remain");
    }

  private:
    std::span<const std::byte> bytes_;
    std::string file_;
    size_t position_ = 0;
};

}  // namespace inferlens
