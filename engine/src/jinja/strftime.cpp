#include "jinja/strftime.h"

#include <cstdio>

#include "jinja/jinja_error.h"

namespace inferlens::jinja {
namespace {

constexpr const char* kMonths[] = {"January",   "February", "March",    "April",
                                   "May",       "June",     "July",     "August",
                                   "September", "October",  "November", "December"};
constexpr const char* kDays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                 "Thursday", "Friday", "Saturday"};

std::string number(int value, int width, bool pad) {
    char buffer[16];
    if (pad)
        std::snprintf(buffer, sizeof buffer, "%0*d", width, value);
    else
        std::snprintf(buffer, sizeof buffer, "%d", value);
    return buffer;
}

}  // namespace

std::string formatTime(const std::string& format, const std::tm& t) {
    std::string out;
    for (size_t i = 0; i < format.size(); ++i) {
        if (format[i] != '%' || i + 1 >= format.size()) {
            out += format[i];
            continue;
        }
        char c = format[++i];
        bool pad = true;
        if (c == '-' && i + 1 < format.size()) {  // glibc's "%-d": no padding
            pad = false;
            c = format[++i];
        }
        const int month = ((t.tm_mon % 12) + 12) % 12;
        const int weekday = ((t.tm_wday % 7) + 7) % 7;
        switch (c) {
            case 'Y':
                out += std::to_string(t.tm_year + 1900);
                break;
            case 'y':
                out += number((t.tm_year + 1900) % 100, 2, pad);
                break;
            case 'm':
                out += number(month + 1, 2, pad);
                break;
            case 'd':
                out += number(t.tm_mday, 2, pad);
                break;
            case 'e':
                out += number(t.tm_mday, 2, false).insert(0, t.tm_mday < 10 && pad ? " " : "");
                break;
            case 'j':
                out += number(t.tm_yday + 1, 3, pad);
                break;
            case 'H':
                out += number(t.tm_hour, 2, pad);
                break;
            case 'I':
                out += number(t.tm_hour % 12 == 0 ? 12 : t.tm_hour % 12, 2, pad);
                break;
            case 'M':
                out += number(t.tm_min, 2, pad);
                break;
            case 'S':
                out += number(t.tm_sec, 2, pad);
                break;
            case 'p':
                out += t.tm_hour < 12 ? "AM" : "PM";
                break;
            case 'B':
                out += kMonths[month];
                break;
            case 'b':
            case 'h':
                out += std::string(kMonths[month]).substr(0, 3);
                break;
            case 'A':
                out += kDays[weekday];
                break;
            case 'a':
                out += std::string(kDays[weekday]).substr(0, 3);
                break;
            case '%':
                out += '%';
                break;
            default:
                throw RuntimeProblem(std::string("strftime_now: unsupported directive '%") + c +
                                     "'");
        }
    }
    return out;
}

}  // namespace inferlens::jinja
