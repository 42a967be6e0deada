#pragma once
// Writing GGUF version 3: metadata in the order it was set, then the tensor directory, then the
// tensor data, each tensor aligned to `general.alignment` (32 unless set).

#include <string>
#include <vector>

#include "io/gguf_value.h"
#include "io/tensor_source.h"

namespace inferlens {

class GgufWriter {
  public:
    void set(std::string key, GgufValue value);  // replaces an existing key in place
    void addTensor(TensorSource tensor);
    void write(const std::string& path) const;

  private:
    std::vector<GgufKeyValue> metadata_;
    std::vector<TensorSource> tensors_;
};

}  // namespace inferlens
