#include "models/default_model.h"

#include <cstdlib>
#include <filesystem>

#include "core/error.h"

namespace inferlens {
namespace fs = std::filesystem;
namespace {

// A Hugging Face directory: config.json, model.safetensors, tokenizer.model (tools/train_nano).
constexpr const char* kBundledModelName = "inferlens-nano";

fs::path executableDirectory() {
    std::error_code error;
    const fs::path executable = fs::read_symlink("/proc/self/exe", error);
    return error ? fs::path() : executable.parent_path();
}

}  // namespace

std::vector<std::string> defaultModelCandidates() {
    std::vector<std::string> candidates;
    // Relocated installs: <prefix>/bin/inferlens-cli → <prefix>/share/inferlens/models.
    const fs::path here = executableDirectory();
    if (!here.empty())
        candidates.push_back(
            (here.parent_path() / "share/inferlens/models" / kBundledModelName).string());
    // The build tree (set at configure time to the source tree's resources) and the install prefix.
    candidates.push_back(std::string(INFERLENS_BUILD_TREE_MODELS) + "/" + kBundledModelName);
    candidates.push_back(std::string(INFERLENS_INSTALLED_MODELS) + "/" + kBundledModelName);
    return candidates;
}

std::string findDefaultModel() {
    // A model the user named is used as named: a wrong path must fail, not fall back silently.
    if (const char* fromEnvironment = std::getenv("INFERLENS_MODEL");
        fromEnvironment != nullptr && *fromEnvironment != '\0')
        return fromEnvironment;
    const std::vector<std::string> candidates = defaultModelCandidates();
    std::string tried;
    for (const std::string& candidate : candidates) {
        std::error_code error;
        if (fs::exists(candidate, error))
            return candidate;
        tried += (tried.empty() ? "" : ", ") + candidate;
    }
    throw Error("no model given (--model PATH or INFERLENS_MODEL) and no bundled model at " +
                tried);
}

}  // namespace inferlens
