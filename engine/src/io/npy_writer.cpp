#include "io/npy_writer.h"

#include "core/error.h"
#include "io/atomic_file_writer.h"

namespace inferlens {

void writeNpyFloat32(const std::string& path, const std::vector<int64_t>& shape,
                     std::span<const float> values) {
    int64_t count = 1;
    std::string shapeText = "(";
    for (size_t i = 0; i < shape.size(); ++i) {
        count *= shape[i];
        shapeText += (i ? ", " : "") + std::to_string(shape[i]);
    }
    shapeText += shape.size() == 1 ? ",)" : ")";  // Python's tuple syntax: (2,) but (2, 3)
    if (count != int64_t(values.size()))
        throw Error(path + ": value count does not match the shape");
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shapeText + ", }";
    // Magic (6) + version (2) + header length (2) + header, padded with spaces to 64 bytes, + '\n'.
    const size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    AtomicFileWriter out(path);
    out.write("\x93NUMPY\x01\x00", 8);
    const uint16_t headerLength = uint16_t(header.size());
    out.write(&headerLength, 2);
    out.write(header.data(), header.size());
    out.write(values.data(), values.size_bytes());
    out.commit();
}

}  // namespace inferlens
