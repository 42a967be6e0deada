#pragma once
// The desktop app's command line: the one list of its options, and reading them into
// StartupOptions. main.cpp parses it twice: once before any application object exists (to learn
// whether a window is needed at all: --help, --version and invalid values are answered without a
// display), then with the translator installed, for the messages a person reads.

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QString>

#include "main_window.h"

namespace inferlens::gui {

class StartupCommandLine {
    Q_DECLARE_TR_FUNCTIONS(main)  // the context its strings always had, in main.cpp

  public:
    // The options' descriptions are translated when made: install the translator first.
    StartupCommandLine();

    QCommandLineParser& parser() { return parser_; }
    // --help, --help-all or --version: answered on the terminal, no window.
    bool asksForHelpOrVersion() const;
    // The parsed values into `options`; an empty string, or the message (translated) that
    // explains the first invalid value.
    QString read(StartupOptions& options) const;

  private:
    QCommandLineParser parser_;
};

// The size --window-size gives ("1366x768"); invalid when it is not WxH within 320×240 and
// 8192×8192 (a window beyond that is a typing mistake, and its screenshot a gigabyte).
QSize parseWindowSize(const QString& text);

}  // namespace inferlens::gui
