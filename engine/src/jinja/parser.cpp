#include "jinja/parser.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>

namespace inferlens::jinja {
namespace {

constexpr int kMaxNesting = 200;  // deeper templates are refused rather than overflowing the stack
// Chains (a + b + ..., x|f|g, x[0][0], x if c if c) are parsed in loops, not by recursion, but
// build trees as deep as they are long; evaluating and destroying a tree recurse, so its height
// is bounded too.
constexpr int kMaxExpressionHeight = 500;

class Parser {
  public:
    Parser(const std::vector<Token>& tokens, const std::string& name)
        : tokens_(tokens), name_(name) {}

    Body parseAll() {
        std::string found;
        Body body = parseBody({}, found, {});
        return body;
    }

  private:
    // --- token helpers ---
    const Token& peek(size_t ahead = 0) const {
        return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
    }
    const Token& next() {
        const Token& token = peek();
        if (pos_ < tokens_.size() - 1)
            ++pos_;
        return token;
    }
    bool isOperator(std::string_view op, size_t ahead = 0) const {
        return peek(ahead).kind == TokenKind::Operator && peek(ahead).text == op;
    }
    bool isName(std::string_view word, size_t ahead = 0) const {
        return peek(ahead).kind == TokenKind::Name && peek(ahead).text == word;
    }
    bool skipOperator(std::string_view op) {
        if (!isOperator(op))
            return false;
        next();
        return true;
    }
    bool skipName(std::string_view word) {
        if (!isName(word))
            return false;
        next();
        return true;
    }
    [[noreturn]] void fail(const Token& at, const std::string& problem) const {
        throw JinjaError(name_, at.where, problem);
    }
    static std::string describe(const Token& token) {
        switch (token.kind) {
            case TokenKind::Text:
                return "template text";
            case TokenKind::VariableBegin:
                return "'{{'";
            case TokenKind::VariableEnd:
                return "'}}'";
            case TokenKind::BlockBegin:
                return "'{%'";
            case TokenKind::BlockEnd:
                return "'%}'";
            case TokenKind::Name:
            case TokenKind::Operator:
            case TokenKind::Integer:
            case TokenKind::Float:
                return "'" + token.text + "'";
            case TokenKind::String:
                return "a string";
            case TokenKind::End:
                return "the end of the template";
        }
        return "?";
    }
    void expectOperator(std::string_view op) {
        if (!skipOperator(op))
            fail(peek(), "expected '" + std::string(op) + "', found " + describe(peek()));
    }
    std::string expectName(const char* what) {
        if (peek().kind != TokenKind::Name)
            fail(peek(), std::string("expected ") + what + ", found " + describe(peek()));
        return next().text;
    }
    void expectBlockEnd() {
        if (peek().kind != TokenKind::BlockEnd)
            fail(peek(), "expected '%}', found " + describe(peek()));
        next();
    }

    struct Depth {
        Depth(Parser& p, const Token& at) : parser(p) {
            if (++parser.depth_ > kMaxNesting)
                parser.fail(at, "the template nests too deeply");
        }
        ~Depth() { --parser.depth_; }
        Parser& parser;
    };

    static ExprPtr make(ExprKind kind, SourcePosition where) {
        auto e = std::make_unique<Expr>();
        e->kind = kind;
        e->where = where;
        return e;
    }

    // Records the height of `e` from its children (already sealed) and refuses a tree too deep.
    ExprPtr sealed(ExprPtr e) const {
        int below = 0;
        for (const ExprPtr& child : e->args)
            if (child)
                below = std::max(below, child->height);
        for (const auto& keyword : e->keywords)
            below = std::max(below, keyword.second->height);
        e->height = below + 1;
        if (e->height > kMaxExpressionHeight)
            throw JinjaError(name_, e->where,
                             "the expression is too deep (more than " +
                                 std::to_string(kMaxExpressionHeight) +
                                 " operators, filters or subscripts inside each other)");
        return e;
    }

    // --- statements ---

    // Parses until a block tag whose keyword is one of `terminators`; consumes "{%" and that
    // keyword and stores it in `found`. `opening` names the tag that is waiting, for the message.
    Body parseBody(std::initializer_list<std::string_view> terminators, std::string& found,
                   const Token* opening) {
        Body body;
        while (true) {
            const Token& token = peek();
            switch (token.kind) {
                case TokenKind::End:
                    if (terminators.size() != 0)
                        fail(opening != nullptr ? *opening : token,
                             "the '" + (opening != nullptr ? opening->text : std::string()) +
                                 "' tag is not closed: missing '{% " +
                                 std::string(*std::prev(terminators.end())) + " %}'");
                    return body;
                case TokenKind::Text: {
                    auto node = std::make_unique<Node>();
                    node->kind = NodeKind::Text;
                    node->where = token.where;
                    node->text = next().text;
                    body.push_back(std::move(node));
                    break;
                }
                case TokenKind::VariableBegin: {
                    auto node = std::make_unique<Node>();
                    node->kind = NodeKind::Output;
                    node->where = next().where;
                    node->exprs.push_back(parseTuple());
                    if (peek().kind != TokenKind::VariableEnd)
                        fail(peek(), "expected '}}', found " + describe(peek()));
                    next();
                    body.push_back(std::move(node));
                    break;
                }
                case TokenKind::BlockBegin: {
                    const Token& keyword = peek(1);
                    if (keyword.kind == TokenKind::Name &&
                        std::find(terminators.begin(), terminators.end(), keyword.text) !=
                            terminators.end()) {
                        next();
                        found = next().text;
                        return body;
                    }
                    body.push_back(parseStatement());
                    break;
                }
                default:
                    fail(token, "unexpected " + describe(token));
            }
        }
    }

    NodePtr parseStatement() {
        const Token& begin = next();  // {%
        const Depth depth(*this, begin);
        const Token& keyword = peek();
        if (keyword.kind != TokenKind::Name)
            fail(keyword, "expected a tag name, found " + describe(keyword));
        const std::string word = next().text;
        auto node = std::make_unique<Node>();
        node->where = keyword.where;
        if (word == "if")
            parseIf(*node, keyword);
        else if (word == "for")
            parseFor(*node, keyword);
        else if (word == "set")
            parseSet(*node, keyword);
        else if (word == "macro")
            parseMacro(*node, keyword);
        else if (word == "call")
            parseCallBlock(*node, keyword);
        else if (word == "filter")
            parseFilterBlock(*node, keyword);
        else if (word == "generation")
            parseSimpleBlock(*node, NodeKind::Generation, keyword, "endgeneration");
        else if (word == "break" || word == "continue") {
            node->kind = word == "break" ? NodeKind::Break : NodeKind::Continue;
            expectBlockEnd();
        } else
            fail(keyword, "unknown tag '" + word + "'");
        return node;
    }

    void parseIf(Node& node, const Token& keyword) {
        node.kind = NodeKind::If;
        node.exprs.push_back(parseExpression());
        expectBlockEnd();
        while (true) {
            std::string found;
            node.bodies.push_back(parseBody({"elif", "else", "endif"}, found, &keyword));
            if (found == "elif") {
                node.exprs.push_back(parseExpression());
                expectBlockEnd();
            } else if (found == "else") {
                expectBlockEnd();
                node.bodies.push_back(parseBody({"endif"}, found, &keyword));
                expectBlockEnd();
                return;
            } else {
                expectBlockEnd();
                return;
            }
        }
    }

    void parseFor(Node& node, const Token& keyword) {
        node.kind = NodeKind::For;
        do
            node.targets.push_back(expectName("a loop variable"));
        while (skipOperator(","));
        if (!skipName("in"))
            fail(peek(), "expected 'in', found " + describe(peek()));
        node.exprs.push_back(parseTuple(false));
        if (skipName("if"))
            node.exprs.push_back(parseExpression());
        if (isName("recursive"))
            fail(peek(), "recursive loops are not supported");
        expectBlockEnd();
        std::string found;
        const int loopNamesBefore = loopNames_;
        node.bodies.push_back(parseBody({"else", "endfor"}, found, &keyword));
        node.namesLoop = loopNames_ != loopNamesBefore;
        if (found == "else") {
            expectBlockEnd();
            node.bodies.push_back(parseBody({"endfor"}, found, &keyword));
        }
        expectBlockEnd();
    }

    void parseSet(Node& node, const Token& keyword) {
        node.targets.push_back(expectName("a variable name"));
        if (skipOperator(".")) {
            node.attribute = expectName("an attribute name");
        } else {
            while (skipOperator(","))
                node.targets.push_back(expectName("a variable name"));
        }
        if (skipOperator("=")) {
            node.kind = NodeKind::Set;
            node.exprs.push_back(parseTuple());
            expectBlockEnd();
            return;
        }
        if (node.targets.size() != 1 || !node.attribute.empty())
            fail(peek(), "expected '=', found " + describe(peek()));
        parseSimpleBlock(node, NodeKind::SetBlock, keyword, "endset");
    }

    void parseSimpleBlock(Node& node, NodeKind kind, const Token& keyword, std::string_view end) {
        node.kind = kind;
        expectBlockEnd();
        std::string found;
        node.bodies.push_back(parseBody({end}, found, &keyword));
        expectBlockEnd();
    }

    void parseParameters(Node& node) {
        expectOperator("(");
        while (!skipOperator(")")) {
            if (!node.parameters.empty())
                expectOperator(",");
            node.parameters.push_back(expectName("a parameter name"));
            node.defaults.push_back(skipOperator("=") ? parseExpression() : nullptr);
        }
    }

    void parseMacro(Node& node, const Token& keyword) {
        node.kind = NodeKind::Macro;
        node.name = expectName("the macro's name");
        parseParameters(node);
        expectBlockEnd();
        std::string found;
        node.bodies.push_back(parseBody({"endmacro"}, found, &keyword));
        if (peek().kind == TokenKind::Name)
            next();  // {% endmacro name %}
        expectBlockEnd();
    }

    void parseCallBlock(Node& node, const Token& keyword) {
        node.kind = NodeKind::CallBlock;
        if (isOperator("("))
            parseParameters(node);
        node.exprs.push_back(parseExpression());
        if (node.exprs[0]->kind != ExprKind::Call)
            fail(keyword, "a call block needs a macro call");
        expectBlockEnd();
        std::string found;
        node.bodies.push_back(parseBody({"endcall"}, found, &keyword));
        expectBlockEnd();
    }

    void parseFilterBlock(Node& node, const Token& keyword) {
        ExprPtr chain;
        do
            chain = parseFilter(std::move(chain));
        while (skipOperator("|"));
        node.exprs.push_back(std::move(chain));
        parseSimpleBlock(node, NodeKind::FilterBlock, keyword, "endfilter");
    }

    // --- expressions ---

    // Comma-separated expressions: one, or a tuple (a list) when there is a comma.
    ExprPtr parseTuple(bool withConditional = true) {
        const SourcePosition where = peek().where;
        ExprPtr first = parseExpression(withConditional);
        if (!isOperator(","))
            return first;
        auto tuple = make(ExprKind::List, where);
        tuple->name = "tuple";
        tuple->args.push_back(std::move(first));
        while (skipOperator(",")) {
            if (peek().kind == TokenKind::BlockEnd || peek().kind == TokenKind::VariableEnd ||
                isOperator(")"))
                break;
            tuple->args.push_back(parseExpression(withConditional));
        }
        return sealed(std::move(tuple));
    }

    ExprPtr parseExpression(bool withConditional = true) {
        const Depth depth(*this, peek());
        ExprPtr value = parseOr();
        if (!withConditional)
            return value;
        while (isName("if")) {
            auto conditional = make(ExprKind::Conditional, next().where);
            ExprPtr condition = parseOr();
            ExprPtr otherwise = skipName("else") ? parseExpression() : nullptr;
            conditional->args.push_back(std::move(value));
            conditional->args.push_back(std::move(condition));
            conditional->args.push_back(std::move(otherwise));
            value = sealed(std::move(conditional));
        }
        return value;
    }

    ExprPtr binary(std::string op, SourcePosition where, ExprPtr left, ExprPtr right) {
        auto e = make(ExprKind::Binary, where);
        e->name = std::move(op);
        e->args.push_back(std::move(left));
        e->args.push_back(std::move(right));
        return sealed(std::move(e));
    }

    ExprPtr parseOr() {
        ExprPtr left = parseAnd();
        while (isName("or")) {
            const SourcePosition where = next().where;
            left = binary("or", where, std::move(left), parseAnd());
        }
        return left;
    }

    ExprPtr parseAnd() {
        ExprPtr left = parseNot();
        while (isName("and")) {
            const SourcePosition where = next().where;
            left = binary("and", where, std::move(left), parseNot());
        }
        return left;
    }

    ExprPtr parseNot() {
        if (isName("not")) {
            const Depth depth(*this, peek());
            auto e = make(ExprKind::Unary, next().where);
            e->name = "not";
            e->args.push_back(parseNot());
            return sealed(std::move(e));
        }
        return parseCompare();
    }

    ExprPtr parseCompare() {
        const SourcePosition where = peek().where;
        ExprPtr first = parseMath1();
        ExprPtr compare;
        while (true) {
            std::string op;
            if (peek().kind == TokenKind::Operator &&
                (peek().text == "==" || peek().text == "!=" || peek().text == "<" ||
                 peek().text == "<=" || peek().text == ">" || peek().text == ">="))
                op = next().text;
            else if (skipName("in"))
                op = "in";
            else if (isName("not") && isName("in", 1)) {
                next();
                next();
                op = "not in";
            } else
                break;
            if (!compare) {
                compare = make(ExprKind::Compare, where);
                compare->args.push_back(std::move(first));
            }
            compare->operators.push_back(op);
            compare->args.push_back(parseMath1());
        }
        return compare ? sealed(std::move(compare)) : std::move(first);
    }

    ExprPtr parseMath1() {
        ExprPtr left = parseConcat();
        while (isOperator("+") || isOperator("-")) {
            const Token& op = next();
            left = binary(op.text, op.where, std::move(left), parseConcat());
        }
        return left;
    }

    ExprPtr parseConcat() {
        ExprPtr left = parseMath2();
        while (isOperator("~")) {
            const Token& op = next();
            left = binary("~", op.where, std::move(left), parseMath2());
        }
        return left;
    }

    ExprPtr parseMath2() {
        ExprPtr left = parsePow();
        while (isOperator("*") || isOperator("/") || isOperator("//") || isOperator("%")) {
            const Token& op = next();
            left = binary(op.text, op.where, std::move(left), parsePow());
        }
        return left;
    }

    ExprPtr parsePow() {
        ExprPtr left = parseUnary(true);
        while (isOperator("**")) {
            const Token& op = next();
            left = binary("**", op.where, std::move(left), parseUnary(true));
        }
        return left;
    }

    ExprPtr parseUnary(bool withFilter) {
        const Depth depth(*this, peek());
        ExprPtr value;
        if (isOperator("-") || isOperator("+")) {
            const Token& op = next();
            value = make(ExprKind::Unary, op.where);
            value->name = op.text;
            value->args.push_back(parseUnary(false));
            value = sealed(std::move(value));
        } else {
            value = parsePostfix(parsePrimary());
        }
        return withFilter ? parseFilterAndTests(std::move(value)) : std::move(value);
    }

    ExprPtr parsePrimary() {
        const Token& token = peek();
        switch (token.kind) {
            case TokenKind::Name: {
                next();
                static const std::pair<std::string_view, Value> kConstants[] = {
                    {"true", Value(true)},   {"True", Value(true)},   {"false", Value(false)},
                    {"False", Value(false)}, {"none", Value::none()}, {"None", Value::none()}};
                for (const auto& [word, value] : kConstants)
                    if (token.text == word) {
                        auto e = make(ExprKind::Literal, token.where);
                        e->literal = value;
                        return e;
                    }
                auto e = make(ExprKind::Name, token.where);
                e->name = token.text;
                loopNames_ += e->name == "loop";
                return e;
            }
            case TokenKind::String: {
                std::string text;
                while (peek().kind == TokenKind::String)  // adjacent literals join, as in Python
                    text += next().text;
                auto e = make(ExprKind::Literal, token.where);
                e->literal = Value(TaggedText(std::move(text)));
                return e;
            }
            case TokenKind::Integer:
            case TokenKind::Float: {
                next();
                auto e = make(ExprKind::Literal, token.where);
                e->literal =
                    token.kind == TokenKind::Integer ? Value(token.integer) : Value(token.number);
                return e;
            }
            case TokenKind::Operator:
                if (token.text == "(") {
                    next();
                    if (skipOperator(")")) {
                        auto empty = make(ExprKind::List, token.where);
                        empty->name = "tuple";
                        return empty;
                    }
                    ExprPtr inside = parseTuple();
                    expectOperator(")");
                    return inside;
                }
                if (token.text == "[") {
                    next();
                    auto list = make(ExprKind::List, token.where);
                    while (!skipOperator("]")) {
                        if (!list->args.empty()) {
                            expectOperator(",");
                            if (skipOperator("]"))
                                break;
                        }
                        list->args.push_back(parseExpression());
                    }
                    return sealed(std::move(list));
                }
                if (token.text == "{") {
                    next();
                    auto dict = make(ExprKind::Dict, token.where);
                    while (!skipOperator("}")) {
                        if (!dict->args.empty()) {
                            expectOperator(",");
                            if (skipOperator("}"))
                                break;
                        }
                        dict->args.push_back(parseExpression());
                        expectOperator(":");
                        dict->args.push_back(parseExpression());
                    }
                    return sealed(std::move(dict));
                }
                break;
            default:
                break;
        }
        fail(token, "expected an expression, found " + describe(token));
    }

    ExprPtr parsePostfix(ExprPtr value) {
        while (true) {
            if (isOperator(".")) {
                const Token& dot = next();
                if (peek().kind == TokenKind::Integer) {
                    auto item = make(ExprKind::Item, dot.where);
                    auto index = make(ExprKind::Literal, peek().where);
                    index->literal = Value(next().integer);
                    item->args.push_back(std::move(value));
                    item->args.push_back(std::move(index));
                    value = sealed(std::move(item));
                    continue;
                }
                auto attribute = make(ExprKind::Attribute, dot.where);
                attribute->name = expectName("an attribute name");
                attribute->args.push_back(std::move(value));
                value = sealed(std::move(attribute));
            } else if (isOperator("[")) {
                value = parseSubscript(std::move(value));
            } else if (isOperator("(")) {
                value = parseCall(std::move(value));
            } else {
                return value;
            }
        }
    }

    ExprPtr parseSubscript(ExprPtr value) {
        const Token& open = next();
        const auto bound = [&]() -> ExprPtr {
            return isOperator(":") || isOperator("]") ? nullptr : parseExpression();
        };
        ExprPtr start = bound();
        if (!isOperator(":")) {
            expectOperator("]");
            auto item = make(ExprKind::Item, open.where);
            item->args.push_back(std::move(value));
            item->args.push_back(std::move(start));
            if (!item->args[1])
                fail(open, "an empty subscript");
            return sealed(std::move(item));
        }
        auto slice = make(ExprKind::Slice, open.where);
        slice->args.push_back(std::move(value));
        slice->args.push_back(std::move(start));
        next();  // ':'
        slice->args.push_back(bound());
        slice->args.push_back(skipOperator(":") ? bound() : nullptr);
        expectOperator("]");
        return sealed(std::move(slice));
    }

    // Arguments "(a, b, key=value)" into e->args (after what is there) and e->keywords.
    void parseArguments(Expr& e) {
        expectOperator("(");
        bool first = true;
        while (!skipOperator(")")) {
            if (!first) {
                expectOperator(",");
                if (skipOperator(")"))
                    break;
            }
            first = false;
            if (peek().kind == TokenKind::Name && isOperator("=", 1)) {
                std::string key = next().text;
                next();
                e.keywords.emplace_back(std::move(key), parseExpression());
            } else {
                if (!e.keywords.empty())
                    fail(peek(), "a positional argument after a keyword argument");
                e.args.push_back(parseExpression());
            }
        }
    }

    ExprPtr parseCall(ExprPtr callee) {
        auto call = make(ExprKind::Call, callee->where);  // errors point at what is called
        call->args.push_back(std::move(callee));
        parseArguments(*call);
        return sealed(std::move(call));
    }

    ExprPtr parseFilter(ExprPtr value) {
        auto filter = make(ExprKind::Filter, peek().where);
        filter->name = expectName("a filter name");
        while (skipOperator("."))
            filter->name += "." + expectName("a filter name");
        filter->args.push_back(std::move(value));
        if (isOperator("("))
            parseArguments(*filter);
        return sealed(std::move(filter));
    }

    ExprPtr parseFilterAndTests(ExprPtr value) {
        while (true) {
            if (skipOperator("|")) {
                value = parseFilter(std::move(value));
            } else if (isName("is")) {
                auto test = make(ExprKind::Test, next().where);
                test->negated = skipName("not");
                test->name = expectName("a test name");
                test->args.push_back(std::move(value));
                if (isOperator("(")) {
                    parseArguments(*test);
                } else if ((peek().kind == TokenKind::Name || peek().kind == TokenKind::String ||
                            peek().kind == TokenKind::Integer || peek().kind == TokenKind::Float ||
                            isOperator("[") || isOperator("{")) &&
                           !isName("else") && !isName("or") && !isName("and")) {
                    if (isName("is"))
                        fail(peek(), "tests cannot be chained with 'is'");
                    test->args.push_back(parsePostfix(parsePrimary()));
                }
                value = sealed(std::move(test));
            } else if (isOperator("(")) {
                value = parseCall(std::move(value));
            } else {
                return value;
            }
        }
    }

    const std::vector<Token>& tokens_;
    const std::string& name_;
    size_t pos_ = 0;
    int depth_ = 0;
    int loopNames_ = 0;  // `loop` names parsed so far
};

}  // namespace

Body parseTemplate(const std::vector<Token>& tokens, const std::string& templateName) {
    return Parser(tokens, templateName).parseAll();
}

}  // namespace inferlens::jinja
