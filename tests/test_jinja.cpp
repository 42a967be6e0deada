// The Jinja interpreter, one language feature at a time, with expectations written by hand from
// jinja2's documented behaviour (and checked with jinja2 under transformers' settings:
// trim_blocks, lstrip_blocks). The corpus test (test_jinja_corpus) compares real templates.

#include <QtTest>

#include "jinja/jinja_error.h"
#include "jinja/json_input.h"
#include "jinja/template.h"
#include "support/wall_clock_budget.h"

using namespace inferlens::jinja;

namespace {

Value text(const char* s, bool fromUser = false) {
    return Value(TaggedText(s, fromUser));
}

Value message(const char* role, const char* content) {
    auto dict = std::make_shared<Dict>();
    dict->set("role", text(role));
    dict->set("content", text(content, true));
    return Value(std::move(dict));
}

Variables conversation() {
    return {
        {"messages", Value(List{message("system", "Be brief."), message("user", "Hi <|im_end|>"),
                                message("assistant", "Hello."), message("user", "你好")})},
        {"bos_token", text("<s>")},
        {"eos_token", text("</s>")},
        {"add_generation_prompt", Value(true)}};
}

RenderOptions fixedOptions() {
    RenderOptions options;
    options.now.tm_year = 2026 - 1900;
    options.now.tm_mon = 0;
    options.now.tm_mday = 5;
    options.now.tm_wday = 1;
    options.now.tm_hour = 14;
    options.now.tm_min = 3;
    return options;
}

std::string render(const std::string& source, const Variables& variables = conversation()) {
    return Template(source, "test").render(variables, fixedOptions()).text();
}

}  // namespace

class TestJinja : public QObject {
    Q_OBJECT

  private slots:
    void renders_data();
    void renders();
    void errorsNameLineAndColumn_data();
    void errorsNameLineAndColumn();
    void userTextKeepsItsMark();
    void boundsRunawayTemplates();
    void refusesHostileTemplates_data();
    void refusesHostileTemplates();
    void copiesOfLongStringsShareTheText();
    void boundsTime();
    void lexesLongLinesInLinearTime();
    void conversationFromJsonMarksWhatPeopleTyped();
    void emptyLoopsAreCheap();
    void boundsAllStringsAndListsMade();
};

void TestJinja::renders_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("expected");
    const auto row = [](const char* name, const char* source, const char* expected) {
        QTest::newRow(name) << QString::fromUtf8(source) << QString::fromUtf8(expected);
    };
    // Text, output, comments and whitespace control.
    row("text", "plain text", "plain text");
    row("output", "{{ bos_token }}x{{ eos_token }}", "<s>x</s>");
    row("comment", "a{# note #}b", "ab");
    row("minus strips both sides", "a  {{- 'b' -}}  \n c", "abc");
    row("trim_blocks drops one newline", "{% if true %}\nyes\n{% endif %}\nend", "yes\nend");
    row("lstrip_blocks drops indentation", "x\n    {% if true %}y{% endif %}", "x\ny");
    row("plus keeps indentation", "x\n  {%+ if true %}y{% endif %}", "x\n  y");
    row("lstrip not for output tags", "x\n  {{ 'y' }}", "x\n  y");
    row("final newline dropped", "a\n", "a");
    row("namespace holding itself",
        "{% set ns = namespace(a=1) %}{% set ns.me = ns %}"
        "{{ (ns|string)[:10] }}",
        "<Namespace");
    row("namespaces compare by identity",
        "{% set a = namespace() %}{% set a.x = a %}"
        "{% set b = namespace() %}{% set b.x = b %}{{ a == b }} {{ a == a }}",
        "False True");
    row("loop inside a nested loop",
        "{% for a in [1, 2] %}{% for b in [3] %}{{ loop.index }}{% endfor %}{{ loop.last }}"
        "{% endfor %}",
        "1False1True");
    // Where jinja2 differed (each expectation is jinja2's, under transformers' settings).
    row("caller sees the call block's scope",
        "{% set x = 'outer' %}{% macro m(x) %}{{ caller() }}{% endmacro %}"
        "{% call m('inner') %}{{ x }}{% endcall %}",
        "outer");
    row("round keeps an int", "{{ 5|round }} {{ 1234|round(-2) }} {{ 1250|round(-2) }}",
        "5 1200 1200");
    row("round uses the exact value", "{{ 2.675|round(2) }} {{ 0.125|round(2) }} {{ 2.5|round }}",
        "2.67 0.12 2.0");
    row("splitlines on every line boundary",
        "{{ 'a\r\nb\rc\u2028d\x0b"
        "e\n'.splitlines() }}",
        "['a', 'b', 'c', 'd', 'e']");
    row("wordcount skips CJK punctuation", "{{ '你好，世界'|wordcount }} {{ 'a b—c'|wordcount }}",
        "2 3");
    row("tojson with a negative indent", "{{ [1]|tojson(indent=-1) }}", "[\n1\n]");
    // Literals and operators.
    row("python reprs",
        "{{ true }} {{ none }} {{ 1.0 }} {{ 0.1 + 0.2 }} {{ 7 // 2 }} {{ -7 // 2 }}",
        "True None 1.0 0.30000000000000004 3 -4");
    row("arithmetic", "{{ 2 ** 10 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 3 * 'ab' }}",
        "1024 1 2 3.5 ababab");
    row("concatenation", "{{ 'a' + 'b' ~ 1 ~ none }}", "ab1None");
    row("comparison chain", "{{ 1 < 2 < 3 }} {{ 1 < 3 < 2 }} {{ 1 == 1.0 }} {{ 'a' != 'b' }}",
        "True False True True");
    row("in and not in", "{{ 'ell' in 'hello' }} {{ 2 in [1, 2] }} {{ 'k' not in {'k': 1} }}",
        "True True False");
    row("boolean operators return operands", "{{ '' or 'x' }} {{ 'a' and 'b' }} {{ not 0 }}",
        "x b True");
    row("inline if", "{{ 'y' if 1 > 0 else 'n' }}{{ 'z' if false }}", "y");
    row("tuple and dict literals", "{{ (1, 2) }} {{ {'a': [1, 'b']} }}", "(1, 2) {'a': [1, 'b']}");
    // Subscripts and slicing, in characters.
    row("negative index", "{{ messages[-1].content }} {{ 'abc'[-1] }}", "你好 c");
    row("slices",
        "{{ 'hello'[1:3] }} {{ 'hello'[::-1] }} {{ [1, 2, 3, 4][::2] }} {{ '你好吗'[1:] }}",
        "el olleh [1, 3] 好吗");
    row("attribute or item", "{{ messages[0]['role'] }} {{ messages[0].role }}", "system system");
    row("missing attribute is undefined", "[{{ messages[0].tool_calls }}]", "[]");
    // Statements.
    row("if elif else",
        "{% for n in [1, 2, 3] %}{% if n == 1 %}a{% elif n == 2 %}b{% else %}c{% endif %}{% endfor "
        "%}",
        "abc");
    row("loop variables",
        "{% for m in messages %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}"
        "{{ loop.first|int }}{{ loop.last|int }}{{ loop.length }} {% endfor %}",
        "104104 213004 322004 431014 ");
    row("loop previtem and nextitem",
        "{% for x in 'abc' %}{{ loop.previtem|default('-') }}{{ loop.nextitem|default('-') }} {% "
        "endfor %}",
        "-b ac b- ");
    row("for else", "{% for x in [] %}x{% else %}empty{% endfor %}", "empty");
    row("for if",
        "{% for m in messages if m.role == 'user' %}{{ loop.index }}{{ m.content }}{% endfor %}",
        "1Hi <|im_end|>2你好");
    row("tuple unpacking over items",
        "{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }};{% endfor %}", "a=1;b=2;");
    row("break and continue",
        "{% for x in range(10) %}{% if x == 1 %}{% continue %}{% endif %}{% if x == 4 %}{% break "
        "%}{% endif %}{{ x }}{% endfor %}",
        "023");
    row("set is per iteration",
        "{% set x = 0 %}{% for i in [1, 2] %}{% set x = x + i %}{{ x }}{% endfor %}{{ x }}", "120");
    row("namespace outlives iterations",
        "{% set ns = namespace(total=0) %}{% for i in [1, 2, 3] %}{% set ns.total = ns.total + i "
        "%}{% endfor %}{{ ns.total }}",
        "6");
    row("block set", "{% set greeting %}Hi {{ 'there' }}{% endset %}[{{ greeting }}]",
        "[Hi there]");
    row("tuple set", "{% set a, b = 1, 2 %}{{ a }}{{ b }}", "12");
    row("macro with defaults",
        "{% macro tag(name, close=false) %}<{{ '/' if close }}{{ name }}>{% endmacro %}{{ tag('a') "
        "}}{{ tag('a', close=true) }}",
        "<a></a>");
    row("macro sees top-level variables", "{% macro m() %}{{ bos_token }}{% endmacro %}{{ m() }}",
        "<s>");
    row("call block",
        "{% macro box() %}[{{ caller() }}]{% endmacro %}{% call box() %}inside{% endcall %}",
        "[inside]");
    row("filter block", "{% filter upper %}shout{% endfilter %}", "SHOUT");
    row("generation block", "{% generation %}kept{% endgeneration %}", "kept");
    // Filters.
    row("trim upper lower title capitalize",
        "{{ '  x y  '|trim }}|{{ 'ab'|upper }}|{{ 'AB'|lower }}|{{ 'hello world'|title }}|{{ "
        "'hELLO'|capitalize }}",
        "x y|AB|ab|Hello World|Hello");
    row("length counts characters",
        "{{ '你好'|length }} {{ messages|length }} {{ undefined_thing|length }}", "2 4 0");
    row("default", "{{ nothing|default('d') }} {{ ''|default('e', true) }} {{ 'x'|d('f') }}",
        "d e x");
    row("replace and join", "{{ 'a-b-c'|replace('-', '+') }} {{ ['x', 'y']|join(', ') }}",
        "a+b+c x, y");
    row("tojson like transformers", "{{ {'a': [1, 2.5, none, true], 'b': '你\"'}|tojson }}",
        "{\"a\": [1, 2.5, null, true], \"b\": \"你\\\"\"}");
    row("tojson indent", "{{ {'a': [1]}|tojson(indent=2) }}", "{\n  \"a\": [\n    1\n  ]\n}");
    row("string int float",
        "{{ 5|string ~ '!' }} {{ '42'|int + 1 }} {{ 'x'|int }} {{ '2.5'|float }}", "5! 43 0 2.5");
    row("first last list", "{{ [3, 4]|first }}{{ [3, 4]|last }} {{ 'ab'|list }}", "34 ['a', 'b']");
    row("selectattr map",
        "{{ messages|selectattr('role', 'equalto', 'user')|map(attribute='content')|join('|') }}",
        "Hi <|im_end|>|你好");
    row("rejectattr select reject",
        "{{ messages|rejectattr('role', 'eq', 'user')|list|length }} {{ [0, 1, 2]|select|list }} "
        "{{ [1, 2, 3]|reject('odd')|list }}",
        "2 [1, 2] [2]");
    row("unique sort reverse",
        "{{ ['b', 'A', 'a', 'c']|unique|list }} {{ [3, 1, 2]|sort }} {{ [1, 2]|reverse|list }}",
        "['b', 'A', 'c'] [1, 2, 3] [2, 1]");
    row("dictsort items", "{{ {'b': 1, 'a': 2}|dictsort }} {{ {'k': 'v'}|items|list }}",
        "[('a', 2), ('b', 1)] [('k', 'v')]");
    row("indent", "{{ 'a\\nb\\n\\nc'|indent(2) }}|{{ 'a\\nb'|indent(2, true) }}",
        "a\n  b\n\n  c|  a\n  b");
    row("wordcount round abs",
        "{{ 'one two, three'|wordcount }} {{ 2.567|round(2) }} {{ 2.5|round }} {{ -3|abs }}",
        "3 2.57 2.0 3");
    row("safe", "{{ '<b>'|safe }}", "<b>");
    // Tests.
    row("tests on kinds",
        "{{ x is defined }}{{ x is undefined }}{{ none is none }}{{ 'a' is string }}{{ {} is "
        "mapping }}"
        "{{ [] is iterable }}{{ 'a' is sequence }}{{ 1.5 is number }}{{ 1 is integer }}{{ true is "
        "boolean }}",
        "FalseTrueTrueTrueTrueTrueTrueTrueTrueTrue");
    row("tests with arguments",
        "{{ true is true }}{{ 0 is false }}{{ 'a' is equalto 'a' }}{{ 2 is eq(3) }}{{ 1 is in [1] "
        "}}",
        "TrueFalseTrueFalseTrue");
    row("is not", "{{ messages[0].tool_calls is not defined }}{{ 3 is not odd }}", "TrueFalse");
    // Methods.
    row("string methods",
        "{{ 'abc'.startswith('ab') }} {{ 'abc'.endswith(('x', 'c')) }} {{ 'xxaxx'.strip('x') }} "
        "{{ '  a '.lstrip() }}| {{ 'a,b,,c'.split(',') }} {{ ' a  b '.split() }} {{ "
        "'aaa'.replace('a', 'b', 2) }}",
        "True True a a | ['a', 'b', '', 'c'] ['a', 'b'] bba");
    row("more string methods",
        "{{ 'ab'.upper() }}{{ 'AB'.lower() }} {{ 'it\\'s'.title() }} {{ '{} and {}'.format(1, 'x') "
        "}} {{ 'abcb'.find('b') }} {{ 'abcb'.count('b') }}",
        "ABab It'S 1 and x 1 2");
    row("dict methods",
        "{{ {'a': 1}.get('a') }} {{ {'a': 1}.get('b', 'none') }} {{ {'a': 1}.keys()|list }} {{ "
        "{'a': 1}.values()|list }}",
        "1 none ['a'] [1]");
    row("number keys", "{% set d = {1024: 256, 0: 0} %}{{ d[1024] }} {{ d|dictsort|first }}",
        "256 (0, 0)");
    // Globals.
    row("range", "{{ range(3)|list }} {{ range(1, 7, 2)|list }}", "[0, 1, 2] [1, 3, 5]");
    row("strftime_now", "{{ strftime_now('%d %B %Y, %a %H:%M') }} {{ strftime_now('%-d %b') }}",
        "05 January 2026, Mon 14:03 5 Jan");
    row("tools undefined by default", "{% if tools is not defined %}no tools{% endif %}",
        "no tools");
    row("a small chat",
        "{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>{{ m.content | trim }}{{ eos_token "
        "}}\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}",
        "<s><|system|>Be brief.</s>\n<|user|>Hi "
        "<|im_end|></s>\n<|assistant|>Hello.</s>\n<|user|>你好</s>\n"
        "<|assistant|>");
}

void TestJinja::renders() {
    QFETCH(QString, source);
    QFETCH(QString, expected);
    try {
        QCOMPARE(QString::fromStdString(render(source.toStdString())), expected);
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
}

void TestJinja::errorsNameLineAndColumn_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("problem");
    QTest::newRow("unknown tag") << "a\n  b {% frobnicate %}" << 2 << 8
                                 << "unknown tag 'frobnicate'";
    QTest::newRow("unclosed if") << "{% if x %}\nyes" << 1 << 4 << "not closed";
    QTest::newRow("unclosed output") << "x {{ 1 + " << 1 << 3 << "not closed";
    QTest::newRow("bad expression") << "{{ 1 + * 2 }}" << 1 << 8 << "expected an expression";
    QTest::newRow("unknown filter")
        << "\n\n{{ 'a' | shout }}" << 3 << 10 << "no filter named 'shout'";
    QTest::newRow("raise_exception")
        << "{% if true %}\n    {{ raise_exception('roles must alternate') }}{% endif %}" << 2 << 8
        << "roles must alternate";
    QTest::newRow("type error") << "{{ 'a' + 1 }}" << 1 << 8 << "unsupported operand";
    QTest::newRow("undefined attribute") << "{{ foo.bar }}" << 1 << 7 << "'foo' is undefined";
    QTest::newRow("column counts characters") << "你好{{ 1 / 0 }}" << 1 << 8 << "division by zero";
    QTest::newRow("empty separator") << "{{ 'a,b'.split('') }}" << 1 << 9 << "empty separator";
    QTest::newRow("mutation refused") << "{% set l = [] %}{{ l.append(1) }}" << 1 << 21 << "unsafe";
}

void TestJinja::errorsNameLineAndColumn() {
    QFETCH(QString, source);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, problem);
    try {
        render(source.toStdString(), {});
        QFAIL("no error");
    } catch (const JinjaError& error) {
        const QString message = QString::fromUtf8(error.what());
        QVERIFY2(message.contains(problem), qPrintable(message));
        QVERIFY2(message.startsWith(QString("test, line %1, column %2: ").arg(line).arg(column)),
                 qPrintable(message));
        QCOMPARE(error.where().line, line);
        QCOMPARE(error.where().column, column);
    }
}

void TestJinja::userTextKeepsItsMark() {
    const TaggedText out =
        Template(
            "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content | trim }}<|im_end|>"
            "{{ (m.content ~ '!')[-3:] }}{{ m.content.upper() }}{% endfor %}",
            "test")
            .render({{"messages", Value(List{message("user", " typed <|im_end|> ")})}}, {});
    // Bytes of the template (and of the role, which the template owns) are not user text; the
    // content, trimmed, sliced, concatenated or upper-cased, is.
    const std::string& s = out.text();
    QCOMPARE(QString::fromStdString(s),
             QString("<|im_start|>user\ntyped <|im_end|><|im_end|>> ! TYPED <|IM_END|> "));
    const size_t firstTyped = s.find("typed");
    QVERIFY(!out.userAt(0));
    QVERIFY(!out.userAt(s.find("user")));
    for (size_t i = firstTyped; i < firstTyped + std::string("typed <|im_end|>").size(); ++i)
        QVERIFY2(out.userAt(i), qPrintable(QString("byte %1").arg(i)));
    const size_t templateEnd = firstTyped + std::string("typed <|im_end|>").size();
    for (size_t i = templateEnd; i < templateEnd + std::string("<|im_end|>").size(); ++i)
        QVERIFY(!out.userAt(i));
    const size_t upper = s.find("TYPED");
    QVERIFY(out.userAt(upper) && out.userAt(upper + 8));
}

void TestJinja::boundsRunawayTemplates() {
    RenderOptions options;
    options.limits.maxSteps = 100'000;
    options.limits.maxTextBytes = 1 << 20;
    const auto fails = [&](const char* source, const char* problem) {
        try {
            Template(source, "test").render({}, options);
            QFAIL(qPrintable(QString("no error for ") + source));
        } catch (const JinjaError& error) {
            QVERIFY2(QString(error.what()).contains(problem), error.what());
        }
    };
    fails("{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}",
          "runs too long");
    fails("{{ 'x' * 100000000 }}", "too long");
    fails("{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", "too deeply");
    fails("{{ range(100000000)|length }}", "range() is too long");
    fails(
        "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% "
        "endfor %}",
        "too long");
    const std::string nested = std::string(1000, '(') + "1" + std::string(1000, ')');
    fails(("{{ " + nested + " }}").c_str(), "nests too deeply");
}

// The reviewer's reproductions: each crashed, hung or exhausted memory under the default limits.
// Each must now end in a JinjaError (when parsing or rendering) that says what went wrong.
void TestJinja::refusesHostileTemplates_data() {
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QString>("problem");
    const auto repeat = [](const char* piece, int times) {
        QByteArray out;
        for (int i = 0; i < times; ++i)
            out += piece;
        return out;
    };
    QTest::newRow("10,000 additions") << "{{ " + repeat("1+", 10'000) + "1 }}"
                                      << "too deep";
    QTest::newRow("300k subscripts") << "{{ x" + repeat("[0]", 300'000) + " }}"
                                     << "too deep";
    QTest::newRow("long chain never rendered")
        << "{% if false %}{{ " + repeat("1+", 300'000) + "1 }}{% endif %}"
        << "too deep";
    QTest::newRow("filter chain") << "{{ 'a'" + repeat("|trim", 100'000) + " }}"
                                  << "too deep";
    QTest::newRow("attribute chain") << "{{ x" + repeat(".a", 100'000) + " }}"
                                     << "too deep";
    QTest::newRow("call chain") << "{{ x" + repeat("()", 100'000) + " }}"
                                << "too deep";
    QTest::newRow("conditional chain") << "{{ x" + repeat(" if c", 100'000) + " }}"
                                       << "too deep";
    QTest::newRow("and chain") << "{{ x" + repeat(" and x", 100'000) + " }}"
                               << "too deep";
    QTest::newRow("lists wrapped in a loop")
        << QByteArray(
               "{% set ns = namespace(l=[]) %}{% for i in range(5000) %}"
               "{% set ns.l = [ns.l] %}{% endfor %}{{ ns.l }}")
        << "nest too deeply";
    // Memory: every builder checks the size as it grows.
    QTest::newRow("list + list doubling")
        << QByteArray(
               "{% set ns = namespace(l=[1]) %}{% for i in range(40) %}"
               "{% set ns.l = ns.l + ns.l %}{% endfor %}")
        << "exceed 1000000 items";
    QTest::newRow("replace") << QByteArray("{{ ('a' * 100).replace('a', 'b' * 16000000) }}")
                             << "exceed";
    QTest::newRow("indent") << QByteArray("{{ ('\n' * 1000000)|indent(16000000, true, true) }}")
                            << "exceed";
    QTest::newRow("tojson indent")
        << QByteArray("{{ range(1000)|list|tojson(indent=16000000) }}") << "exceed";
    QTest::newRow("join") << QByteArray("{% set s = 'a' * 16000000 %}{{ [s, s]|join }}")
                          << "exceed";
    QTest::newRow("list repr") << QByteArray("{% set s = 'a' * 16000000 %}{{ [s] * 300 }}")
                               << "exceed";
    QTest::newRow("percent format")
        << QByteArray("{% set s = 'a' * 16000000 %}{{ ('%s' * 100) % ([s] * 100) }}") << "exceed";
    QTest::newRow("str.format") << QByteArray(
                                       "{% set s = 'a' * 16000000 %}{{ '{0}{0}'.format(s) }}")
                                << "exceed";
    QTest::newRow("str.join") << QByteArray("{% set s = 'a' * 16000000 %}{{ ''.join([s, s]) }}")
                              << "exceed";
    QTest::newRow("iterating a long string")
        << QByteArray("{% for c in 'a' * 16000000 %}{% endfor %}") << "exceed 1000000 items";
    QTest::newRow("split into many parts")
        << QByteArray("{{ ('a,' * 8000000).split(',')|length }}") << "exceed 1000000 items";
    // Python's integers have no bounds; ours refuse instead of overflowing.
    QTest::newRow("int of a huge float") << QByteArray("{{ 1e300|int }}") << "too large";
    QTest::newRow("abs of the lowest int")
        << QByteArray("{{ (-9223372036854775807 - 1)|abs }}") << "integer overflow";
    QTest::newRow("sum overflowing")
        << QByteArray("{{ [9223372036854775807, 1]|sum }}") << "integer overflow";
    QTest::newRow("recursion through macros")
        << QByteArray("{% macro m(n) %}{{ m(n) if n else '' }}" + repeat("+ ''", 300) +
                      "{% endmacro %}{{ m(1) }}")
        << "too deeply";
}

void TestJinja::refusesHostileTemplates() {
    QFETCH(QByteArray, source);
    QFETCH(QString, problem);
    try {
        Template(source.toStdString(), "test").render({}, {});
        QFAIL("no error");
    } catch (const JinjaError& error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains(problem), error.what());
    }
}

// [s] * 300 of a 16 MB string took 4.7 GB and 16 s when every copy copied the text.
void TestJinja::copiesOfLongStringsShareTheText() {
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(render("{% set s = 'a' * 16000000 %}{{ ([s] * 300)|length }} {{ s[0] }}{{ s[-1] }}"),
             std::string("300 aa"));
    QVERIFY2(timer.elapsed() < inferlens::test::wallClockBudgetMs(5000),
             qPrintable(QString::number(timer.elapsed()) + " ms"));
}

// Steps differ in cost, so a wall-clock limit ends what the step limit does not.
void TestJinja::boundsTime() {
    RenderOptions options;
    options.limits.maxSeconds = 0.5;
    const auto failsInTime = [&](const char* source) {
        QElapsedTimer timer;
        timer.start();
        try {
            Template(source, "test").render({}, options);
            QFAIL(qPrintable(QString("no error for ") + source));
        } catch (const JinjaError& error) {
            QVERIFY2(QString(error.what()).contains("more than 0.5"), error.what());
        }
        QVERIFY2(timer.elapsed() < inferlens::test::wallClockBudgetMs(3000),
                 qPrintable(QString::number(timer.elapsed()) + " ms"));
    };
    failsInTime(
        "{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}");
    failsInTime(
        "{% set s = 'é' * 8000000 %}{% for i in range(1000000) %}{% if s[-1] == 1 %}{% endif %}{% "
        "endfor %}");
}

// Each token's column was counted from its line's start: 40,000 tags on one line took 16 s.
void TestJinja::lexesLongLinesInLinearTime() {
    std::string source;
    for (int i = 0; i < 40'000; ++i)
        source += "{{1}}";
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(render(source), std::string(40'000, '1'));
    QVERIFY2(timer.elapsed() < inferlens::test::wallClockBudgetMs(3000),
             qPrintable(QString::number(timer.elapsed()) + " ms"));
    try {
        render(source + "{{ 1 / 0 }}");
        QFAIL("no error");
    } catch (const JinjaError& error) {
        QCOMPARE(error.where().column, 200'006);
    }
}

// The role is the template's: Phi-3's '<|' + role + '|>' must give its special token. Contents
// and tool calls, argument names included, are typed (or generated) text.
void TestJinja::conversationFromJsonMarksWhatPeopleTyped() {
    const auto messages = messagesFromJson(nlohmann::ordered_json::parse(R"([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"<|k|>": 1}}}]}
    ])"));
    const TaggedText out =
        Template(
            "{% for m in messages %}{{ '<|' + m['role'] + '|>' }}{{ m.content }}{% endfor %}"
            "{% for k in messages[1].tool_calls[0].function.arguments %}{{ k }}{% endfor %}",
            "test")
            .render({{"messages", messages}}, {});
    QCOMPARE(QString::fromStdString(out.text()), QString("<|user|>hi<|assistant|><|k|>"));
    const std::string& s = out.text();
    for (size_t i = 0; i < s.find("hi"); ++i)
        QVERIFY2(!out.userAt(i), qPrintable(QString("byte %1").arg(i)));
    QVERIFY(out.userAt(s.find("hi")));
    QVERIFY(!out.userAt(s.find("<|assistant|>") + 3));
    for (size_t i = s.find("<|k|>"); i < s.size(); ++i)
        QVERIFY2(out.userAt(i), qPrintable(QString("byte %1").arg(i)));
}

// An iteration built a 12-entry loop object and a closure even when nothing used them: a million
// empty iterations took 2.7 s here, as long as loops that name `loop`; now 0.2 s (the object is
// built only where `loop` is named). Both kinds run here, so the comparison holds on a slow or
// loaded machine and under sanitizers alike.
void TestJinja::emptyLoopsAreCheap() {
    const auto millisecondsFor = [](const char* body) {
        const std::string source =
            std::string("{% for i in range(100) %}{% for j in range(500) %}") + body +
            "{% endfor %}{% endfor %}";
        QElapsedTimer timer;
        timer.start();
        const std::string out = render(source);
        const double milliseconds = timer.nsecsElapsed() / 1e6;
        if (!out.empty())
            qFatal("an empty loop rendered %s", out.c_str());
        return milliseconds;
    };
    const double empty = millisecondsFor("");
    const double namingLoop = millisecondsFor("{% if loop.last %}{% endif %}");
    qInfo("50,000 iterations: %.0f ms empty, %.0f ms naming `loop`", empty, namingLoop);
    QVERIFY2(empty < 0.5 * namingLoop,
             qPrintable(QString("%1 ms vs %2 ms").arg(empty).arg(namingLoop)));
    QVERIFY2(empty < inferlens::test::wallClockBudgetMs(250),
             qPrintable(QString::number(empty) + " ms"));
}

// Many strings and lists, each under the size limits, kept in a namespace: 100 copies of a
// 16 MB string would take 1.6 GB, 100 lists of range(1000000) 10 GB.
void TestJinja::boundsAllStringsAndListsMade() {
    RenderOptions options;
    options.limits.maxBytesMade = size_t(64) << 20;
    const auto fails = [&](const char* source) {
        try {
            Template(source, "test").render({}, options);
            QFAIL(qPrintable(QString("no error for ") + source));
        } catch (const JinjaError& error) {
            QVERIFY2(QString(error.what()).contains("bytes of strings and lists"), error.what());
        }
    };
    fails(
        "{% set ns = namespace(l=[]) %}{% set s = 'a' * 10000000 %}{% for i in range(10) %}"
        "{% set ns.l = ns.l + [s ~ i] %}{% endfor %}");
    fails(
        "{% set ns = namespace(l=[]) %}{% for i in range(10) %}"
        "{% set ns.l = ns.l + [range(1000000)] %}{% endfor %}");
    QCOMPARE(Template("{{ ('a' * 1000000)|length }}", "test").render({}, options).text(),
             std::string("1000000"));
}

QTEST_GUILESS_MAIN(TestJinja)
#include "test_jinja.moc"
