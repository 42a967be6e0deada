#pragma once
// The regular-expression splits of a byte-level BPE pre-tokenizer, through PCRE2 (UTF + UCP, so
// \p{L}, \s and friends are Unicode's, with JIT). Several expressions apply in turn, each to the
// pieces the one before left; every piece is cut into its matches and the text between them, and
// both are kept (Hugging Face's "Isolated" split, as llama.cpp's unicode_regex_split does).
// Invalid UTF-8 never matches, so its bytes stay in the pieces between matches.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace inferlens {

struct TextPiece {
    size_t begin = 0;
    size_t end = 0;
};

class RegexSplitter {
  public:
    // Throws Error naming `source` and the expression when one does not compile.
    RegexSplitter(const std::vector<std::string>& expressions, const std::string& source);
    ~RegexSplitter();
    RegexSplitter(const RegexSplitter&) = delete;
    RegexSplitter& operator=(const RegexSplitter&) = delete;

    // The pieces of text[piece.begin, piece.end), in order, covering it without gaps. Throws
    // Error naming the source and the expression when matching fails (a pathological expression
    // past the backtracking limits) rather than leaving text unsplit.
    std::vector<TextPiece> split(std::string_view text, TextPiece piece) const;

  private:
    struct Compiled;
    std::vector<std::unique_ptr<Compiled>> expressions_;
    std::string source_;
};

}  // namespace inferlens
