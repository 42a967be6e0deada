#pragma once
// Text that remembers, byte by byte, whether it came from the conversation (what a person typed)
// or from the template itself. A chat template's own "<|im_start|>" becomes a special token; the
// same characters typed into a message must stay text. So every string the interpreter handles
// carries this mark through concatenation, slicing and trimming, and whatever is computed from
// user text in any other way (upper(), replace(), tojson ...) counts as user text as a whole.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace inferlens::jinja {

class TaggedText {
  public:
    TaggedText() = default;
    explicit TaggedText(std::string text, bool fromUser = false);

    const std::string& text() const { return text_; }
    size_t size() const { return text_.size(); }
    bool empty() const { return text_.empty(); }

    bool userAt(size_t byte) const { return !user_.empty() && user_[byte] != 0; }
    bool anyUser() const;

    void append(const TaggedText& other);
    void append(std::string_view templateText);
    // Bytes [begin, begin + length), marks kept.
    TaggedText slice(size_t begin, size_t length) const;
    // `text` marked as user text everywhere when any byte of `source` is.
    static TaggedText derived(std::string text, const TaggedText& source);

  private:
    std::string text_;
    std::vector<uint8_t> user_;  // one mark a byte; empty while no byte is user text
};

}  // namespace inferlens::jinja
