#include "tokenizer/regex_splitter.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <new>

#include "core/error.h"

namespace inferlens {

struct RegexSplitter::Compiled {
    std::string expression;  // for messages
    pcre2_code* code = nullptr;
    ~Compiled() { pcre2_code_free(code); }
};

RegexSplitter::RegexSplitter(const std::vector<std::string>& expressions, const std::string& source)
    : source_(source) {
    for (const std::string& expression : expressions) {
        auto compiled = std::make_unique<Compiled>();
        compiled->expression = expression;
        int errorCode = 0;
        PCRE2_SIZE errorOffset = 0;
        compiled->code = pcre2_compile(
            reinterpret_cast<PCRE2_SPTR>(expression.data()), expression.size(),
            PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &errorCode, &errorOffset, nullptr);
        if (compiled->code == nullptr) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(errorCode, message, sizeof message);
            throwFileError(source, "the pre-tokenizer's regular expression '" + expression +
                                       "' does not compile at offset " +
                                       std::to_string(errorOffset) + ": " +
                                       reinterpret_cast<const char*>(message));
        }
        // JIT is an optimisation: where it is unavailable the interpreter gives the same matches.
        pcre2_jit_compile(compiled->code, PCRE2_JIT_COMPLETE);
        expressions_.push_back(std::move(compiled));
    }
}

RegexSplitter::~RegexSplitter() = default;

namespace {

// Splits one piece by one expression, appending to `out`; returns 0 or PCRE2's (negative) error
// code when matching failed.
int splitBy(pcre2_code* code, pcre2_match_data* match, pcre2_match_context* limits,
            std::string_view text, TextPiece piece, std::vector<TextPiece>& out) {
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data() + piece.begin);
    const size_t length = piece.end - piece.begin;
    size_t at = 0;         // where the next search starts
    size_t emittedTo = 0;  // the end of what `out` covers
    while (at < length) {
        const int found = pcre2_match(code, subject, length, at, 0, match, limits);
        if (found == PCRE2_ERROR_NOMATCH)
            break;
        if (found < 0)
            return found;
        const PCRE2_SIZE* span = pcre2_get_ovector_pointer(match);
        const size_t begin = span[0];
        const size_t end = span[1];
        if (end == begin) {  // an empty match cuts nothing; look one character further
            at = begin + 1;
            while (at < length && (uint8_t(text[piece.begin + at]) & 0xC0) == 0x80)
                ++at;
            continue;
        }
        if (begin > emittedTo)
            out.push_back({piece.begin + emittedTo, piece.begin + begin});
        out.push_back({piece.begin + begin, piece.begin + end});
        emittedTo = at = end;
    }
    if (emittedTo < length)
        out.push_back({piece.begin + emittedTo, piece.end});
    return 0;
}

}  // namespace

std::vector<TextPiece> RegexSplitter::split(std::string_view text, TextPiece piece) const {
    std::vector<TextPiece> pieces{piece};
    if (piece.begin == piece.end)
        return pieces;
    // A tokenizer.json brings its own expressions: bound the backtracking of a pathological one
    // so that no text can hang the tokenizer. JIT code keeps its backtracking on a stack of its
    // own, 32 KiB by default, which long runs of repeated groups exhaust; allow it 8 MiB.
    const std::unique_ptr<pcre2_match_context, void (*)(pcre2_match_context*)> limits(
        pcre2_match_context_create(nullptr), pcre2_match_context_free);
    const std::unique_ptr<pcre2_jit_stack, void (*)(pcre2_jit_stack*)> jitStack(
        pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr), pcre2_jit_stack_free);
    if (!limits || !jitStack)
        throw std::bad_alloc();
    pcre2_set_match_limit(limits.get(), 1'000'000);
    pcre2_set_depth_limit(limits.get(), 10'000);
    pcre2_jit_stack_assign(limits.get(), nullptr, jitStack.get());
    for (const auto& expression : expressions_) {
        const std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> match(
            pcre2_match_data_create_from_pattern(expression->code, nullptr), pcre2_match_data_free);
        if (!match)
            throw std::bad_alloc();
        std::vector<TextPiece> next;
        next.reserve(pieces.size() * 2);
        for (const TextPiece& current : pieces)
            if (const int error =
                    splitBy(expression->code, match.get(), limits.get(), text, current, next)) {
                PCRE2_UCHAR message[256];
                pcre2_get_error_message(error, message, sizeof message);
                throwFileError(source_,
                               "the pre-tokenizer's regular expression '" + expression->expression +
                                   "' failed on the text at byte " + std::to_string(current.begin) +
                                   ": " + reinterpret_cast<const char*>(message));
            }
        pieces = std::move(next);
    }
    return pieces;
}

}  // namespace inferlens
