#pragma once
// Command-line options of one subcommand: "--name value" pairs and bare "--flag"s. Every option a
// command does not declare is an error, so a typo never silently falls back to a default.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "models/model_files.h"

namespace inferlens::cli {

// Wrong use of the command line (exit code 2), as opposed to a failure of the work (exit code 1).
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Arguments {
  public:
    Arguments(const std::vector<std::string>& words, const std::set<std::string>& valueOptions,
              const std::set<std::string>& flags);

    bool flag(const std::string& name) const { return flags_.count(name) != 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::string required(const std::string& name) const;
    int64_t integer(const std::string& name, int64_t fallback) const;
    double number(const std::string& name, double fallback) const;
    std::vector<int32_t> integerList(const std::string& name) const;  // "1,2,3"
    // Every value of an option that may be given more than once (kRepeatable), in order.
    std::vector<std::string> values(const std::string& name) const;
    static const std::set<std::string> kRepeatable;  // --logit-bias, --ban, --stop

    // --model, or the default model (INFERLENS_MODEL, then the bundled one).
    std::string modelPath() const;
    std::optional<DType> dtype(const std::string& name) const;  // f32, f16, bf16, q8_0 … q6_k
    std::optional<ModelFormat> format(const std::string& name) const;  // gguf | hf

  private:
    std::map<std::string, std::string> values_;
    std::map<std::string, std::vector<std::string>> repeated_;
    std::set<std::string> flags_;
};

}  // namespace inferlens::cli
