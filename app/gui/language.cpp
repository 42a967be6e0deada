#include "language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QPointer>
#include <QSettings>
#include <QTranslator>

namespace inferlens::gui {

QString languageSetting() {
    return QSettings().value("ui/language", QStringLiteral("system")).toString();
}

void setLanguageSetting(const QString& language) {
    QSettings().setValue("ui/language", language);
}

namespace {

// The translators in use, owned by the application (children of it) until replaced.
QPointer<QTranslator> appTranslator, qtTranslator;

void removeTranslators() {
    for (QPointer<QTranslator>* translator : {&appTranslator, &qtTranslator})
        if (*translator) {
            QCoreApplication::removeTranslator(*translator);
            delete translator->data();
        }
}

}  // namespace

QString installTranslator(const QString& language) {
    const QLocale locale =
        language == QLatin1String("system") ? QLocale::system() : QLocale(language);
    removeTranslators();  // English: the source strings, no translator
    if (locale.language() != QLocale::Chinese)
        return QStringLiteral("en");
    auto* app = new QTranslator(QCoreApplication::instance());
    if (!app->load(QStringLiteral(":/i18n/inferlens_zh_CN.qm"))) {
        delete app;
        return QStringLiteral("en");
    }
    QCoreApplication::installTranslator(app);
    appTranslator = app;
    // Qt's own strings (standard buttons and dialogs), when Debian's qt6-translations-l10n is
    // there.
    auto* qt = new QTranslator(QCoreApplication::instance());
    if (qt->load(QLocale(QLocale::Chinese, QLocale::China), QStringLiteral("qtbase"),
                 QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt);
        qtTranslator = qt;
    } else {
        delete qt;
    }
    return QStringLiteral("zh_CN");
}

}  // namespace inferlens::gui
