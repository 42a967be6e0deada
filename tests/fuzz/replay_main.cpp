// Without libFuzzer (the usual GCC build): each fuzz target runs once over every file of the
// directories or files it is given — its seed corpus and the regression files of inputs that once
// failed (tests/data/bad/<target>/) — so that CTest keeps them passing and the targets compiling.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void replay(const std::filesystem::path& file, int& count) {
    std::ifstream stream(file, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(stream),
                                  std::istreambuf_iterator<char>()};
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ++count;
}

}  // namespace

int main(int argc, char** argv) {
    int count = 0;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path path(argv[i]);
        if (std::filesystem::is_directory(path)) {
            for (const auto& entry : std::filesystem::recursive_directory_iterator(path))
                if (entry.is_regular_file())
                    replay(entry.path(), count);
        } else if (std::filesystem::exists(path)) {
            replay(path, count);
        }
    }
    std::printf("%d inputs replayed without a crash\n", count);
    return count > 0 ? 0 : 1;
}
