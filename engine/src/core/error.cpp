#include "core/error.h"

namespace inferlens {

void throwFileError(const std::string& file, const std::string& problem) {
    throw Error(file + ": " + problem);
}

}  // namespace inferlens
