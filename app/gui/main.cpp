// inferlens: the desktop app. Headless switches (--prompt, --screenshot, --quit-after-generation)
// let tests and the documentation run it without anyone at the keyboard.

#include <QApplication>
#include <QCommandLineParser>

#include "language.h"
#include "main_window.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("InferLens"));
    QApplication::setApplicationName(QStringLiteral("InferLens"));
    QApplication::setApplicationVersion(QStringLiteral(INFERLENS_VERSION));

    const QCommandLineOption languageOption(
        "lang", QStringLiteral("Interface language: en, zh_CN or system."), "language");
    // The language must be known before the first translated string is made.
    QString language = inferlens::gui::languageSetting();
    for (int i = 1; i + 1 < argc; ++i)
        if (QString::fromLocal8Bit(argv[i]) == QLatin1String("--lang"))
            language = QString::fromLocal8Bit(argv[i + 1]);
    inferlens::gui::installTranslator(language);

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate(
        "main", "Chat with a local language model and watch what happens inside."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption model("model", QApplication::translate("main", "Model to open."),
                                   "path");
    const QCommandLineOption prompt(
        "prompt", QApplication::translate("main", "Send TEXT as the user's chat message."), "text");
    const QCommandLineOption maxTokens(
        "max-tokens", QApplication::translate("main", "Tokens to generate at most."), "n");
    const QCommandLineOption screenshot(
        "screenshot",
        QApplication::translate("main", "After generation, save the window (1600×1000) as PNG."),
        "file.png");
    const QCommandLineOption quit(
        "quit-after-generation",
        QApplication::translate("main", "Exit when the generation ends (0 on success)."));
    const QCommandLineOption trace(
        "trace",
        QApplication::translate("main", "Replay a trace (JSON lines) instead of loading a model."),
        "file.jsonl");
    const QCommandLineOption panels(
        "panels",
        QApplication::translate("main",
                                "Bring these docks (object names, comma-separated) to the "
                                "front before the screenshot."),
        "names");
    const QCommandLineOption lens("logit-lens",
                                  QApplication::translate("main", "Compute the logit lens."));
    const QCommandLineOption kvExperiment(
        "kv-experiment",
        QApplication::translate(
            "main", "After the generation, run the KV cache on/off experiment with N tokens."),
        "n");
    const QCommandLineOption attentionKernels(
        "attention-kernels",
        QApplication::translate(
            "main", "After the generation, time the fused and the reference attention kernels."));
    const QCommandLineOption device(
        "device",
        QApplication::translate("main",
                                "Run the model on cpu, cuda or cuda:N (default: the "
                                "Device menu's last choice)."),
        "device");
    const QCommandLineOption tourStep(
        "tour-step", QApplication::translate("main", "Show step N of the guided tour."), "n");
    const QCommandLineOption beams(
        "beams", QApplication::translate("main", "Answer by beam search with N beams."), "n");
    const QCommandLineOption grammar(
        "grammar",
        QApplication::translate("main",
                                "The answer follows this grammar (a .json file: a JSON schema)."),
        "file");
    const QCommandLineOption kvType(
        "kv-type",
        QApplication::translate("main", "Store the CPU's KV cache as f32, f16 or int8 (this run)."),
        "type");
    const QCommandLineOption windowOption(
        "window",
        QApplication::translate("main",
                                "A sliding KV cache of the last N tokens (0: none; this run)."),
        "n");
    const QCommandLineOption sinks(
        "sinks",
        QApplication::translate("main", "The first tokens a sliding KV cache keeps (default 4)."),
        "n");
    const QCommandLineOption compareCache(
        "compare-cache",
        QApplication::translate(
            "main", "After the generation, compare the last step with an exact KV cache."));
    parser.addOptions({model, prompt, maxTokens, screenshot, quit, trace, panels, lens,
                       kvExperiment, attentionKernels, tourStep, device, beams, grammar, kvType,
                       windowOption, sinks, compareCache, languageOption});
    parser.process(app);

    inferlens::gui::StartupOptions options;
    options.model = parser.value(model);
    options.prompt = parser.value(prompt);
    options.maxTokens = parser.value(maxTokens).toInt();
    options.screenshot = parser.value(screenshot);
    options.quitAfterGeneration = parser.isSet(quit);
    options.trace = parser.value(trace);
    options.panels = parser.value(panels).split(',', Qt::SkipEmptyParts);
    options.logitLens = parser.isSet(lens);
    options.kvExperiment = parser.value(kvExperiment).toInt();
    options.attentionKernels = parser.isSet(attentionKernels);
    options.device = parser.value(device);
    options.tourStep = parser.value(tourStep).toInt();
    options.beams = parser.value(beams).toInt();
    options.grammar = parser.value(grammar);
    options.kvType = parser.value(kvType);
    for (const auto& [option, target] :
         {std::pair{&windowOption, &options.window}, std::pair{&sinks, &options.sinks}}) {
        if (!parser.isSet(*option))
            continue;
        bool number = false;
        *target = parser.value(*option).toInt(&number);
        if (!number || *target < 0) {
            std::fprintf(stderr, "inferlens: --%s needs a number of tokens, not '%s'\n",
                         qPrintable(option->names().first()), qPrintable(parser.value(*option)));
            return 2;
        }
    }
    options.compareCache = parser.isSet(compareCache);

    inferlens::gui::MainWindow window(options);
    window.showOnScreen();
    return app.exec();
}
