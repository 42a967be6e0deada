#include "jinja/template.h"

#include <new>

#include "jinja/evaluator.h"
#include "jinja/lexer.h"
#include "jinja/parser.h"

namespace inferlens::jinja {

Template::Template(std::string_view source, std::string name)
    : name_(std::move(name)),
      body_(std::make_shared<const Body>(parseTemplate(tokenize(source, name_), name_))) {}

TaggedText Template::render(const Variables& variables, const RenderOptions& options) const {
    try {
        return Evaluator(name_, options).run(*body_, variables);
    } catch (const std::bad_alloc&) {  // the evaluator names the position; this is the rest
        throw JinjaError(name_, {}, "out of memory");
    }
}

std::tm localTimeNow() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    return local;
}

}  // namespace inferlens::jinja
