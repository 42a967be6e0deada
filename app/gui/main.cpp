// inferlens: the desktop app. Headless switches (--prompt, --screenshot, --quit-after-generation)
// let tests and the documentation run it without anyone at the keyboard.

#include <QApplication>
#include <QCoreApplication>
#include <QtGlobal>
#include <cstdio>

#include "language.h"
#include "main_window.h"
#include "startup_options.h"

namespace {

QStringList arguments(int argc, char** argv) {
    QStringList list;
    for (int i = 0; i < argc; ++i)
        list << QString::fromLocal8Bit(argv[i]);
    return list;
}

// Whether QApplication can open a window. Without a platform, Qt's xcb plugin aborts with a core
// dump and a message about plugins; this says what is missing instead. Only X11 and Wayland
// systems need a display variable, and a chosen platform (QT_QPA_PLATFORM, -platform) is Qt's.
bool displayAvailable(const QStringList& args) {
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
    return !qEnvironmentVariableIsEmpty("DISPLAY") ||
           !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
           !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") ||
           args.contains(QLatin1String("-platform")) || args.contains(QLatin1String("--platform"));
#else
    Q_UNUSED(args);
    return true;
#endif
}

// Names, version and the interface language, before the first translated string is made.
void setUp(int argc, char** argv) {
    QCoreApplication::setOrganizationName(QStringLiteral("InferLens"));
    QCoreApplication::setApplicationName(QStringLiteral("InferLens"));
    QCoreApplication::setApplicationVersion(QStringLiteral(INFERLENS_VERSION));
    QString language = inferlens::gui::languageSetting();
    for (int i = 1; i + 1 < argc; ++i)
        if (QString::fromLocal8Bit(argv[i]) == QLatin1String("--lang"))
            language = QString::fromLocal8Bit(argv[i + 1]);
    inferlens::gui::installTranslator(language);
}

int invalidValue(const QString& message) {
    std::fprintf(stderr, "inferlens: %s\n", qPrintable(message));
    return 2;
}

// --help, --version, an invalid value, or no display: answered on the terminal by a
// QCoreApplication, which needs no display but translates as the window would.
int answerWithoutWindow(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    setUp(argc, argv);
    inferlens::gui::StartupCommandLine commandLine;
    // Qt's own switches are still there (no QGuiApplication took them out): not an error here.
    QCommandLineParser& parser = commandLine.parser();
    parser.parse(app.arguments());
    if (parser.isSet("version"))
        parser.showVersion();
    if (parser.isSet("help"))
        parser.showHelp();
    if (parser.isSet("help-all"))
        parser.process(app);  // the only way to list Qt's options too
    inferlens::gui::StartupOptions options;
    if (const QString error = commandLine.read(options); !error.isEmpty())
        return invalidValue(error);
    std::fprintf(
        stderr, "inferlens: %s\n",
        qPrintable(QCoreApplication::translate(
            "main",
            "no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set).\n"
            "A --screenshot run needs none: start it with QT_QPA_PLATFORM=offscreen.\n"
            "inferlens-cli (info, tokenize, chat, ...) works without a display.")));
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    // Parsed once before any application object: QApplication would abort without a display
    // before --help could answer. Qt's own switches (-platform ...) are still in argv here, so
    // unknown options are left for the real parse below.
    {
        const QStringList args = arguments(argc, argv);
        inferlens::gui::StartupCommandLine commandLine;
        commandLine.parser().parse(args);
        inferlens::gui::StartupOptions options;
        if (commandLine.asksForHelpOrVersion() || !commandLine.read(options).isEmpty() ||
            !displayAvailable(args))
            return answerWithoutWindow(argc, argv);
    }

    QApplication app(argc, argv);
    setUp(argc, argv);
    inferlens::gui::StartupCommandLine commandLine;
    commandLine.parser().process(app);
    inferlens::gui::StartupOptions options;
    if (const QString error = commandLine.read(options); !error.isEmpty())
        return invalidValue(error);

    inferlens::gui::MainWindow window(options);
    window.showOnScreen();
    return app.exec();
}
