#include "sampling/stop_strings.h"

#include <algorithm>

#include "core/error.h"

namespace inferlens {

StopStrings::StopStrings(std::vector<std::string> stops) : stops_(std::move(stops)) {
    for (const std::string& stop : stops_)
        if (stop.empty())
            throw Error("a stop string must not be empty");
}

std::string StopStrings::push(std::string_view text) {
    if (stopped_)
        return {};
    pending_ += text;
    // The earliest occurrence of any stop string ends the text. None can start in the text already
    // shown: a suffix that could have begun one was held back.
    size_t stopAt = std::string::npos;
    for (const std::string& stop : stops_)
        stopAt = std::min(stopAt, pending_.find(stop));
    if (stopAt != std::string::npos) {
        stopped_ = true;
        std::string shown = pending_.substr(0, stopAt);
        pending_.clear();
        return shown;
    }
    // Hold back the longest suffix that is a proper prefix of a stop string.
    size_t held = 0;
    for (const std::string& stop : stops_) {
        for (size_t length = std::min(stop.size() - 1, pending_.size()); length > held; --length) {
            if (pending_.compare(pending_.size() - length, length, stop, 0, length) == 0) {
                held = length;
                break;
            }
        }
    }
    std::string shown = pending_.substr(0, pending_.size() - held);
    pending_.erase(0, pending_.size() - held);
    return shown;
}

std::string StopStrings::flush() {
    std::string rest;
    rest.swap(pending_);
    return rest;
}

void StopStrings::reset() {
    pending_.clear();
    stopped_ = false;
}

}  // namespace inferlens
