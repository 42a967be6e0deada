#pragma once
// An incremental parser of server-sent events (the WHATWG HTML "event stream" format), which
// OpenAI-compatible servers use for streamed answers: bytes go in however the network cut them,
// whole events come out.
//
// What it follows from the format: lines end in LF, CRLF or CR (also when a CRLF is split across
// two chunks); "data:" lines of one event are joined with "\n"; "event:" names the event;
// lines starting with ":" are comments (keep-alives); one space after the colon is dropped;
// "id:" and "retry:" are accepted and ignored; a blank line ends an event; an event without data is
// not dispatched; a byte order mark at the very start is skipped.
//
// What it adds for the servers we talk to:
//   - an event whose data is exactly "[DONE]" (OpenAI's end sentinel) ends the stream: it is
//     reported with `done` set, and later bytes are ignored;
//   - llama-server (b4747 and near it) reports a failure mid-stream as a line "error: {json}",
//     not as a "data:" line; the format would drop that unknown field, we report it as an event
//     named "error" with that text as its data.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace inferlens::remote {

struct SseEvent {
    std::string name = "message";  // the "event:" field, "message" when absent
    std::string data;              // "data:" lines joined with "\n"
    bool done = false;             // the "[DONE]" sentinel: no event follows
};

class SseParser {
  public:
    // A line longer than this ends parsing with an Error: a server that never sends a newline must
    // not grow our memory without bound.
    static constexpr size_t kMaximumLineBytes = 16 << 20;

    // Parses `bytes` and returns the events they complete, in order. Throws inferlens::Error when a
    // line exceeds kMaximumLineBytes.
    std::vector<SseEvent> feed(std::string_view bytes);

    // Whether "[DONE]" was seen.
    bool done() const { return done_; }
    // Whether bytes of an unfinished event are pending: at the end of the stream this means the
    // server stopped mid-event (the format says to drop such an event, and we do).
    bool hasPartialEvent() const;

  private:
    void processLine(std::string_view line, std::vector<SseEvent>& events);
    void dispatch(std::vector<SseEvent>& events);

    std::string line_;            // bytes of the current line, without its terminator
    bool lastByteWasCr_ = false;  // a following LF belongs to the same line break
    bool startOfStream_ = true;   // for the byte order mark
    std::string eventName_;
    std::string data_;
    bool hasData_ = false;
    bool done_ = false;
};

}  // namespace inferlens::remote
