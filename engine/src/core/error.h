#pragma once
// The engine's one error path: every failure the user can cause (a bad file, a bad argument, a full
// context) is reported by throwing inferlens::Error with a message that names what and where.

#include <stdexcept>
#include <string>

namespace inferlens {

class Error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Throws an Error whose message starts with the file it concerns, e.g. "model.gguf: bad magic".
[[noreturn]] void throwFileError(const std::string& file, const std::string& problem);

}  // namespace inferlens
