#pragma once
// Reading one PyTorch checkpoint file (`pytorch_model.bin`, or one shard of it) as torch.save has
// written it since PyTorch 1.6: a ZIP archive, stored uncompressed, of
//   <prefix>/data.pkl      the pickled state dict (see io/torch_pickle.h)
//   <prefix>/data/<key>    the raw bytes of each storage, little-endian
//   <prefix>/byteorder     "little" (newer versions), <prefix>/version, ...
// where <prefix> is the archive's one top-level folder, whatever its name. Tensors are zero-copy
// views into the mapped file; each must be a contiguous, row-major window inside its storage.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "io/mapped_file.h"

namespace inferlens {

class TorchCheckpoint {
  public:
    // Throws Error naming the file (and the entry or tensor) when anything is malformed.
    explicit TorchCheckpoint(const std::string& path);

    const std::string& path() const { return file_->path(); }
    // The F32, F16 and BF16 tensors, in the state dict's order.
    const std::vector<TensorView>& tensors() const { return tensors_; }
    // Valid tensors of other element types (int64 buffers, ...) by name, with their storage
    // class ("torch.LongStorage"): usable only if the model does not need them.
    const std::map<std::string, std::string>& otherTensors() const { return otherTensors_; }

  private:
    std::shared_ptr<const MappedFile> file_;
    std::vector<TensorView> tensors_;
    std::map<std::string, std::string> otherTensors_;
};

}  // namespace inferlens
