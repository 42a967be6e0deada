#pragma once
// Bytes that arrive one at a time (byte-fallback pieces) given back as complete UTF-8 characters,
// exactly as sentencepiece's decode would write the whole run: a byte that cannot be part of a
// valid character becomes U+FFFD as soon as that is certain, and bytes of a character that never
// completes become U+FFFD, one per byte. Shared by StreamingDetokenizer and the GUI's trace reader,
// which has no tokenizer but the same byte runs.

#include <cstdint>
#include <string>

namespace inferlens {

class Utf8Assembler {
  public:
    // The text that `byte` makes decidable: empty while a character's bytes are still arriving.
    std::string push(uint8_t byte);
    // The end of the run: the bytes still held, each as U+FFFD. Leaves the assembler empty.
    std::string flush();
    bool holding() const { return !pending_.empty(); }

  private:
    // The decidable prefix of pending_; with `final`, all of it.
    std::string drain(bool final);

    std::string pending_;  // bytes of a character not yet complete
};

}  // namespace inferlens
