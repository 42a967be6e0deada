// inferlens-cli end to end: exit codes, messages, and the .npy that `logits` writes.

#include <QTemporaryDir>
#include <QTest>

#include "support/test_models.h"

using namespace inferlens;

class TestCli : public QObject {
    Q_OBJECT
  private slots:
    void synthInfoLogitsConvert_data() {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("format");
        QTest::newRow("chatglm gguf") << "chatglm"
                                      << "gguf";
        QTest::newRow("chatglm hf") << "chatglm"
                                    << "hf";
        QTest::newRow("llama gguf") << "llama"
                                    << "gguf";
        QTest::newRow("llama hf") << "llama"
                                  << "hf";
    }

    void synthInfoLogitsConvert() {
        QFETCH(QString, architecture);
        QFETCH(QString, format);
        QTemporaryDir dir;
        const QString model = dir.filePath("model");
        auto result = test::runCli({"synth",    "--arch",   architecture, "--layers", "3",
                                    "--hidden", "96",       "--heads",    "6",        "--kv-heads",
                                    "2",        "--ffn",    "80",         "--vocab",  "350",
                                    "--ctx",    "512",      "--dtype",    "bf16",     "--seed",
                                    "5",        "--format", format,       "--out",    model});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));

        result = test::runCli({"info", "--model", model});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        const QString& text = result.standardOutput;
        QVERIFY(text.contains("architecture: " + architecture));
        QVERIFY(text.contains("layers:       3"));
        QVERIFY(text.contains("6 query heads, 2 KV heads, head dim 16"));
        // 3 layers × K and V × 2 heads × 16 numbers: 4 bytes each, 2, or 1 plus a 4-byte step per
        // head.
        QVERIFY(text.contains("768 B per token (f32; f16 384 B, int8 240 B)"));
        QVERIFY(text.contains("context:      512"));
        QVERIFY(text.contains("tokenizer:    sentencepiece"));
        QVERIFY(text.contains("bf16"));
        QVERIFY(text.contains("valid: yes"));

        const QString npy = dir.filePath("logits.npy");
        result = test::runCli({"logits", "--model", model, "--ids", "3,40,41,300", "--out", npy});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        std::vector<int64_t> shape;
        const auto logits = test::readNpyFloat32(npy.toStdString(), shape);
        QCOMPARE(shape, (std::vector<int64_t>{4, 350}));
        const auto expected = test::engineLogits(model.toStdString(), {3, 40, 41, 300});
        QCOMPARE(logits, expected);

        result = test::runCli(
            {"logits", "--model", model, "--ids", "3,40,41,300", "--out", npy, "--no-cache"});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        QVERIFY(test::normalisedError(test::readNpyFloat32(npy.toStdString(), shape), expected) <
                1e-6);

        // The reference attention (every probability computed) against the fused default.
        result = test::runCli({"logits", "--model", model, "--ids", "3,40,41,300", "--out", npy,
                               "--attention", "reference"});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        QVERIFY(test::normalisedError(test::readNpyFloat32(npy.toStdString(), shape), expected) <
                1e-6);

        // The KV cache's storage types, within their tolerances of the f32 cache. BF16 products
        // round their inputs to BF16 (on every kernel set), and the cache's small differences flip
        // some of those roundings by a whole BF16 step: f16 measured 4.9e-3 with the AVX512_BF16
        // pairs, int8 1.0e-2.
        for (const auto& [type, tolerance] : {std::pair{"f16", 1e-2}, std::pair{"int8", 3e-2}}) {
            result = test::runCli({"logits", "--model", model, "--ids", "3,40,41,300", "--out", npy,
                                   "--kv-type", type});
            QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
            const double error =
                test::normalisedError(test::readNpyFloat32(npy.toStdString(), shape), expected);
            QVERIFY2(error > 0 && error < tolerance,
                     qPrintable(QString("%1: %2").arg(type).arg(error)));
        }
        // A window of 2 after 1 sink takes the ids two at a time: the first three positions see
        // what a full cache holds, the last does not see position 1.
        result = test::runCli({"logits", "--model", model, "--ids", "3,40,41,300", "--out", npy,
                               "--window", "2", "--sinks", "1"});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        const auto windowed = test::readNpyFloat32(npy.toStdString(), shape);
        QCOMPARE(shape, (std::vector<int64_t>{4, 350}));
        QVERIFY(test::normalisedError(
                    std::vector<float>(windowed.begin(), windowed.begin() + 3 * 350),
                    std::vector<float>(expected.begin(), expected.begin() + 3 * 350)) < 1e-6);
        QVERIFY(test::normalisedError(
                    std::vector<float>(windowed.begin() + 3 * 350, windowed.end()),
                    std::vector<float>(expected.begin() + 3 * 350, expected.end())) > 1e-4);

        const QString otherFormat = format == "gguf" ? "hf" : "gguf";
        const QString converted = dir.filePath("converted");
        result = test::runCli(
            {"convert", "--model", model, "--out", converted, "--format", otherFormat});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        result =
            test::runCli({"logits", "--model", converted, "--ids", "3,40,41,300", "--out", npy});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        QVERIFY(test::normalisedError(test::readNpyFloat32(npy.toStdString(), shape), expected) <
                1e-6);
    }

    void failuresExitWithOneLineReasons_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing model") << QStringList{"info", "--model", "/nonexistent/m.gguf"} << 1
                                       << "/nonexistent/m.gguf: no such file";
        QTest::newRow("id outside vocabulary")
            << QStringList{"logits", "--model", "MODEL", "--ids", "1,320", "--out", "OUT"} << 1
            << "token id 320 is outside the vocabulary";
        QTest::newRow("more ids than context")
            << QStringList{"logits", "--model", "MODEL",      "--ids", "1,2,3",
                           "--out",  "OUT",     "--ctx-size", "2"}
            << 1 << "do not fit in the context";
        QTest::newRow("bad id list")
            << QStringList{"logits", "--model", "MODEL", "--ids", "1,x", "--out", "OUT"} << 2
            << "'x' is not an integer";
        QTest::newRow("unknown attention kernel")
            << QStringList{"logits", "--model", "MODEL",       "--ids", "1,2",
                           "--out",  "OUT",     "--attention", "flash"}
            << 2 << "--attention: unknown attention kernel 'flash' (fused or reference)";
        QTest::newRow("unknown attention kernel in bench")
            << QStringList{"bench", "--model", "MODEL", "--attention", "all"} << 2
            << "--attention: unknown attention kernel 'all'";
        QTest::newRow("unknown option") << QStringList{"info", "--model", "MODEL", "--colour"} << 2
                                        << "unknown option --colour";
        QTest::newRow("unknown command") << QStringList{"frobnicate"} << 2 << "unknown command";
        QTest::newRow("bad dtype") << QStringList{"synth", "--out", "OUT", "--dtype", "f8"} << 2
                                   << "'f8' is not one of f32, f16, bf16";
        QTest::newRow("unknown architecture")
            << QStringList{"synth", "--out", "OUT", "--arch", "gpt2"} << 1
            << "architecture 'gpt2' is not supported";
        QTest::newRow("odd head dim")
            << QStringList{"synth", "--out", "OUT", "--hidden", "60", "--heads", "4"} << 1
            << "must be even";
    }

    void failuresExitWithOneLineReasons() {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString model =
            QString::fromStdString(test::writeSynthetic(dir, "m.gguf", SyntheticModelOptions{}));
        arguments.replaceInStrings("MODEL", model);
        arguments.replaceInStrings("OUT", dir.filePath("out"));
        const auto result = test::runCli(arguments);
        QCOMPARE(result.exitCode, exitCode);
        QVERIFY2(result.standardError.contains(message), qPrintable(result.standardError));
        if (exitCode == 1) {
            QCOMPARE(result.standardError.count('\n'), 1);
            QVERIFY(result.standardError.startsWith("error: "));
        }
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
