#pragma once
// strftime_now's formatting, as Python's datetime.strftime writes it in the C locale (English
// month and day names), without reading the process locale.

#include <ctime>
#include <string>

namespace inferlens::jinja {

std::string formatTime(const std::string& format, const std::tm& time);

}  // namespace inferlens::jinja
