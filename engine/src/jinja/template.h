#pragma once
// A Jinja template, parsed once and rendered with variables: the interpreter of the subset of
// Jinja that chat templates use, configured as Hugging Face transformers renders them (trim_blocks,
// lstrip_blocks, loop controls, {% generation %}, its tojson, raise_exception, strftime_now).
//
//   jinja::Template chat(source, "the model's chat template");
//   jinja::TaggedText text = chat.render({{"messages", ...}, {"add_generation_prompt", true}});
//
// Every error, from parsing or rendering, is a JinjaError naming the template, line and column.
// Rendering is bounded (output size, steps, call depth), so no template can hang or exhaust memory.

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
    int maxCallDepth = 64;                   // macros calling macros
    int64_t maxRangeItems = 1'000'000;
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
