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
};

inline thread_local BuildLimits currentBuildLimits;

// Sets this thread's limits until it goes out of scope.
class BuildLimitsScope {
  public:
    explicit BuildLimitsScope(BuildLimits limits) : saved_(currentBuildLimits) {
        currentBuildLimits = limits;
    }
    ~BuildLimitsScope() { currentBuildLimits = saved_; }
    BuildLimitsScope(const BuildLimitsScope&) = delete;
    BuildLimitsScope& operator=(const BuildLimitsScope&) = delete;

  private:
    BuildLimits saved_;
};

inline void checkTextSize(size_t bytes) {
    if (bytes > currentBuildLimits.maxTextBytes)
        throw RuntimeProblem("the text would exceed " +
                             std::to_string(currentBuildLimits.maxTextBytes) + " bytes");
}

inline void checkListSize(size_t items) {
    if (items > currentBuildLimits.maxListItems)
        throw RuntimeProblem("the list would exceed " +
                             std::to_string(currentBuildLimits.maxListItems) + " items");
}

}  // namespace inferlens::jinja
