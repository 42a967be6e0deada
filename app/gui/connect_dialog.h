#pragma once
// File → Connect to server…: the address of a server that speaks the OpenAI-compatible API
// (llama-server, vLLM, SGLang), the model to use from the list it gives, and the API key, typed
// or read from a file. The key stays in memory unless the person ticks "Remember the key"; the
// addresses used before are offered again. Listing the models runs off the UI thread.

#include <QDialog>
#include <QFutureWatcher>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace inferlens::gui {

struct ServerChoice {
    QString url;
    QString model;  // empty: the server's first
    QString apiKey;
    QString caFile;
};

class ConnectDialog : public QDialog {
    Q_OBJECT

  public:
    explicit ConnectDialog(QWidget* parent = nullptr);
    ServerChoice choice() const;
    // After a successful connection: the address goes first in the recent list, and the key is
    // saved only if asked for.
    static void remember(const ServerChoice& choice, bool rememberKey);
    bool rememberKey() const;

  private:
    void listModels();
    void readKeyFile();
    void showModels();

    QComboBox* url_;
    QComboBox* model_;
    QPushButton* list_;
    QLineEdit* key_;
    QCheckBox* rememberKey_;
    QLineEdit* caFile_;
    QLabel* status_;
    // The server's models, or the reason there are none (first entry "!").
    QFutureWatcher<QStringList> listing_;
};

}  // namespace inferlens::gui
