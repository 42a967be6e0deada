#include "remote/sse_parser.h"

#include "core/error.h"

namespace inferlens::remote {

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

}  // namespace

std::vector<SseEvent> SseParser::feed(std::string_view bytes) {
    std::vector<SseEvent> events;
    if (startOfStream_) {
        // The mark may arrive cut; wait until three bytes (or a mismatch) decide.
        line_.append(bytes);
        if (line_.size() < kByteOrderMark.size() && kByteOrderMark.starts_with(line_))
            return events;
        startOfStream_ = false;
        std::string pending;
        pending.swap(line_);
        std::string_view rest = pending;
        if (rest.starts_with(kByteOrderMark))
            rest.remove_prefix(kByteOrderMark.size());
        return feed(rest);
    }
    for (size_t i = 0; i < bytes.size() && !done_; ++i) {
        const char c = bytes[i];
        if (c == '\n' && lastByteWasCr_) {
            lastByteWasCr_ = false;
            continue;
        }
        lastByteWasCr_ = c == '\r';
        if (c == '\n' || c == '\r') {
            processLine(line_, events);
            line_.clear();
            continue;
        }
        // Copy up to the next line break in one go rather than byte by byte.
        const size_t end = bytes.find_first_of("\r\n", i);
        const size_t count = (end == std::string_view::npos ? bytes.size() : end) - i;
        if (line_.size() + count > kMaximumLineBytes)
            throw Error("the server sent an event-stream line longer than " +
                        std::to_string(kMaximumLineBytes >> 20) + " MiB");
        line_.append(bytes.substr(i, count));
        i += count - 1;
    }
    return events;
}

bool SseParser::hasPartialEvent() const {
    return !done_ && (!line_.empty() || hasData_);
}

void SseParser::processLine(std::string_view line, std::vector<SseEvent>& events) {
    if (line.empty()) {
        dispatch(events);
        return;
    }
    if (line.front() == ':')
        return;
    const size_t colon = line.find(':');
    const std::string_view field = line.substr(0, colon);
    std::string_view value =
        colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (value.starts_with(' '))
        value.remove_prefix(1);
    if (field == "data" || field == "error") {
        if (field == "error")
            eventName_ = "error";
        if (hasData_)
            data_ += '\n';
        data_.append(value);
        hasData_ = true;
    } else if (field == "event") {
        eventName_ = value;
    }
}

void SseParser::dispatch(std::vector<SseEvent>& events) {
    if (hasData_) {
        SseEvent event;
        if (!eventName_.empty())
            event.name = eventName_;
        event.data = std::move(data_);
        event.done = event.data == "[DONE]";
        done_ = event.done;
        events.push_back(std::move(event));
    }
    eventName_.clear();
    data_.clear();
    hasData_ = false;
}

}  // namespace inferlens::remote
