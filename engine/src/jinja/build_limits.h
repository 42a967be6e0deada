#pragma once
// The size limits of the rendering running on this thread, for the builders deep inside filters,
// methods and operators (replace, indent, join, tojson, split, iteration, list + and *): each
// checks as it grows, so no result is built whole before its size is known. The evaluator sets
// them for the length of a render; outside one, RenderLimits' defaults apply.

#include <cstddef>
#include <string>

#include "jinja/jinja_error.h"

namespace inferlens::jinja {

struct BuildLimits {
    size_t maxTextBytes = size_t(16) << 20;
    size_t maxListItems = 1'000'000;
    size_t maxBytesMade = 0;  // all strings and lists made, summed; 0: not counted (no render)
};

inline thread_local BuildLimits currentBuildLimits;
inline thread_local size_t bytesMade = 0;

// Sets this thread's limits until it goes out of scope.
class BuildLimitsScope {
  public:
    explicit BuildLimitsScope(BuildLimits limits)
        : saved_(currentBuildLimits), savedBytesMade_(bytesMade) {
        currentBuildLimits = limits;
        bytesMade = 0;
    }
    ~BuildLimitsScope() {
        currentBuildLimits = saved_;
        bytesMade = savedBytesMade_;
    }
    BuildLimitsScope(const BuildLimitsScope&) = delete;
    BuildLimitsScope& operator=(const BuildLimitsScope&) = delete;

  private:
    BuildLimits saved_;
    size_t savedBytesMade_;
};

inline void checkTextSize(size_t bytes) {
    if (bytes > currentBuildLimits.maxTextBytes)
        throw RuntimeProblem("the text would exceed " +
                             std::to_string(currentBuildLimits.maxTextBytes) + " bytes");
}

// Each string and list a value is made of counts, whether it is still alive or not: many values
// each under the size limits must not add up to all of memory.
inline void chargeBytesMade(size_t bytes) {
    if (currentBuildLimits.maxBytesMade == 0)
        return;
    bytesMade += bytes;
    if (bytesMade > currentBuildLimits.maxBytesMade)
        throw RuntimeProblem("the template makes more than " +
                             std::to_string(currentBuildLimits.maxBytesMade) +
                             " bytes of strings and lists");
}

inline void checkListSize(size_t items) {
    if (items > currentBuildLimits.maxListItems)
        throw RuntimeProblem("the list would exceed " +
                             std::to_string(currentBuildLimits.maxListItems) + " items");
}

}  // namespace inferlens::jinja
