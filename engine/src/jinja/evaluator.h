#pragma once
// Runs a parsed template: statements write into a TaggedText, expressions compute Values. Scopes
// follow jinja2: each loop iteration has its own (a `set` inside a loop does not outlive the
// iteration; namespace() exists for that), a macro sees only its arguments and the template's
// top-level variables.

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "jinja/ast.h"
#include "jinja/template.h"

namespace inferlens::jinja {

class Evaluator {
  public:
    Evaluator(const std::string& templateName, const RenderOptions& options);
    ~Evaluator();
    Evaluator(const Evaluator&) = delete;
    Evaluator& operator=(const Evaluator&) = delete;

    TaggedText run(const Body& body, const Variables& variables);

  private:
    enum class Flow { Normal, Break, Continue };
    class NestingGuard;
    using Frame = std::unordered_map<std::string, Value>;

    Flow execute(const Body& body, TaggedText& out);
    Flow execute(const Node& node, TaggedText& out);
    void executeFor(const Node& node, TaggedText& out);
    Value loopObject(const List& items, int64_t i);
    void executeSet(const Node& node, Value value);
    Value defineMacro(const Node& node);
    Value callMacro(const Node& macro, const CallArguments& args);

    Value evaluate(const Expr& expr);
    Value evaluateInner(const Expr& expr);
    Value evaluateFilter(const Expr& expr, const Value* base);
    Value evaluateBinary(const Expr& expr);
    bool evaluateCompare(const Expr& expr);
    CallArguments evaluateArguments(const Expr& expr, size_t firstPositional);

    Value lookup(const std::string& name) const;
    void assign(const std::string& name, Value value);
    Value builtin(const std::string& name) const;
    void append(TaggedText& out, const TaggedText& text) const;
    void checkSize(size_t bytes) const;
    void checkDeadline(SourcePosition where) const;
    void checkTimeFor(const Value& object, SourcePosition where) const;
    void step(SourcePosition where);
    [[noreturn]] void fail(SourcePosition where, const std::string& problem) const;

    const std::string& name_;
    const RenderOptions& options_;
    std::vector<Frame> frames_;
    size_t base_ = 0;  // lookups search frames [base_, top], then frame 0
    std::chrono::steady_clock::time_point deadline_;
    int64_t steps_ = 0;
    int callDepth_ = 0;
    int nesting_ = 0;
    // Every namespace() made, emptied at the end (they may hold themselves); builtin() adds.
    mutable std::vector<std::weak_ptr<Dict>> namespaces_;
};

}  // namespace inferlens::jinja
