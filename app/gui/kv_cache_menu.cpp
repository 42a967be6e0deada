#include "kv_cache_menu.h"

#include <QActionGroup>
#include <QCheckBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QSpinBox>

#include "core/error.h"
#include "engine_worker.h"
#include "live_texts.h"

namespace inferlens::gui {
namespace {

constexpr qint64 kDefaultWindow = 512;
constexpr qint64 kDefaultSinks = 4;

KvType rememberedType() {
    try {
        return parseKvType(QSettings().value("engine/kvType", "f32").toString().toStdString());
    } catch (const Error&) {
        return KvType::F32;  // a settings file from elsewhere: the exact cache
    }
}

}  // namespace

KvCacheMenu::KvCacheMenu(QMenu* menu, EngineWorker* worker, LiveTexts& texts, QWidget* dialogParent)
    : QObject(menu), worker_(worker), dialogParent_(dialogParent) {
    auto* group = new QActionGroup(this);
    QAction* f32 = menu->addAction(QString());
    QAction* f16 = menu->addAction(QString());
    QAction* int8 = menu->addAction(QString());
    typeActions_[0] = f32;
    typeActions_[1] = f16;
    typeActions_[2] = int8;
    for (const auto& [action, type] : {std::pair{f32, KvType::F32}, std::pair{f16, KvType::F16},
                                       std::pair{int8, KvType::Int8}}) {
        action->setObjectName(QStringLiteral("kvType%1Action").arg(kvTypeName(type)));
        action->setCheckable(true);
        group->addAction(action);
        connect(action, &QAction::triggered, this, [this, type = type] {
            QSettings().setValue("engine/kvType", QString::fromLatin1(kvTypeName(type)));
            apply();
        });
    }
    windowAction_ = menu->addAction(QString(), this, &KvCacheMenu::chooseWindow);
    windowAction_->setObjectName(QStringLiteral("slidingWindowAction"));
    texts.add([=, this] {
        f32->setText(tr("KV cache as f32 (exact)"));
        f16->setText(tr("KV cache as f16 (half the memory)"));
        int8->setText(tr("KV cache as int8 (a quarter, one scale per head and token)"));
        retranslateWindowAction();
    });
    apply();
}

void KvCacheMenu::apply() {
    const QSettings settings;
    KvCacheLayout layout;
    layout.type = rememberedType();
    layout.window = std::max<qint64>(0, settings.value("engine/window", 0).toLongLong());
    layout.sinks =
        layout.window > 0 ? std::max<qint64>(0, settings.value("engine/sinks", 0).toLongLong()) : 0;
    use(layout);
}

void KvCacheMenu::use(const KvCacheLayout& layout) {
    worker_->setKvCacheLayout(layout);
    typeActions_[int(layout.type)]->setChecked(true);  // in KvType's order
    retranslateWindowAction();
}

void KvCacheMenu::retranslateWindowAction() {
    const KvCacheLayout layout = worker_->kvCacheLayout();
    windowAction_->setText(layout.window > 0
                               ? tr("Sliding KV cache window: %1 sink tokens + the last %2…")
                                     .arg(layout.sinks)
                                     .arg(layout.window)
                               : tr("Sliding KV cache window: off…"));
}

void KvCacheMenu::chooseWindow() {
    const KvCacheLayout layout = worker_->kvCacheLayout();
    auto* dialog = new QDialog(dialogParent_);
    dialog->setObjectName(QStringLiteral("slidingWindowDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Sliding KV cache window"));
    auto* form = new QFormLayout(dialog);
    auto* explanation = new QLabel(
        tr("The cache keeps the first tokens (the attention sinks) and the most recent ones, and "
           "evicts the rest, so generation runs on past the context in constant memory. Keys keep "
           "the positions they were computed at. Runs on the CPU."));
    explanation->setWordWrap(true);
    form->addRow(explanation);
    auto* slides = new QCheckBox(tr("Slide the KV cache"));
    slides->setObjectName(QStringLiteral("slidesBox"));
    slides->setChecked(layout.window > 0);
    auto* window = new QSpinBox;
    window->setObjectName(QStringLiteral("windowBox"));
    window->setRange(1, 1 << 20);
    window->setValue(int(layout.window > 0 ? layout.window : kDefaultWindow));
    auto* sinks = new QSpinBox;
    sinks->setObjectName(QStringLiteral("sinksBox"));
    sinks->setRange(0, 1024);
    sinks->setValue(int(layout.window > 0 ? layout.sinks : kDefaultSinks));
    form->addRow(slides);
    form->addRow(tr("Recent tokens kept"), window);
    form->addRow(tr("Sink tokens kept"), sinks);
    const auto enable = [=](bool on) {
        window->setEnabled(on);
        sinks->setEnabled(on);
    };
    enable(slides->isChecked());
    connect(slides, &QCheckBox::toggled, dialog, enable);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    connect(dialog, &QDialog::accepted, this, [=, this] {
        QSettings settings;
        settings.setValue("engine/window", slides->isChecked() ? window->value() : 0);
        settings.setValue("engine/sinks", sinks->value());
        apply();
    });
    dialog->open();
}

}  // namespace inferlens::gui
