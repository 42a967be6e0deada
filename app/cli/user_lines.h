#pragma once
// What a person types to `chat`, local or on a server.

#include <string>

namespace inferlens::cli {

// The next non-empty line of stdin, after a "> " prompt on stderr when stdin is a terminal; false
// at the end of the input (Ctrl-D).
bool nextUserLine(std::string& line);

}  // namespace inferlens::cli
