#include "token_printer.h"

#include "trace/trace_json.h"

namespace inferlens::cli {

TokenPrinter::TokenPrinter(Sampler& sampler, const Tokenizer& tokenizer, std::FILE* out, bool json)
    : SamplerChooser(sampler),
      tokenizer_(tokenizer),
      detokenizer_(tokenizer),
      out_(out),
      json_(json) {}

int32_t TokenPrinter::choose(std::span<const float> logits, std::span<const int32_t> history,
                             bool traced) {
    const int32_t id = SamplerChooser::choose(logits, history, traced || json_);
    const std::string text = detokenizer_.push(id);
    text_ += text;
    if (json_) {
        const nlohmann::json step{{"step", step_},
                                  {"token", id},
                                  {"piece", tokenizer_.piece(id)},
                                  {"text", text},
                                  {"sampling", toJson(*lastTrace())}};
        std::fprintf(out_, "%s\n",
                     step.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else {
        std::fputs(text.c_str(), out_);
    }
    std::fflush(out_);
    ++step_;
    return id;
}

std::string TokenPrinter::finish() {
    const std::string rest = detokenizer_.flush();
    text_ += rest;
    if (!json_)
        std::fputs(rest.c_str(), out_);
    std::fflush(out_);
    return text_;
}

}  // namespace inferlens::cli
