#pragma once
// The chat panel: the conversation (user and assistant turns, the answer in progress streaming
// in), an input box, and the actions on it: send, stop, regenerate the last answer, edit the last
// question and send it again, clear. The conversation is a plain list of turns that the main
// window saves and restores.

#include <QList>
#include <QTimer>
#include <QWidget>

#include "engine_worker.h"
#include "live_texts.h"

class QBoxLayout;
class QPlainTextEdit;
class QPushButton;
class QTextBrowser;

namespace inferlens::gui {

class ChatView : public QWidget {
    Q_OBJECT

  public:
    explicit ChatView(QWidget* parent = nullptr);

    const QList<ChatTurn>& conversation() const { return turns_; }
    void setConversation(const QList<ChatTurn>& turns);
    bool busy() const { return busy_; }
    // While busy nothing can be sent; `answering`: the run is the chat's answer, shown as it
    // streams (a branch or an experiment is not).
    void setBusy(bool busy, bool answering = true);

    // Adds the user's message and asks for an answer (as if typed and sent).
    void send(const QString& message);
    void appendAnswerText(const QString& text);
    // Types `text` into the input, ready to send (nothing is sent).
    void setDraft(const QString& text);
    QString draft() const;
    // As narrow as the buttons in two rows allow.
    QSize minimumSizeHint() const override;
    // The answer is complete (ok) or failed (the reason is shown instead).
    void finishAnswer(const QString& answer, const QString& reason, bool ok);

  signals:
    // The conversation ends with a user turn: generate the assistant's answer.
    void answerRequested(const QList<inferlens::gui::ChatTurn>& conversation);
    void stopRequested();
    void conversationChanged();

  protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    void render();
    void updateButtons();
    void regenerate();
    void editLast();
    int buttonRowWidth(std::initializer_list<QPushButton*> buttons) const;

    QTextBrowser* view_;
    QPlainTextEdit* input_;
    QPushButton* sendButton_;
    QPushButton* stopButton_;
    QPushButton* regenerateButton_;
    QPushButton* editButton_;
    QPushButton* clearButton_;
    QBoxLayout* buttons_;  // one row, or two in a narrow chat
    LiveTexts texts_;
    QList<ChatTurn> turns_;
    QTimer renderTimer_;  // a burst of streamed tokens becomes one redraw (≤ 60 per second)
    QString partial_;
    QString status_;
    bool busy_ = false;
    bool answering_ = false;
};

}  // namespace inferlens::gui
