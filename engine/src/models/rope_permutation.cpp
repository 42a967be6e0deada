#include "models/rope_permutation.h"

#include <algorithm>
#include <vector>

namespace inferlens {

void permuteRopeRows(std::span<float> values, int64_t columns, int64_t heads, int64_t headDim,
                     int64_t ropeDims, RopePairing from, RopePairing to) {
    if (from == to)
        return;
    const int64_t pairs = ropeDims / 2;
    std::vector<float> original(size_t(ropeDims * columns));
    for (int64_t head = 0; head < heads; ++head) {
        float* block = values.data() + head * headDim * columns;
        std::copy(block, block + ropeDims * columns, original.begin());
        for (int64_t i = 0; i < pairs; ++i) {
            for (int64_t member = 0; member < 2; ++member) {
                const int64_t adjacentRow = 2 * i + member;
                const int64_t rotateHalfRow = i + member * pairs;
                const int64_t source = from == RopePairing::Adjacent ? adjacentRow : rotateHalfRow;
                const int64_t target = to == RopePairing::Adjacent ? adjacentRow : rotateHalfRow;
                std::copy_n(original.begin() + source * columns, columns, block + target * columns);
            }
        }
    }
}

}  // namespace inferlens
