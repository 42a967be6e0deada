#pragma once
// The parsed template: statements (text, output, if, for, set, macro ...) holding expressions.
// One node type per level with a kind, rather than a class per construct: the evaluator switches
// over the kinds, and every node keeps its source position for error messages.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "jinja/jinja_error.h"
#include "jinja/value.h"

namespace inferlens::jinja {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class ExprKind {
    Literal,      // literal
    Name,         // name
    List,         // args: the items; name "tuple" for a tuple
    Dict,         // args: key, value, key, value ...
    Attribute,    // args[0].name
    Item,         // args[0][args[1]]
    Slice,        // args[0][args[1]:args[2]:args[3]], each bound may be null
    Call,         // args[0](args[1..], keywords)
    Filter,       // args[0] | name(args[1..], keywords); args[0] null inside {% filter %}
    Test,         // args[0] is [not] name(args[1..])
    Unary,        // name: "-", "+" or "not"; args[0]
    Binary,       // name: "+", "-", "*", "/", "//", "%", "**", "~", "and", "or"; args[0], args[1]
    Compare,      // args[0] operators[0] args[1] operators[1] args[2] ... (chained as Python)
    Conditional,  // args[0] if args[1] else args[2] (args[2] may be null)
};

struct Expr {
    ExprKind kind = ExprKind::Literal;
    SourcePosition where;
    std::string name;
    Value literal;
    std::vector<ExprPtr> args;
    std::vector<std::pair<std::string, ExprPtr>> keywords;
    std::vector<std::string> operators;
    bool negated = false;  // Test: "is not"
    int height = 1;        // the longest path down to a leaf, bounded by the parser
};

struct Node;
using NodePtr = std::unique_ptr<Node>;
using Body = std::vector<NodePtr>;

enum class NodeKind {
    Text,         // text
    Output,       // {{ exprs[0] }}
    If,           // exprs: one condition per branch; bodies: one per branch, then the else body
    For,          // targets in exprs[0] [if exprs[1]]; bodies[0], else bodies[1]
    Set,          // targets (or targets[0].attribute) = exprs[0]
    SetBlock,     // {% set targets[0] %}bodies[0]{% endset %}
    Macro,        // {% macro name(parameters = defaults) %}bodies[0]
    CallBlock,    // {% call(parameters) exprs[0] %}bodies[0]: caller() renders bodies[0]
    FilterBlock,  // {% filter exprs[0] %}bodies[0]: exprs[0] is a Filter chain with a null base
    Break,
    Continue,
    Generation,  // transformers' {% generation %}bodies[0]{% endgeneration %}: renders its body
};

struct Node {
    NodeKind kind = NodeKind::Text;
    SourcePosition where;
    std::string text;
    std::vector<ExprPtr> exprs;
    std::vector<Body> bodies;
    std::vector<std::string> targets;
    std::string attribute;  // Set: `set ns.attribute = ...`
    std::string name;       // Macro
    std::vector<std::string> parameters;
    std::vector<ExprPtr> defaults;  // one per parameter, null where none
    bool namesLoop = false;  // For: its body names `loop` (else the loop object is not built)
};

}  // namespace inferlens::jinja
