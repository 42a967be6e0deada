#include "core/error.h"

#include "core/utf8.h"

namespace inferlens {

void throwFileError(const std::string& file, const std::string& problem) {
    // Messages quote file names and file contents; keep them printable as UTF-8 whatever those are.
    throw Error(escapeInvalidUtf8(file + ": " + problem));
}

}  // namespace inferlens
