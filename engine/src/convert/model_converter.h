#pragma once
// `convert`: re-writes an opened model in another format and/or weight type. The logits of the
// written model equal those of the source (exactly for the same type; within the rounding of the
// new type otherwise).

#include <optional>
#include <string>

#include "core/dtype.h"
#include "models/model_files.h"

namespace inferlens {

void convertModel(const ModelFiles& source, ModelFormat format, std::optional<DType> dtype,
                  const std::string& path);

}  // namespace inferlens
