#include "branch_compare_widget.h"

#include <QAbstractTextDocumentLayout>
#include <QEvent>
#include <QHBoxLayout>
#include <QListWidget>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTextBlock>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "label_thinning.h"

namespace inferlens::widgets {

BranchCompareWidget::BranchCompareWidget(QWidget* parent) : QWidget(parent) {
    list_ = new QListWidget;
    list_->setMaximumHeight(110);
    left_ = new QTextBrowser;
    right_ = new QTextBrowser;
    auto* views = new QSplitter(Qt::Horizontal);
    views->addWidget(left_);
    views->addWidget(right_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(list_);
    layout->addWidget(views, 1);
    connect(list_, &QListWidget::currentRowChanged, this, [this] { refresh(); });
}

int BranchCompareWidget::addBranch(BranchRecord branch) {
    branches_.push_back(std::move(branch));
    const int index = branchCount() - 1;
    list_->addItem(itemText(index));
    list_->setCurrentRow(index);  // refreshes
    return index;
}

void BranchCompareWidget::appendToken(int branch, BranchToken token) {
    if (branch < 0 || branch >= branchCount()) {
        return;
    }
    branches_[size_t(branch)].tokens.push_back(std::move(token));
    const auto [shown, beside] = compared();
    if (branch == shown || branch == beside) {
        refresh();
    }
}

void BranchCompareWidget::clear() {
    // The list first, quietly: clearing it changes the current row, and a refresh then would read
    // branches that are gone (AddressSanitizer found it).
    {
        const QSignalBlocker quiet(list_);
        list_->clear();
    }
    branches_.clear();
    refresh();
}

std::pair<int, int> BranchCompareWidget::compared() const {
    const int shown = list_->currentRow();
    if (shown < 0 || shown >= branchCount()) {
        return {-1, -1};
    }
    const int parent = branches_[size_t(shown)].parent;
    return {shown, parent >= 0 ? parent : (shown == 0 ? -1 : 0)};
}

void BranchCompareWidget::select(int branch) {
    list_->setCurrentRow(branch);
}

QString BranchCompareWidget::itemText(int index) const {
    return tr("%1. %2").arg(index + 1).arg(branches_[size_t(index)].title);
}

QString BranchCompareWidget::branchHtml(int index) const {
    if (index < 0 || index >= branchCount()) {
        return {};
    }
    const BranchRecord& b = branches_[size_t(index)];
    QString html = QStringLiteral("<p><b>%1</b></p><p>").arg(itemText(index).toHtmlEscaped());
    for (size_t i = 0; i < b.tokens.size(); ++i) {
        const BranchToken& t = b.tokens[i];
        const bool shared = b.parent >= 0 && int(i) < b.divergeAt;
        // Shade by probability: a confident token is light, an unlikely one stands out.
        const int alpha =
            shared ? 0 : int(std::lround(40 + 180 * (1.0 - std::clamp(t.probability, 0.0f, 1.0f))));
        QString style = QStringLiteral("background-color: rgba(230, 120, 40, %1);").arg(alpha);
        if (shared) {
            style += QStringLiteral("color: gray;");
        }
        if (t.forced) {
            style += QStringLiteral("font-weight: bold; text-decoration: underline;");
        }
        QString text = t.text.toHtmlEscaped();
        text.replace('\n', QStringLiteral("<br>"));
        html += QStringLiteral("<span style=\"%1\" title=\"%2\">%3</span>")
                    .arg(style,
                         (t.forced ? tr("forced, p = %1") : tr("p = %1"))
                             .arg(double(t.probability), 0, 'g', 3),
                         text);
    }
    return html + QStringLiteral("</p>");
}

void BranchCompareWidget::refresh() {
    const auto [shown, beside] = compared();
    left_->setHtml(shown >= 0 ? branchHtml(shown)
                              : tr("No branches yet: click a candidate in the "
                                   "sampling panel to force it and continue."));
    right_->setHtml(beside >= 0 ? branchHtml(beside) : QString());
    for (int i = 0; i < list_->count() && i < branchCount(); ++i) {
        list_->item(i)->setText(itemText(i));
    }
}

QRect BranchCompareWidget::dataArea() const {
    const auto shown = [this](const QWidget* view) {
        return QRect(view->mapTo(this, QPoint(0, 0)), view->size());
    };
    return shown(left_) | shown(right_);
}

DrawnTexts BranchCompareWidget::drawnTexts() const {
    DrawnTexts texts;
    for (int row = 0; row < list_->count(); ++row) {
        const QListWidgetItem* item = list_->item(row);
        const QRectF shown = shownIn(*this, *list_->viewport(), list_->visualItemRect(item));
        if (!shown.isEmpty()) {
            texts.push_back({item->text(), shown, DrawnText::Kind::TickLabel});
        }
    }
    for (const QTextBrowser* view : {left_, right_}) {
        const QTextDocument* document = view->document();
        const QPointF scrolled(-view->horizontalScrollBar()->value(),
                               -view->verticalScrollBar()->value());
        for (QTextBlock block = document->begin(); block.isValid(); block = block.next()) {
            const QRectF shown =
                shownIn(*this, *view->viewport(),
                        document->documentLayout()->blockBoundingRect(block).translated(scrolled));
            if (!block.text().isEmpty() && !shown.isEmpty()) {
                texts.push_back({block.text(), shown, DrawnText::Kind::Annotation});
            }
        }
    }
    return texts;
}

void BranchCompareWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        refresh();
    }
    QWidget::changeEvent(event);
}

}  // namespace inferlens::widgets
