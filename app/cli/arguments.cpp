#include "arguments.h"

#include <charconv>
#include <limits>

#include "models/default_model.h"

namespace inferlens::cli {
namespace {

int64_t parseInteger(const std::string& name, const std::string& text) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size())
        throw UsageError("--" + name + ": '" + text + "' is not an integer");
    return value;
}

}  // namespace

Arguments::Arguments(const std::vector<std::string>& words,
                     const std::set<std::string>& valueOptions,
                     const std::set<std::string>& flags) {
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        if (word.rfind("--", 0) != 0)
            throw UsageError("unexpected argument '" + word + "'");
        const std::string name = word.substr(2);
        if (flags.count(name)) {
            flags_.insert(name);
        } else if (valueOptions.count(name)) {
            if (i + 1 >= words.size())
                throw UsageError(word + " needs a value");
            if (kRepeatable.count(name))
                repeated_[name].push_back(words[++i]);
            else if (!values_.emplace(name, words[++i]).second)
                throw UsageError(word + " is given twice");
        } else {
            throw UsageError("unknown option " + word);
        }
    }
}

const std::set<std::string> Arguments::kRepeatable = {"logit-bias", "ban", "stop"};

std::vector<std::string> Arguments::values(const std::string& name) const {
    const auto found = repeated_.find(name);
    return found == repeated_.end() ? std::vector<std::string>{} : found->second;
}

std::optional<std::string> Arguments::value(const std::string& name) const {
    const auto found = values_.find(name);
    if (found == values_.end())
        return std::nullopt;
    return found->second;
}

std::string Arguments::required(const std::string& name) const {
    const auto found = value(name);
    if (!found)
        throw UsageError("--" + name + " is required");
    return *found;
}

int64_t Arguments::integer(const std::string& name, int64_t fallback) const {
    const auto text = value(name);
    return text ? parseInteger(name, *text) : fallback;
}

double Arguments::number(const std::string& name, double fallback) const {
    const auto text = value(name);
    if (!text)
        return fallback;
    try {
        size_t used = 0;
        const double result = std::stod(*text, &used);
        if (used == text->size())
            return result;
    } catch (const std::exception&) {
    }
    throw UsageError("--" + name + ": '" + *text + "' is not a number");
}

std::string Arguments::modelPath() const {
    if (const auto model = value("model"))
        return *model;
    return findDefaultModel();
}

std::optional<DType> Arguments::dtype(const std::string& name) const {
    const auto text = value(name);
    if (!text)
        return std::nullopt;
    const auto parsed = dtypeFromName(*text);
    if (!parsed)
        throw UsageError("--" + name + ": '" + *text +
                         "' is not one of f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q4_k, "
                         "q5_k, q6_k");
    return parsed;
}

std::optional<ModelFormat> Arguments::format(const std::string& name) const {
    const auto text = value(name);
    if (!text)
        return std::nullopt;
    if (*text == "gguf")
        return ModelFormat::Gguf;
    if (*text == "hf")
        return ModelFormat::HuggingFace;
    throw UsageError("--" + name + ": '" + *text + "' is not one of gguf, hf");
}

std::vector<int32_t> Arguments::integerList(const std::string& name) const {
    const std::string text = required(name);
    std::vector<int32_t> list;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const int64_t item = parseInteger(name, text.substr(start, comma - start));
        if (item < std::numeric_limits<int32_t>::min() ||
            item > std::numeric_limits<int32_t>::max())
            throw UsageError("--" + name + ": " + std::to_string(item) + " is out of range");
        list.push_back(int32_t(item));
        start = comma + 1;
    }
    return list;
}

}  // namespace inferlens::cli
