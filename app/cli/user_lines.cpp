#include "user_lines.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace inferlens::cli {

bool nextUserLine(std::string& line) {
    const bool interactive = isatty(STDIN_FILENO);
    do {
        if (interactive)
            std::fprintf(stderr, "> ");
        if (!std::getline(std::cin, line))
            return false;
    } while (line.empty());
    return true;
}

}  // namespace inferlens::cli
