#include "conversation_store.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

namespace inferlens::gui {
namespace {

constexpr int kFormatVersion = 1;

}  // namespace

std::optional<QList<ChatTurn>> ConversationStore::parse(const QByteArray& bytes, QString& problem) {
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError) {
        problem = error.errorString();
        return std::nullopt;
    }
    const QJsonObject root = document.object();
    if (!document.isObject() || root["version"].toInt() != kFormatVersion ||
        !root["turns"].isArray()) {
        problem = tr("not a conversation of this version");
        return std::nullopt;
    }
    QList<ChatTurn> turns;
    for (const QJsonValue& value : root["turns"].toArray()) {
        const QJsonObject turn = value.toObject();
        const QString role = turn["role"].toString();
        if (!value.isObject() || (role != "user" && role != "assistant") ||
            !turn["text"].isString()) {
            problem = tr("a turn without a role or text");
            return std::nullopt;
        }
        turns.append({role == "user", turn["text"].toString()});
    }
    return turns;
}

ConversationStore::ConversationStore(QString path) : path_(std::move(path)) {
    if (path_.isEmpty())
        path_ = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                QStringLiteral("/conversation.json");
}

ConversationStore::Loaded ConversationStore::load() const {
    Loaded loaded;
    QFile file(path_);
    if (!file.exists())
        return loaded;
    QString problem;
    std::optional<QList<ChatTurn>> turns;
    if (file.open(QIODevice::ReadOnly))
        turns = parse(file.readAll(), problem);
    else
        problem = file.errorString();
    file.close();
    if (turns) {
        loaded.turns = *turns;
        return loaded;
    }
    // Kept for the user (it may be recoverable by hand); the next save starts a new file.
    const QFileInfo info(path_);
    const QString aside = info.dir().filePath(
        info.completeBaseName() + QStringLiteral(".unreadable-") +
        QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss") + QStringLiteral(".json"));
    const bool moved = QFile::rename(path_, aside);
    loaded.problem = moved ? tr("The saved conversation could not be read (%1); it was kept as %2.")
                                 .arg(problem, aside)
                           : tr("The saved conversation could not be read (%1) nor moved aside; "
                                "it stays at %2 and will not be overwritten until moved.")
                                 .arg(problem, path_);
    return loaded;
}

QString ConversationStore::save(const QList<ChatTurn>& turns) const {
    QDir().mkpath(QFileInfo(path_).absolutePath());
    // A file that could not be read and could not be moved aside is the user's to rescue.
    QString problem;
    QFile existing(path_);
    if (existing.exists() && existing.open(QIODevice::ReadOnly) &&
        !parse(existing.readAll(), problem))
        return tr("%1 is not a readable conversation; it is left as it is").arg(path_);
    existing.close();
    QJsonArray array;
    for (const ChatTurn& turn : turns)
        array.append(QJsonObject{{"role", turn.user ? "user" : "assistant"}, {"text", turn.text}});
    QSaveFile file(path_);
    if (!file.open(QIODevice::WriteOnly))
        return file.errorString();
    file.write(QJsonDocument(QJsonObject{{"version", kFormatVersion}, {"turns", array}}).toJson());
    if (!file.commit())
        return file.errorString();
    return {};
}

}  // namespace inferlens::gui
