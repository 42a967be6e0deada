#pragma once
// The conversation on disk, so that closing, a crash or a kill loses nothing but a reply still
// being written: saved after every message (ChatView::conversationChanged) to one JSON file,
// written to a temporary file and renamed over the old one (QSaveFile), so the file is always the
// old or the new conversation, never half of one. A file that cannot be read is moved aside, never
// overwritten, and the user is told where it went.

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <optional>

#include "engine_worker.h"  // ChatTurn

namespace inferlens::gui {

class ConversationStore {
    Q_DECLARE_TR_FUNCTIONS(ConversationStore)

  public:
    // `path` empty: conversation.json in the application's data directory.
    explicit ConversationStore(QString path = {});

    struct Loaded {
        QList<ChatTurn> turns;
        QString problem;  // why the saved file was set aside; empty when all went well
    };
    // The saved conversation (none if there is no file yet).
    Loaded load() const;
    // Returns an error message, or an empty string on success.
    QString save(const QList<ChatTurn>& turns) const;

    const QString& path() const { return path_; }

  private:
    // The turns of a saved document, or nothing with `problem` set.
    static std::optional<QList<ChatTurn>> parse(const QByteArray& bytes, QString& problem);

    QString path_;
};

}  // namespace inferlens::gui
