#include "jinja/jinja_error.h"

namespace inferlens::jinja {

JinjaError::JinjaError(const std::string& templateName, SourcePosition where,
                       const std::string& problem)
    : Error(templateName + ", line " + std::to_string(where.line) + ", column " +
            std::to_string(where.column) + ": " + problem),
      where_(where),
      problem_(problem) {}

}  // namespace inferlens::jinja
