#pragma once
// A Jinja template, parsed once and rendered with variables: the interpreter of the subset of
// Jinja that chat templates use, configured as Hugging Face transformers renders them (trim_blocks,
// lstrip_blocks, loop controls, {% generation %}, its tojson, raise_exception, strftime_now).
//
//   jinja::Template chat(source, "the model's chat template");
//   jinja::TaggedText text = chat.render({{"messages", ...}, {"add_generation_prompt", true}});
//
// Every error, from parsing or rendering, is a JinjaError naming the template, line and column.
// Templates come from downloaded files, so both are bounded. Parsing: 200 levels of brackets and
// statements, expression trees 500 deep (long chains a + b + ..., x|f|g, x[0][0]). Rendering: the
// RenderLimits below (steps and wall-clock time; nesting and macro depth; bytes of any one string
// and items of any one list, checked as each builder grows; all strings and lists made, summed),
// lists and dicts 1000 levels inside each other. Not counted in maxBytesMade: the output and a
// builder's partial result (each under maxTextBytes), dicts' entries (as many as the template
// writes). std::bad_alloc, as a last resort, becomes a JinjaError.

#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jinja/ast.h"
#include "jinja/tagged_text.h"
#include "jinja/value.h"

namespace inferlens::jinja {

struct RenderLimits {
    size_t maxTextBytes = size_t(16) << 20;  // any one string, the output included
    int64_t maxSteps = 50'000'000;           // expressions evaluated and statements run
    double maxSeconds = 10;                  // wall-clock time, checked every 1024 steps
    int maxCallDepth = 64;                   // macros calling macros
    // Statements and expressions inside each other, through macro calls.
    int maxNesting = 2000;
    // Any one list: range(), split(), [x] * n, list + list, a string's characters.
    int64_t maxListItems = 1'000'000;
    // All strings and lists made during the rendering, summed, alive or not: many values each
    // under the limits above must not add up to all of memory.
    size_t maxBytesMade = size_t(1) << 30;
};

struct RenderOptions {
    std::tm now{};  // what strftime_now formats
    RenderLimits limits;
};

using Variables = std::vector<std::pair<std::string, Value>>;

class Template {
  public:
    // Throws JinjaError for a template that does not parse.
    Template(std::string_view source, std::string name);

    // Throws JinjaError when rendering fails (raise_exception included).
    TaggedText render(const Variables& variables, const RenderOptions& options) const;

    const std::string& name() const { return name_; }

  private:
    std::string name_;
    std::shared_ptr<const Body> body_;
};

// The local time now, for RenderOptions::now.
std::tm localTimeNow();

}  // namespace inferlens::jinja
