#pragma once
// Every error of the Jinja interpreter, when parsing or rendering, names where in the template it
// happened: "chat template, line 3, column 14: unknown filter 'shout'".

#include <string>

#include "core/error.h"

namespace inferlens::jinja {

struct SourcePosition {
    int line = 1;
    int column = 1;  // in characters, from 1
};

class JinjaError : public Error {
  public:
    JinjaError(const std::string& templateName, SourcePosition where, const std::string& problem);

    SourcePosition where() const { return where_; }
    const std::string& problem() const { return problem_; }

  private:
    SourcePosition where_;
    std::string problem_;
};

// A failure found where the position is not at hand (a filter's argument check); the evaluator
// rethrows it as a JinjaError at the node it was evaluating.
class RuntimeProblem : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace inferlens::jinja
