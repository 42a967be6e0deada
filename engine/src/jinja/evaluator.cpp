#include "jinja/evaluator.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <memory>
#include <new>

#include "jinja/build_limits.h"
#include "jinja/builtins.h"
#include "jinja/operators.h"
#include "jinja/strftime.h"

namespace inferlens::jinja {

Evaluator::Evaluator(const std::string& templateName, const RenderOptions& options)
    : name_(templateName),
      options_(options),
      deadline_(std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(options.limits.maxSeconds))) {}

// A namespace may hold itself (`set ns.me = ns`): the cycle of shared pointers is broken here, or
// every such rendering would leak.
Evaluator::~Evaluator() {
    for (const std::weak_ptr<Dict>& weak : namespaces_)
        if (const std::shared_ptr<Dict> space = weak.lock())
            std::vector<std::pair<Value, Value>>().swap(space->entries);
}

TaggedText Evaluator::run(const Body& body, const Variables& variables) {
    const BuildLimitsScope limits({options_.limits.maxTextBytes,
                                   size_t(std::max<int64_t>(options_.limits.maxListItems, 0)),
                                   options_.limits.maxBytesMade});
    frames_.assign(1, Frame{});
    base_ = 0;
    for (const auto& [key, value] : variables)
        frames_[0][key] = value;
    TaggedText out;
    execute(body, out);
    return out;
}

void Evaluator::fail(SourcePosition where, const std::string& problem) const {
    throw JinjaError(name_, where, problem);
}

void Evaluator::step(SourcePosition where) {
    if (++steps_ > options_.limits.maxSteps)
        fail(where, "the template runs too long (more than " +
                        std::to_string(options_.limits.maxSteps) + " steps)");
    // Steps differ in cost (a step may copy a long string), so time is bounded too; the clock is
    // read every 1024 steps, which costs nothing measurable.
    if ((steps_ & 1023) == 0)
        checkDeadline(where);
}

void Evaluator::checkDeadline(SourcePosition where) const {
    if (std::chrono::steady_clock::now() > deadline_)
        fail(where, "the template runs too long (more than " +
                        std::to_string(options_.limits.maxSeconds) + " seconds)");
}

// Counts the statements and expressions being run inside each other (macro calls through them):
// the parser bounds one template's nesting, this bounds what recursion multiplies it into.
class Evaluator::NestingGuard {
  public:
    NestingGuard(Evaluator& evaluator, SourcePosition where) : evaluator_(evaluator) {
        if (++evaluator_.nesting_ > evaluator_.options_.limits.maxNesting)
            evaluator_.fail(where, "the template nests too deeply while rendering (more than " +
                                       std::to_string(evaluator_.options_.limits.maxNesting) +
                                       " levels)");
    }
    ~NestingGuard() { --evaluator_.nesting_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

  private:
    Evaluator& evaluator_;
};

// Indexing or slicing a string walks it: on a long one a step is slow, so the clock is read at
// once.
void Evaluator::checkTimeFor(const Value& object, SourcePosition where) const {
    if (object.isString() && object.asString().size() >= 65536)
        checkDeadline(where);
}

void Evaluator::checkSize(size_t bytes) const {
    if (bytes > options_.limits.maxTextBytes)
        throw RuntimeProblem("the rendered text would exceed " +
                             std::to_string(options_.limits.maxTextBytes) + " bytes");
}

void Evaluator::append(TaggedText& out, const TaggedText& text) const {
    checkSize(out.size() + text.size());
    out.append(text);
}

// --- names and scopes ---

Value Evaluator::lookup(const std::string& name) const {
    for (size_t i = frames_.size(); i-- > base_;) {
        const auto found = frames_[i].find(name);
        if (found != frames_[i].end())
            return found->second;
    }
    if (base_ > 0)
        if (const auto found = frames_[0].find(name); found != frames_[0].end())
            return found->second;
    return builtin(name);
}

void Evaluator::assign(const std::string& name, Value value) {
    frames_.back()[name] = std::move(value);
}

Value Evaluator::builtin(const std::string& name) const {
    const auto make = [&](std::function<Value(const CallArguments&)> call) {
        auto callable = std::make_shared<Callable>();
        callable->name = name;
        callable->call = std::move(call);
        return Value(std::shared_ptr<const Callable>(std::move(callable)));
    };
    if (name == "range") {
        const int64_t maxItems = options_.limits.maxListItems;
        return make([maxItems](const CallArguments& args) {
            const size_t n = args.positional.size();
            if (n < 1 || n > 3)
                throw RuntimeProblem("range expects 1 to 3 integer arguments");
            const int64_t start = n == 1 ? 0 : integerArgument(&args.positional[0], "start");
            const int64_t stop = integerArgument(&args.positional[n == 1 ? 0 : 1], "stop");
            const int64_t stride = n == 3 ? integerArgument(&args.positional[2], "step") : 1;
            if (stride == 0)
                throw RuntimeProblem("range() arg 3 must not be zero");
            List items;
            for (int64_t i = start; stride > 0 ? i < stop : i > stop; i += stride) {
                if (int64_t(items.size()) >= maxItems)
                    throw RuntimeProblem("range() is too long");
                items.emplace_back(i);
            }
            return Value(std::move(items));
        });
    }
    if (name == "namespace" || name == "dict") {
        const bool isNamespace = name == "namespace";
        return make([this, isNamespace](const CallArguments& args) {
            auto dict = std::make_shared<Dict>();
            dict->isNamespace = isNamespace;
            if (isNamespace)
                namespaces_.push_back(dict);
            for (const Value& initial : args.positional)
                if (initial.isDict())
                    for (const auto& [key, value] : initial.asDict().entries)
                        dict->set(key, value);
            for (const auto& [key, value] : args.keywords)
                dict->set(key, value);
            return Value(std::move(dict));
        });
    }
    if (name == "raise_exception")
        return make([](const CallArguments& args) -> Value {
            const Value* message = args.get(0, "message");
            throw RuntimeProblem("the template raised an error: " +
                                 (message != nullptr ? message->toText().text() : std::string()));
        });
    if (name == "strftime_now") {
        const std::tm now = options_.now;
        return make([now](const CallArguments& args) {
            return Value(
                TaggedText(formatTime(stringArgument(args.get(0, "format"), "the format"), now)));
        });
    }
    return Value::undefined("'" + name + "' is undefined");
}

// --- statements ---

Evaluator::Flow Evaluator::execute(const Body& body, TaggedText& out) {
    for (const NodePtr& node : body)
        if (const Flow flow = execute(*node, out); flow != Flow::Normal)
            return flow;
    return Flow::Normal;
}

Evaluator::Flow Evaluator::execute(const Node& node, TaggedText& out) {
    step(node.where);
    const NestingGuard nesting(*this, node.where);
    try {
        switch (node.kind) {
            case NodeKind::Text:
                append(out, TaggedText(node.text));
                break;
            case NodeKind::Output:
                append(out, evaluate(*node.exprs[0]).toText());
                break;
            case NodeKind::If:
                for (size_t i = 0; i < node.exprs.size(); ++i)
                    if (evaluate(*node.exprs[i]).truthy())
                        return execute(node.bodies[i], out);
                if (node.bodies.size() > node.exprs.size())
                    return execute(node.bodies.back(), out);
                break;
            case NodeKind::For:
                executeFor(node, out);
                break;
            case NodeKind::Set:
                executeSet(node, evaluate(*node.exprs[0]));
                break;
            case NodeKind::SetBlock: {
                TaggedText captured;
                execute(node.bodies[0], captured);
                executeSet(node, Value(std::move(captured)));
                break;
            }
            case NodeKind::Macro:
                assign(node.name, defineMacro(node));
                break;
            case NodeKind::CallBlock: {
                // caller() renders the block's body where the call stands, with the caller's
                // own parameters bound: it sees the scopes of the call block, not those of the
                // macro that calls it.
                const Expr& call = *node.exprs[0];
                const Value callee = evaluate(*call.args[0]);
                if (!callee.isCallable())
                    fail(call.where, "a call block needs a macro, not " + callee.typeName());
                CallArguments args = evaluateArguments(call, 1);
                auto caller = std::make_shared<Callable>();
                caller->name = "caller";
                const size_t callerBase = base_;
                const size_t callerTop = frames_.size();
                caller->call = [this, &node, callerBase,
                                callerTop](const CallArguments& callerArgs) {
                    if (frames_.size() < callerTop)  // kept in a namespace, called later
                        throw RuntimeProblem("caller() is called outside its call block");
                    std::vector<Frame> macroFrames(
                        std::make_move_iterator(frames_.begin() + long(callerTop)),
                        std::make_move_iterator(frames_.end()));
                    frames_.resize(callerTop);
                    const size_t savedBase = base_;
                    base_ = callerBase;
                    frames_.emplace_back();
                    for (size_t i = 0; i < node.parameters.size(); ++i) {
                        const Value* v = callerArgs.get(i, node.parameters[i]);
                        assign(node.parameters[i], v != nullptr       ? *v
                                                   : node.defaults[i] ? evaluate(*node.defaults[i])
                                                                      : Value());
                    }
                    TaggedText body;
                    execute(node.bodies[0], body);
                    frames_.resize(callerTop);
                    std::move(macroFrames.begin(), macroFrames.end(), std::back_inserter(frames_));
                    base_ = savedBase;
                    return Value(std::move(body));
                };
                args.keywords.emplace_back(
                    "caller", Value(std::shared_ptr<const Callable>(std::move(caller))));
                append(out, callee.asCallable().call(args).toText());
                break;
            }
            case NodeKind::FilterBlock: {
                TaggedText captured;
                execute(node.bodies[0], captured);
                const Value base(std::move(captured));
                append(out, evaluateFilter(*node.exprs[0], &base).toText());
                break;
            }
            case NodeKind::Break:
                return Flow::Break;
            case NodeKind::Continue:
                return Flow::Continue;
            case NodeKind::Generation:
                return execute(node.bodies[0], out);
        }
    } catch (const RuntimeProblem& problem) {
        fail(node.where, problem.what());
    } catch (const std::bad_alloc&) {  // the size limits bound one value, not all of them
        fail(node.where, "out of memory");
    }
    return Flow::Normal;
}

void Evaluator::executeFor(const Node& node, TaggedText& out) {
    List items = iterate(evaluate(*node.exprs[0]));
    const auto bindTargets = [&](const Value& item) {
        if (node.targets.size() == 1) {
            assign(node.targets[0], item);
            return;
        }
        const List parts = iterate(item);
        if (parts.size() != node.targets.size())
            fail(node.where, "cannot unpack " + std::to_string(parts.size()) + " values into " +
                                 std::to_string(node.targets.size()) + " loop variables");
        for (size_t i = 0; i < parts.size(); ++i)
            assign(node.targets[i], parts[i]);
    };
    if (node.exprs.size() > 1 && node.exprs[1]) {  // for x in items if condition
        List kept;
        for (const Value& item : items) {
            frames_.emplace_back();
            bindTargets(item);
            const bool keep = evaluate(*node.exprs[1]).truthy();
            frames_.pop_back();
            if (keep)
                kept.push_back(item);
        }
        items = std::move(kept);
    }
    if (items.empty()) {
        if (node.bodies.size() > 1)
            execute(node.bodies[1], out);
        return;
    }
    const int64_t length = int64_t(items.size());
    for (int64_t i = 0; i < length; ++i) {
        step(node.where);  // an empty body still costs: nested loops must not run unbounded
        frames_.emplace_back();
        if (node.namesLoop)
            assign("loop", loopObject(items, i));
        bindTargets(items[size_t(i)]);
        const Flow flow = execute(node.bodies[0], out);
        frames_.pop_back();
        if (flow == Flow::Break)
            break;
    }
}

// jinja2's loop variable, built only for loops whose body names it: it costs more than the rest
// of an empty iteration.
Value Evaluator::loopObject(const List& items, int64_t i) {
    const int64_t length = int64_t(items.size());
    auto loop = std::make_shared<Dict>();
    loop->set("index", Value(i + 1));
    loop->set("index0", Value(i));
    loop->set("revindex", Value(length - i));
    loop->set("revindex0", Value(length - i - 1));
    loop->set("first", Value(i == 0));
    loop->set("last", Value(i == length - 1));
    loop->set("length", Value(length));
    loop->set("depth", Value(int64_t(1)));
    loop->set("depth0", Value(int64_t(0)));
    loop->set("previtem",
              i > 0 ? items[size_t(i - 1)] : Value::undefined("there is no previous item"));
    loop->set("nextitem",
              i + 1 < length ? items[size_t(i + 1)] : Value::undefined("there is no next item"));
    auto cycle = std::make_shared<Callable>();
    cycle->name = "loop.cycle";
    cycle->call = [i](const CallArguments& args) {
        if (args.positional.empty())
            throw RuntimeProblem("loop.cycle needs at least one value");
        return args.positional[size_t(i) % args.positional.size()];
    };
    loop->set("cycle", Value(std::shared_ptr<const Callable>(std::move(cycle))));
    return Value(std::move(loop));
}

void Evaluator::executeSet(const Node& node, Value value) {
    if (!node.attribute.empty()) {
        const Value target = lookup(node.targets[0]);
        if (!target.isDict() || !target.asDict().isNamespace)
            fail(node.where, "cannot assign attribute on a non-namespace object ('" +
                                 node.targets[0] + "' is " + target.typeName() + ")");
        target.mutableDict().set(node.attribute, std::move(value));
        return;
    }
    if (node.targets.size() == 1) {
        assign(node.targets[0], std::move(value));
        return;
    }
    const List parts = iterate(value);
    if (parts.size() != node.targets.size())
        fail(node.where, "cannot unpack " + std::to_string(parts.size()) + " values into " +
                             std::to_string(node.targets.size()) + " variables");
    for (size_t i = 0; i < parts.size(); ++i)
        assign(node.targets[i], parts[i]);
}

Value Evaluator::defineMacro(const Node& node) {
    auto callable = std::make_shared<Callable>();
    callable->name = node.name;
    callable->call = [this, &node](const CallArguments& args) { return callMacro(node, args); };
    return Value(std::shared_ptr<const Callable>(std::move(callable)));
}

Value Evaluator::callMacro(const Node& macro, const CallArguments& args) {
    if (callDepth_ >= options_.limits.maxCallDepth)
        throw RuntimeProblem("macros call each other too deeply (more than " +
                             std::to_string(options_.limits.maxCallDepth) + " levels)");
    // An error ends the whole rendering, so only the way out that returns restores the scopes.
    const size_t savedBase = base_;
    frames_.emplace_back();
    base_ = frames_.size() - 1;
    ++callDepth_;
    List extra;
    for (size_t i = macro.parameters.size(); i < args.positional.size(); ++i)
        extra.push_back(args.positional[i]);
    auto keywords = std::make_shared<Dict>();
    for (size_t i = 0; i < macro.parameters.size(); ++i) {
        const Value* given = args.get(i, macro.parameters[i]);
        assign(macro.parameters[i],
               given != nullptr ? *given
               : macro.defaults[i]
                   ? evaluate(*macro.defaults[i])
                   : Value::undefined("'" + macro.parameters[i] + "' is undefined"));
    }
    for (const auto& [key, value] : args.keywords) {
        if (key == "caller")
            assign("caller", value);
        else if (std::find(macro.parameters.begin(), macro.parameters.end(), key) ==
                 macro.parameters.end())
            keywords->set(key, value);
    }
    assign("varargs", Value(std::move(extra)));
    assign("kwargs", Value(std::move(keywords)));
    TaggedText body;
    execute(macro.bodies[0], body);
    frames_.resize(base_);
    base_ = savedBase;
    --callDepth_;
    return Value(std::move(body));
}

// --- expressions ---

Value Evaluator::evaluate(const Expr& expr) {
    step(expr.where);
    const NestingGuard nesting(*this, expr.where);
    try {
        return evaluateInner(expr);
    } catch (const RuntimeProblem& problem) {
        fail(expr.where, problem.what());
    } catch (const std::bad_alloc&) {
        fail(expr.where, "out of memory");
    }
}

CallArguments Evaluator::evaluateArguments(const Expr& expr, size_t firstPositional) {
    CallArguments args;
    for (size_t i = firstPositional; i < expr.args.size(); ++i)
        args.positional.push_back(evaluate(*expr.args[i]));
    for (const auto& [key, value] : expr.keywords)
        args.keywords.emplace_back(key, evaluate(*value));
    return args;
}

Value Evaluator::evaluateFilter(const Expr& expr, const Value* base) {
    const Value value =
        expr.args[0] ? (expr.args[0]->kind == ExprKind::Filter ? evaluateFilter(*expr.args[0], base)
                                                               : evaluate(*expr.args[0]))
                     : *base;
    const CallArguments args = evaluateArguments(expr, 1);
    try {
        Value result = applyFilter(expr.name, value, args);
        if (result.isString())
            checkSize(result.asText().size());
        return result;
    } catch (const RuntimeProblem& problem) {
        fail(expr.where, problem.what());
    }
}

Value Evaluator::evaluateBinary(const Expr& expr) {
    const Value left = evaluate(*expr.args[0]);
    if (expr.name == "and")
        return left.truthy() ? evaluate(*expr.args[1]) : left;
    if (expr.name == "or")
        return left.truthy() ? left : evaluate(*expr.args[1]);
    return applyOperator(expr.name, left, evaluate(*expr.args[1]), options_.limits.maxTextBytes);
}

bool Evaluator::evaluateCompare(const Expr& expr) {
    Value left = evaluate(*expr.args[0]);
    for (size_t i = 0; i < expr.operators.size(); ++i) {
        Value right = evaluate(*expr.args[i + 1]);
        const std::string& op = expr.operators[i];
        bool holds = false;
        if (op == "==")
            holds = left == right;
        else if (op == "!=")
            holds = !(left == right);
        else if (op == "<")
            holds = lessThan(left, right);
        else if (op == ">")
            holds = lessThan(right, left);
        else if (op == "<=")
            holds = !lessThan(right, left);
        else if (op == ">=")
            holds = !lessThan(left, right);
        else if (op == "in")
            holds = contains(right, left);
        else
            holds = !contains(right, left);
        if (!holds)
            return false;
        left = std::move(right);
    }
    return true;
}

Value Evaluator::evaluateInner(const Expr& expr) {
    switch (expr.kind) {
        case ExprKind::Literal:
            return expr.literal;
        case ExprKind::Name:
            return lookup(expr.name);
        case ExprKind::List: {
            List items;
            for (const ExprPtr& item : expr.args)
                items.push_back(evaluate(*item));
            return expr.name == "tuple" ? Value::tuple(std::move(items)) : Value(std::move(items));
        }
        case ExprKind::Dict: {
            auto dict = std::make_shared<Dict>();
            for (size_t i = 0; i + 1 < expr.args.size(); i += 2) {
                Value key = evaluate(*expr.args[i]);
                if (!key.isString() && !key.isNumber() && !key.isNone())
                    throw RuntimeProblem("unhashable type: '" + key.typeName() + "'");
                dict->set(std::move(key), evaluate(*expr.args[i + 1]));
            }
            return Value(std::move(dict));
        }
        case ExprKind::Attribute:
            return getAttribute(evaluate(*expr.args[0]), expr.name);
        case ExprKind::Item: {
            const Value object = evaluate(*expr.args[0]);
            checkTimeFor(object, expr.where);
            return getItem(object, evaluate(*expr.args[1]));
        }
        case ExprKind::Slice: {
            const auto bound = [&](size_t i) {
                return expr.args[i] ? evaluate(*expr.args[i]) : Value::none();
            };
            const Value object = evaluate(*expr.args[0]);
            checkTimeFor(object, expr.where);
            return sliceOf(object, bound(1), bound(2), bound(3));
        }
        case ExprKind::Call: {
            const Value callee = evaluate(*expr.args[0]);
            const CallArguments args = evaluateArguments(expr, 1);
            if (!callee.isCallable()) {
                if (callee.isUndefined())
                    throw RuntimeProblem(callee.undefinedMessage().empty()
                                             ? "calling an undefined value"
                                             : callee.undefinedMessage());
                throw RuntimeProblem("'" + callee.typeName() + "' object is not callable");
            }
            Value result = callee.asCallable().call(args);
            if (result.isString())
                checkSize(result.asText().size());
            return result;
        }
        case ExprKind::Filter:
            return evaluateFilter(expr, nullptr);
        case ExprKind::Test: {
            const Value value = evaluate(*expr.args[0]);
            const bool passes = applyTest(expr.name, value, evaluateArguments(expr, 1));
            return Value(passes != expr.negated);
        }
        case ExprKind::Unary: {
            const Value operand = evaluate(*expr.args[0]);
            if (expr.name == "not")
                return Value(!operand.truthy());
            if (!operand.isNumber())
                throw RuntimeProblem("bad operand type for unary " + expr.name + ": '" +
                                     operand.typeName() + "'");
            if (expr.name == "+")
                return operand.isFloat() ? operand : Value(operand.asInt());
            if (operand.isFloat())
                return Value(-operand.asDouble());
            int64_t negated = 0;
            if (__builtin_sub_overflow(int64_t(0), operand.asInt(), &negated))
                throw RuntimeProblem("integer overflow");
            return Value(negated);
        }
        case ExprKind::Binary:
            return evaluateBinary(expr);
        case ExprKind::Compare:
            return Value(evaluateCompare(expr));
        case ExprKind::Conditional:
            if (evaluate(*expr.args[1]).truthy())
                return evaluate(*expr.args[0]);
            return expr.args[2] ? evaluate(*expr.args[2])
                                : Value::undefined("the inline if has no else");
    }
    return Value();
}

}  // namespace inferlens::jinja
