#pragma once
// What every fuzz target shares: the input as a file (the readers map files; tmpfs keeps this
// cheap), and the one outcome a bad input may have besides success — inferlens::Error. Any other
// exception, a crash, a leak or a sanitizer report is a finding.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace inferlens::fuzz {

// A file named once per process (its suffix matters to some readers), rewritten for each input.
class InputFile {
  public:
    explicit InputFile(const std::string& suffix) {
        const char* directory = std::getenv("TMPDIR");
        const std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                                 : directory != nullptr        ? directory
                                                               : "/tmp";
        path_ = base + "/inferlens-fuzz-" + std::to_string(getpid()) + suffix;
    }
    ~InputFile() { std::remove(path_.c_str()); }

    const std::string& write(const uint8_t* data, size_t size) {
        std::FILE* file = std::fopen(path_.c_str(), "wb");
        if (file == nullptr || (size > 0 && std::fwrite(data, 1, size, file) != size))
            std::abort();  // the machine's problem, not the input's
        std::fclose(file);
        return path_;
    }

  private:
    std::string path_;
};

}  // namespace inferlens::fuzz
