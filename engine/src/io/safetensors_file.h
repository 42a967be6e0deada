#pragma once
// Reading a .safetensors file: u64 header length, a JSON header {name: {dtype, shape,
// data_offsets}}, then the data. Tensors are zero-copy views into the mapped file; the constructor
// validates types, shapes and byte ranges (inside the data, sized to match, not overlapping).

#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "io/mapped_file.h"
#include "io/tensor_source.h"

namespace inferlens {

class SafetensorsFile {
  public:
    explicit SafetensorsFile(const std::string& path);

    const std::string& path() const { return file_->path(); }
    const std::vector<TensorView>& tensors() const { return tensors_; }

  private:
    std::shared_ptr<MappedFile> file_;
    std::vector<TensorView> tensors_;
};

// Writes tensors in the order given, with the header padded to 8 bytes as the format recommends.
void writeSafetensors(const std::string& path, const std::vector<TensorSource>& tensors);

}  // namespace inferlens
