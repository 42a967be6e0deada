#include "language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

namespace inferlens::gui {

QString languageSetting() {
    return QSettings().value("ui/language", QStringLiteral("system")).toString();
}

void setLanguageSetting(const QString& language) {
    QSettings().setValue("ui/language", language);
}

QString installTranslator(const QString& language) {
    const QLocale locale =
        language == QLatin1String("system") ? QLocale::system() : QLocale(language);
    if (locale.language() != QLocale::Chinese)
        return QStringLiteral("en");
    // Owned by the application: they live as long as it does.
    auto* app = new QTranslator(QCoreApplication::instance());
    if (!app->load(QStringLiteral(":/i18n/inferlens_zh_CN.qm"))) {
        delete app;
        return QStringLiteral("en");
    }
    QCoreApplication::installTranslator(app);
    // Qt's own strings (standard buttons and dialogs), when Debian's qt6-translations-l10n is
    // there.
    auto* qt = new QTranslator(QCoreApplication::instance());
    if (qt->load(QLocale(QLocale::Chinese, QLocale::China), QStringLiteral("qtbase"),
                 QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    else
        delete qt;
    return QStringLiteral("zh_CN");
}

}  // namespace inferlens::gui
