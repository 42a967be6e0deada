#include "connect_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QtConcurrent>

#include "remote/http_client.h"
#include "remote/server_api.h"

namespace inferlens::gui {

namespace {

constexpr int kRecentServers = 8;
const char* const kRecentKey = "remote/recentServers";

QString keySetting(const QString& url) {
    return QStringLiteral("remote/keys/") + QString::fromLatin1(url.toUtf8().toBase64());
}

// The models a server lists, or {"!", why} when it cannot be asked (off the UI thread).
QStringList modelsOf(const ServerChoice& choice) {
    try {
        remote::HttpOptions options;
        options.baseUrl = choice.url.toStdString();
        options.apiKey = choice.apiKey.toStdString();
        options.caBundlePath = choice.caFile.toStdString();
        options.connectTimeout = std::chrono::milliseconds(5000);
        options.stallTimeout = std::chrono::milliseconds(15000);
        const remote::ServerInfo info = remote::probeServer(remote::HttpClient(options));
        QStringList names;
        for (const remote::ModelCard& card : info.models)
            names << QString::fromStdString(card.id);
        return names;
    } catch (const std::exception& error) {
        return {QStringLiteral("!"), QString::fromUtf8(error.what())};
    }
}

}  // namespace

ConnectDialog::ConnectDialog(QWidget* parent)
    : QDialog(parent),
      url_(new QComboBox),
      model_(new QComboBox),
      list_(new QPushButton(tr("List models"))),
      key_(new QLineEdit),
      rememberKey_(new QCheckBox(tr("Remember the key on this computer"))),
      caFile_(new QLineEdit),
      status_(new QLabel) {
    setWindowTitle(tr("Connect to a server"));
    // Named for the tests, which fill the dialog as a person would.
    url_->setObjectName(QStringLiteral("serverUrl"));
    model_->setObjectName(QStringLiteral("serverModel"));
    list_->setObjectName(QStringLiteral("listModels"));
    key_->setObjectName(QStringLiteral("apiKey"));
    rememberKey_->setObjectName(QStringLiteral("rememberKey"));
    status_->setObjectName(QStringLiteral("connectStatus"));
    url_->setEditable(true);
    url_->addItems(QSettings().value(kRecentKey).toStringList());
    if (url_->count() == 0)
        url_->setEditText(QStringLiteral("http://127.0.0.1:8080"));
    url_->setToolTip(tr("A server with the OpenAI-compatible API: llama-server, vLLM, SGLang"));
    model_->setEditable(true);
    model_->setPlaceholderText(tr("the server's first model"));
    key_->setEchoMode(QLineEdit::Password);
    key_->setPlaceholderText(tr("none"));
    auto* readKey = new QPushButton(tr("From file…"));
    auto* browseCa = new QPushButton(tr("Browse…"));
    caFile_->setPlaceholderText(tr("the system's certificate authorities"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* modelRow = new QHBoxLayout;
    modelRow->addWidget(model_, 1);
    modelRow->addWidget(list_);
    auto* keyRow = new QHBoxLayout;
    keyRow->addWidget(key_, 1);
    keyRow->addWidget(readKey);
    auto* caRow = new QHBoxLayout;
    caRow->addWidget(caFile_, 1);
    caRow->addWidget(browseCa);
    auto* form = new QFormLayout;
    form->addRow(tr("Server"), url_);
    form->addRow(tr("Model"), modelRow);
    form->addRow(tr("API key"), keyRow);
    form->addRow(QString(), rememberKey_);
    form->addRow(tr("Certificate authorities"), caRow);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Connect"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(status_);
    layout->addWidget(buttons);
    setMinimumWidth(480);

    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(list_, &QPushButton::clicked, this, &ConnectDialog::listModels);
    connect(readKey, &QPushButton::clicked, this, &ConnectDialog::readKeyFile);
    connect(browseCa, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Certificate authorities"), QString(),
                                         tr("PEM files (*.pem *.crt);;All files (*)"));
        if (!path.isEmpty())
            caFile_->setText(path);
    });
    connect(url_, &QComboBox::currentTextChanged, this, [this](const QString& url) {
        key_->setText(QSettings().value(keySetting(url.trimmed())).toString());
        rememberKey_->setChecked(!key_->text().isEmpty());
    });
    key_->setText(QSettings().value(keySetting(url_->currentText().trimmed())).toString());
    rememberKey_->setChecked(!key_->text().isEmpty());
    connect(&listing_, &QFutureWatcher<QStringList>::finished, this, &ConnectDialog::showModels);
}

ServerChoice ConnectDialog::choice() const {
    return {url_->currentText().trimmed(), model_->currentText().trimmed(), key_->text().trimmed(),
            caFile_->text().trimmed()};
}

bool ConnectDialog::rememberKey() const {
    return rememberKey_->isChecked();
}

void ConnectDialog::remember(const ServerChoice& choice, bool rememberKey) {
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(choice.url);
    recent.prepend(choice.url);
    settings.setValue(kRecentKey, recent.mid(0, kRecentServers));
    if (rememberKey && !choice.apiKey.isEmpty())
        settings.setValue(keySetting(choice.url), choice.apiKey);
    else
        settings.remove(keySetting(choice.url));
}

void ConnectDialog::listModels() {
    if (listing_.isRunning())
        return;
    list_->setEnabled(false);
    status_->setText(tr("Asking %1 for its models…").arg(choice().url));
    listing_.setFuture(QtConcurrent::run(modelsOf, choice()));
}

void ConnectDialog::showModels() {
    list_->setEnabled(true);
    const QStringList models = listing_.result();
    if (models.value(0) == QStringLiteral("!")) {
        status_->setText(tr("Cannot list the models: %1").arg(models.value(1)));
        return;
    }
    const QString typed = model_->currentText();
    model_->clear();
    model_->addItems(models);
    model_->setCurrentIndex(models.isEmpty() ? -1 : 0);
    if (!typed.isEmpty() && models.contains(typed))
        model_->setCurrentText(typed);
    status_->setText(models.size() == 1 ? tr("1 model served")
                                        : tr("%1 models served").arg(models.size()));
}

void ConnectDialog::readKeyFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("API key file"));
    if (path.isEmpty())
        return;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        status_->setText(tr("Cannot read %1").arg(path));
        return;
    }
    key_->setText(QString::fromUtf8(file.readLine()).trimmed());
}

}  // namespace inferlens::gui
