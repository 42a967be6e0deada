#include "tokenizer/end_of_generation.h"

#include <algorithm>
#include <array>

namespace inferlens {

bool isEndOfGenerationName(std::string_view piece) {
    // As llama.cpp's vocabulary loader lists them (src/llama-vocab.cpp), less "</s>", which it
    // counts only for one model and which is the declared eos wherever it ends generation.
    static constexpr std::array<std::string_view, 21> kNames = {"<|eot_id|>",
                                                                "<|im_end|>",
                                                                "<|end|>",
                                                                "<|return|>",
                                                                "<|call|>",
                                                                "<|flush|>",
                                                                "<|calls|>",
                                                                "<end_of_turn>",
                                                                "<|endoftext|>",
                                                                "<|eom_id|>",
                                                                "<EOT>",
                                                                "_<EOT>",
                                                                "[EOT]",
                                                                "[EOS]",
                                                                "<|end_of_text|>",
                                                                "<end_of_utterance>",
                                                                "<eos>",
                                                                "<turn|>",
                                                                "<|tool_response>",
                                                                "<｜end▁of▁sentence｜>",
                                                                "[e~["};
    return std::find(kNames.begin(), kNames.end(), piece) != kNames.end();
}

std::vector<int32_t> endOfGenerationIds(const std::vector<VocabEntry>& entries,
                                        const std::vector<int64_t>& declared) {
    std::vector<int32_t> ids;
    const auto add = [&](int64_t id) {
        if (id >= 0 && id < int64_t(entries.size()) &&
            std::find(ids.begin(), ids.end(), int32_t(id)) == ids.end())
            ids.push_back(int32_t(id));
    };
    for (const int64_t id : declared)
        add(id);
    for (size_t id = 0; id < entries.size(); ++id)
        if (isEndOfGenerationName(entries[id].piece))
            add(int64_t(id));
    return ids;
}

}  // namespace inferlens
