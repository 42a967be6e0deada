#include "tokenizer/pre_tokenizer_table.h"

#include <algorithm>

namespace inferlens {
namespace {

// English contractions, case-insensitive as the tokenizer.json files write them with (?i:...).
constexpr const char* kContractions = R"((?i:'s|'t|'re|'ve|'m|'ll|'d))";

// Characters outside ASCII are written as \x{...}: an editor that normalises Unicode (NFC) would
// otherwise silently change some of them (U+1F7D into U+03CE) and break the ranges.

std::string llama3Like(const char* digits, const char* letters) {
    return std::string(kContractions) + R"(|[^\r\n\p{L}\p{N}]?)" + letters + "|" + digits +
           R"(| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
}

// Words made of an optional upper-case run then lower case (and the reverse), as GPT-4o and
// Mistral's Tekken split camelCase.
std::string casedWords(const char* contractionSuffix, const char* digits) {
    const std::string upper = R"([\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}])";
    const std::string lower = R"([\p{Ll}\p{Lm}\p{Lo}\p{M}])";
    return R"([^\r\n\p{L}\p{N}]?)" + upper + "*" + lower + "+" + contractionSuffix +
           R"(|[^\r\n\p{L}\p{N}]?)" + upper + "+" + lower + "*" + contractionSuffix + "|" + digits +
           R"(| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
}

struct Entry {
    std::vector<std::string_view> names;
    PreTokenizerSpec spec;
};

const std::vector<Entry>& table() {
    static const std::vector<Entry> entries = [] {
        const std::string gpt2(kGpt2Expression);
        const std::string llama3 = llama3Like(R"(\p{N}{1,3})", R"(\p{L}+)");
        std::vector<Entry> list;
        list.push_back(
            {{"default", ""}, {{R"([\p{P}\$\+<=>\^~\|]+)", gpt2, R"(\p{N}+)", "[0-9][0-9][0-9]"}}});
        list.push_back({{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral",
                         "midm-2.0", "lfm2", "jina-v5-nano"},
                        {{llama3}, true, true}});
        list.push_back({{"dbrx", "smaug-bpe"}, {{llama3}}});
        list.push_back({{"chatglm-bpe"}, {{llama3}}});
        list.push_back({{"glm4", "glm5"}, {{llama3}, true}});
        list.push_back(
            {{"deepseek-llm"},
             {{R"([\r\n])",
               R"(\s?[A-Za-z\x{B5}\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{1BA}\x{1BC}-\x{1BF}\x{1C4}-\x{293}\x{295}-\x{2AF}\x{370}-\x{373}\x{376}\x{377}\x{37B}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A}\x{38C}\x{38E}-\x{3A1}\x{3A3}-\x{3F5}\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556}\x{10A0}-\x{10C5}\x{13A0}-\x{13F5}\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF}\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A}\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B}\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC}\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107}\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}\x{212F}-\x{2134}\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2183}\x{2184}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4}\x{2CEB}-\x{2CEE}\x{2CF2}\x{2CF3}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F}\x{A771}-\x{A787}\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{10400}-\x{1044F}\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2}\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}]+)",
               R"(\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3000}-\x{3002}]+)",
               R"(\s+$)", R"([\x{4E00}-\x{9FA5}\x{800}-\x{4E00}\x{AC00}-\x{D7FF}]+)",
               R"(\p{N}+)"}}});
        list.push_back(
            {{"deepseek-v3", "hunyuan-dense", "joyai-llm", "hy_v4"},
             {{R"(\p{N}{1,3})", R"([\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+)",
               R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"}}});
        list.push_back(
            {{"deepseek-coder"},
             {{R"([\r\n])", R"(\s?\p{L}+)", R"(\s?\p{P}+)",
               R"([\x{4E00}-\x{9FA5}\x{800}-\x{4E00}\x{AC00}-\x{D7FF}]+)", R"(\p{N})"}}});
        list.push_back({{"falcon"}, {{R"([\p{P}\$\+<=>\^~\|`]+)", gpt2, "[0-9][0-9][0-9]"}}});
        list.push_back({{"starcoder", "refact", "command-r", "smollm", "codeshell", "exaone",
                         "minerva-7b", "mellum2"},
                        {{R"(\p{N})", gpt2}}});
        list.push_back(
            {{"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de",
              "a.x-4.0", "mellum", "modern-bert", "mpt", "olmo", "jais", "trillion",
              "granite-docling", "exaone4", "jina-v1-en", "jina-v2-code", "roberta-bpe"},
             {{gpt2}}});
        list.push_back({{"qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "stablelm2", "hunyuan",
                         "solar-open", "megrez"},
                        {{llama3Like(R"(\p{N})", R"(\p{L}+)")}}});
        list.push_back(
            {{"qwen35"},
             {{std::string(kContractions) +
               R"(|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"}}});
        list.push_back(
            {{"poro-chat", "bloom", "gpt3-finnish"},
             {{R"( ?[^(\s|.,!?\x{2026}\x{3002}\x{FF0C}\x{3001}\x{964}\x{6D4}\x{60C})]+)"}}});
        list.push_back({{"viking"},
                        {{R"( ?[^(\s|.,!?\x{2026}\x{3002}\x{FF0C}\x{3001}\x{964}\x{6D4}\x{60C})]+)",
                          R"(\p{N})"}}});
        list.push_back({{"tekken"}, {{casedWords("", R"(\p{N})")}, true, true}});
        list.push_back({{"gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2"},
                        {{casedWords("(?i:'s|'t|'re|'ve|'m|'ll|'d)?", R"(\p{N}{1,3})")}}});
        return list;
    }();
    return entries;
}

}  // namespace

std::optional<PreTokenizerSpec> preTokenizerByName(std::string_view name) {
    for (const Entry& entry : table())
        if (std::find(entry.names.begin(), entry.names.end(), name) != entry.names.end())
            return entry.spec;
    return std::nullopt;
}

std::string knownPreTokenizerNames() {
    std::string names;
    for (const Entry& entry : table())
        for (const std::string_view name : entry.names)
            if (!name.empty())
                names += (names.empty() ? "" : ", ") + std::string(name);
    return names;
}

}  // namespace inferlens
