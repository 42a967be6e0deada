#include "token_printer.h"

#include "trace/trace_json.h"

namespace inferlens::cli {

TokenPrinter::TokenPrinter(Sampler& sampler, const Tokenizer& tokenizer, std::FILE* out, bool json,
                           std::vector<std::string> stopStrings)
    : SamplerChooser(sampler),
      tokenizer_(tokenizer),
      detokenizer_(tokenizer),
      stops_(std::move(stopStrings)),
      out_(out),
      json_(json) {}

int32_t TokenPrinter::choose(std::span<const float> logits, std::span<const int32_t> history,
                             bool traced) {
    const int32_t id = SamplerChooser::choose(logits, history, traced || json_);
    const std::string text = stops_.push(detokenizer_.push(id));
    text_ += text;
    if (json_) {
        const nlohmann::json step{{"step", step_},
                                  {"token", id},
                                  {"piece", tokenizer_.piece(id)},
                                  {"text", text},
                                  {"sampling", toJson(*lastTrace())}};
        std::fprintf(out_, "%s\n",
                     step.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else if (out_ != nullptr) {
        std::fputs(text.c_str(), out_);
    }
    if (out_ != nullptr)
        std::fflush(out_);
    ++step_;
    return id;
}

std::string TokenPrinter::finish() {
    std::string rest = stops_.push(detokenizer_.flush());
    rest += stops_.flush();
    text_ += rest;
    if (!json_ && out_ != nullptr) {
        std::fputs(rest.c_str(), out_);
        std::fflush(out_);
    }
    return text_;
}

}  // namespace inferlens::cli
