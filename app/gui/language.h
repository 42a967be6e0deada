#pragma once
// The interface language: English (the source strings) or Simplified Chinese (:/i18n). It follows
// the system locale unless the user picked one in the menu (remembered in the settings).

#include <QString>
#include <QStringList>

namespace inferlens::gui {

// "system", "en" or "zh_CN".
QString languageSetting();
void setLanguageSetting(const QString& language);

// Installs the translator for `language` ("system" resolves through QLocale), replacing the one
// installed before, if any; returns the language actually in use ("en" or "zh_CN"). Every widget
// then receives QEvent::LanguageChange and re-translates itself: no restart needed.
QString installTranslator(const QString& language);

}  // namespace inferlens::gui
