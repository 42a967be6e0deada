#pragma once
// Stop strings: a generation ends where its text first contains one of them, at that exact byte,
// however the tokens split it. Text passes through as it streams, holding back only the bytes that
// might begin a stop string (the longest suffix of the text so far that is a prefix of one), so the
// stop string itself, and anything after it, is never shown.

#include <string>
#include <string_view>
#include <vector>

namespace inferlens {

class StopStrings {
  public:
    // Throws Error for an empty stop string (it would stop before the first byte).
    explicit StopStrings(std::vector<std::string> stops = {});

    bool empty() const { return stops_.empty(); }
    const std::vector<std::string>& strings() const { return stops_; }

    // Appends generated text and returns what may be shown now. Once a stop string appears,
    // stopped() is true and the text returned ends right before it; later pushes return nothing.
    std::string push(std::string_view text);
    // The bytes held back, when the generation ended without a stop string; then empty.
    std::string flush();
    bool stopped() const { return stopped_; }
    // Forgets the text so far (a new generation).
    void reset();

  private:
    std::vector<std::string> stops_;
    std::string pending_;  // a suffix that may begin a stop string
    bool stopped_ = false;
};

}  // namespace inferlens
