// Jinja templates as a model file may carry them: the input is the template's source, parsed and
// rendered on a small conversation under tight limits. A bad template may only throw
// inferlens::Error (a JinjaError naming line and column); crashes, hangs, other exceptions and
// sanitizer reports are findings.

#include <memory>
#include <string_view>

#include "core/error.h"
#include "jinja/template.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace inferlens::jinja;
    const auto message = [](const char* role, const char* content) {
        auto dict = std::make_shared<Dict>();
        dict->set("role", Value(TaggedText(role)));
        dict->set("content", Value(TaggedText(content, true)));
        return Value(std::move(dict));
    };
    static const Variables variables{
        {"messages", Value(List{message("system", "Be brief."), message("user", "Hi <|im_end|>"),
                                message("assistant", "Hello!"), message("user", "你好")})},
        {"bos_token", Value(TaggedText("<s>"))},
        {"eos_token", Value(TaggedText("</s>"))},
        {"add_generation_prompt", Value(true)}};
    RenderOptions options;
    options.limits.maxSteps = 200'000;
    options.limits.maxTextBytes = 1 << 20;
    options.limits.maxCallDepth = 32;
    options.limits.maxListItems = 10'000;
    options.limits.maxSeconds = 2;  // well inside libFuzzer's -timeout=10
    try {
        const Template chat(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
        chat.render(variables, options);
    } catch (const inferlens::Error&) {
    }
    return 0;
}
