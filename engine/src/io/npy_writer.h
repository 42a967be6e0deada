#pragma once
// Writing a float32 NumPy .npy file (format version 1.0), readable with numpy.load.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace inferlens {

void writeNpyFloat32(const std::string& path, const std::vector<int64_t>& shape,
                     std::span<const float> values);

}  // namespace inferlens
