#include "chat_view.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QShortcut>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace inferlens::gui {

ChatView::ChatView(QWidget* parent) : QWidget(parent) {
    view_ = new QTextBrowser;
    input_ = new QPlainTextEdit;
    input_->setObjectName(QStringLiteral("chatInput"));
    input_->setMaximumHeight(90);
    sendButton_ = new QPushButton;
    stopButton_ = new QPushButton;
    regenerateButton_ = new QPushButton;
    editButton_ = new QPushButton;
    clearButton_ = new QPushButton;
    texts_.add([this] {
        input_->setPlaceholderText(tr("Ask something — Ctrl+Enter sends"));
        sendButton_->setText(tr("Send"));
        stopButton_->setText(tr("Stop"));
        regenerateButton_->setText(tr("Regenerate"));
        editButton_->setText(tr("Edit last"));
        clearButton_->setText(tr("Clear"));
    });
    // Asking and stopping first; the buttons on the conversation go below them when the chat
    // is a narrow column between a workspace's panels.
    auto* askRow = new QHBoxLayout;
    askRow->addWidget(sendButton_);
    askRow->addWidget(stopButton_);
    auto* conversationRow = new QHBoxLayout;
    for (QPushButton* button : {regenerateButton_, editButton_, clearButton_})
        conversationRow->addWidget(button);
    conversationRow->addStretch();
    buttons_ = new QBoxLayout(QBoxLayout::LeftToRight);
    buttons_->addLayout(askRow);
    buttons_->addLayout(conversationRow);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(view_, 1);
    layout->addWidget(input_);
    layout->addLayout(buttons_);

    connect(sendButton_, &QPushButton::clicked, this, [this] {
        const QString text = input_->toPlainText().trimmed();
        if (!text.isEmpty()) {
            input_->clear();
            send(text);
        }
    });
    auto* shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), input_);
    connect(shortcut, &QShortcut::activated, sendButton_, &QPushButton::click);
    connect(stopButton_, &QPushButton::clicked, this, &ChatView::stopRequested);
    connect(regenerateButton_, &QPushButton::clicked, this, &ChatView::regenerate);
    connect(editButton_, &QPushButton::clicked, this, &ChatView::editLast);
    connect(clearButton_, &QPushButton::clicked, this, [this] {
        turns_.clear();
        status_.clear();
        render();
        emit conversationChanged();
    });
    renderTimer_.setSingleShot(true);
    renderTimer_.setInterval(16);
    connect(&renderTimer_, &QTimer::timeout, this, &ChatView::render);
    setBusy(false);
}

int ChatView::buttonRowWidth(std::initializer_list<QPushButton*> buttons) const {
    int width = 0;
    for (QPushButton* button : buttons)
        width += button->sizeHint().width() + buttons_->spacing();
    const QMargins margins = layout()->contentsMargins();
    return width + margins.left() + margins.right();
}

QSize ChatView::minimumSizeHint() const {
    QSize size = QWidget::minimumSizeHint();
    size.setWidth(std::max(buttonRowWidth({sendButton_, stopButton_}),
                           buttonRowWidth({regenerateButton_, editButton_, clearButton_})));
    return size;
}

void ChatView::resizeEvent(QResizeEvent* event) {
    const int oneRow =
        buttonRowWidth({sendButton_, stopButton_, regenerateButton_, editButton_, clearButton_});
    buttons_->setDirection(width() < oneRow ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
    QWidget::resizeEvent(event);
}

void ChatView::setConversation(const QList<ChatTurn>& turns) {
    turns_ = turns;
    render();
}

void ChatView::setBusy(bool busy, bool answering) {
    const bool changed = busy != busy_ || (busy && answering) != answering_;
    busy_ = busy;
    answering_ = busy && answering;
    if (changed)
        render();  // the answer's placeholder comes or goes
    updateButtons();
}

void ChatView::updateButtons() {
    const bool busy = busy_;
    sendButton_->setEnabled(!busy);
    stopButton_->setEnabled(busy);
    const bool answered = !turns_.isEmpty() && !turns_.back().user;
    regenerateButton_->setEnabled(!busy && answered);
    editButton_->setEnabled(!busy && !turns_.isEmpty());
    clearButton_->setEnabled(!busy);
}

void ChatView::setDraft(const QString& text) {
    input_->setPlainText(text);
    input_->moveCursor(QTextCursor::End);
    input_->setFocus();
}

QString ChatView::draft() const {
    return input_->toPlainText();
}

void ChatView::send(const QString& message) {
    if (busy_)
        return;
    // A question left unanswered (the model failed, or the app closed mid-answer) is superseded:
    // chat templates need user and assistant turns to alternate.
    while (!turns_.isEmpty() && turns_.back().user)
        turns_.removeLast();
    turns_.append({true, message});
    partial_.clear();
    status_.clear();
    render();
    emit conversationChanged();
    emit answerRequested(turns_);
}

void ChatView::appendAnswerText(const QString& text) {
    partial_ += text;
    if (!renderTimer_.isActive())
        renderTimer_.start();
}

void ChatView::finishAnswer(const QString& answer, const QString& reason, bool ok) {
    if (ok && !answer.isEmpty())
        turns_.append({false, answer});
    status_ = ok ? tr("finished: %1").arg(reason) : tr("error: %1").arg(reason);
    partial_.clear();
    render();
    emit conversationChanged();
}

void ChatView::regenerate() {
    if (!turns_.isEmpty() && !turns_.back().user)
        turns_.removeLast();
    if (turns_.isEmpty())
        return;
    const QString question = turns_.back().text;
    turns_.removeLast();
    send(question);
}

void ChatView::editLast() {
    while (!turns_.isEmpty() && !turns_.back().user)
        turns_.removeLast();
    if (turns_.isEmpty())
        return;
    input_->setPlainText(turns_.back().text);
    turns_.removeLast();
    render();
    input_->setFocus();
    emit conversationChanged();
}

void ChatView::render() {
    QString html;
    for (const ChatTurn& turn : turns_)
        html += QStringLiteral("<p><b>%1</b><br>%2</p>")
                    .arg(turn.user ? tr("You") : tr("Model"),
                         turn.text.toHtmlEscaped().replace('\n', "<br>"));
    if (answering_ || !partial_.isEmpty())
        html += QStringLiteral("<p><b>%1</b><br>%2▍</p>")
                    .arg(tr("Model"), partial_.toHtmlEscaped().replace('\n', "<br>"));
    if (!status_.isEmpty())
        html += QStringLiteral("<p><i>%1</i></p>").arg(status_.toHtmlEscaped());
    view_->setHtml(html);
    view_->verticalScrollBar()->setValue(view_->verticalScrollBar()->maximum());
    updateButtons();
}

void ChatView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        texts_.retranslate();
        render();  // "You" / "Model"
    }
    QWidget::changeEvent(event);
}

}  // namespace inferlens::gui
