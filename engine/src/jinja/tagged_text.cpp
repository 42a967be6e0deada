#include "jinja/tagged_text.h"

#include <algorithm>

namespace inferlens::jinja {

TaggedText::TaggedText(std::string text, bool fromUser) : text_(std::move(text)) {
    if (fromUser && !text_.empty())
        user_.assign(text_.size(), 1);
}

bool TaggedText::anyUser() const {
    return std::find(user_.begin(), user_.end(), 1) != user_.end();
}

void TaggedText::append(const TaggedText& other) {
    if (!other.user_.empty()) {
        user_.resize(text_.size(), 0);
        user_.insert(user_.end(), other.user_.begin(), other.user_.end());
    } else if (!user_.empty()) {
        user_.resize(text_.size() + other.text_.size(), 0);
    }
    text_ += other.text_;
}

void TaggedText::append(std::string_view templateText) {
    text_ += templateText;
    if (!user_.empty())
        user_.resize(text_.size(), 0);
}

TaggedText TaggedText::slice(size_t begin, size_t length) const {
    begin = std::min(begin, text_.size());
    length = std::min(length, text_.size() - begin);
    TaggedText result;
    result.text_ = text_.substr(begin, length);
    if (!user_.empty())
        result.user_.assign(user_.begin() + long(begin), user_.begin() + long(begin + length));
    return result;
}

TaggedText TaggedText::derived(std::string text, const TaggedText& source) {
    return TaggedText(std::move(text), source.anyUser());
}

}  // namespace inferlens::jinja
