#pragma once
// Chooses tokens with the sampler and prints each one as soon as it is chosen: as text (only whole
// UTF-8 characters, specials and stop tokens left out), or as one JSON object per step with its
// sampling trace. With stop strings, text that may begin one is held back until it is known not to,
// and the generation ends where one appears (it is not printed).

#include <cstdio>
#include <string>
#include <unordered_set>
#include <vector>

#include "sampling/sampler_chooser.h"
#include "sampling/stop_strings.h"
#include "tokenizer/streaming_detokenizer.h"
#include "tokenizer/tokenizer.h"

namespace inferlens::cli {

class TokenPrinter final : public SamplerChooser {
  public:
    // `out` null: print nothing (the caller only wants the stop strings honoured).
    TokenPrinter(Sampler& sampler, const Tokenizer& tokenizer, std::FILE* out, bool json,
                 std::vector<std::string> stopStrings = {});

    int32_t choose(std::span<const float> logits, std::span<const int32_t> history,
                   bool traced) override;
    bool stopRequested() const override { return stops_.stopped(); }
    // Prints what the detokenizer still holds; returns the text of every token chosen so far.
    std::string finish();

  private:
    const Tokenizer& tokenizer_;
    StreamingDetokenizer detokenizer_;
    StopStrings stops_;
    std::FILE* out_;
    bool json_;
    int64_t step_ = 0;
    std::string text_;
};

}  // namespace inferlens::cli
