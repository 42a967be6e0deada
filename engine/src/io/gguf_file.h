#pragma once
// Reading a GGUF file (versions 2 and 3): metadata, tensor directory, and zero-copy tensor views
// into the memory-mapped data section. The constructor validates everything it reads: sizes against
// the file, tensor types, shapes, alignment, byte ranges and overlaps. A GgufFile that exists is
// sound.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"
#include "io/gguf_value.h"
#include "io/mapped_file.h"

namespace inferlens {

class ByteReader;

class GgufFile {
  public:
    explicit GgufFile(const std::string& path);  // throws Error naming the path and the problem

    const std::string& path() const { return file_->path(); }
    uint32_t version() const { return version_; }
    uint32_t alignment() const { return alignment_; }
    const std::vector<GgufKeyValue>& metadata() const { return metadata_; }
    const std::vector<TensorView>& tensors() const { return tensors_; }

    const GgufValue* find(std::string_view key) const;
    // Typed look-ups that throw an Error naming the file and key when the key is missing or has the
    // wrong type. The optional forms return nullopt only when the key is absent.
    int64_t requireInteger(std::string_view key) const;
    std::optional<int64_t> optionalInteger(std::string_view key) const;
    std::optional<double> optionalNumber(std::string_view key) const;
    std::string requireString(std::string_view key) const;
    std::optional<bool> optionalBool(std::string_view key) const;

  private:
    void readMetadata(ByteReader& reader, uint64_t count);
    void readTensorInfos(ByteReader& reader, uint64_t count);
    void checkTensorRanges(size_t dataStart);

    std::shared_ptr<MappedFile> file_;
    uint32_t version_ = 0;
    uint32_t alignment_ = 32;
    std::vector<GgufKeyValue> metadata_;
    std::vector<TensorView> tensors_;
    std::vector<uint64_t> tensorOffsets_;  // relative to the data section, parallel to tensors_
};

}  // namespace inferlens
