#include "views/graph/find_bar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

namespace fxs::views {

FindBar::FindBar(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    m_edit = new QLineEdit(this);
    m_edit->setPlaceholderText(tr("Find node by name or op"));
    m_edit->setClearButtonEnabled(true);
    m_status = new QLabel(this);
    m_status->setMinimumWidth(60);
    auto* prev = new QToolButton(this);
    prev->setText(tr("Previous"));
    prev->setToolTip(tr("Previous match (Shift+F3)"));
    auto* next = new QToolButton(this);
    next->setText(tr("Next"));
    next->setToolTip(tr("Next match (Enter, F3)"));
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Close (Esc)"));
    layout->addWidget(new QLabel(tr("Find:"), this));
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_status);
    layout->addWidget(prev);
    layout->addWidget(next);
    layout->addWidget(close);
    connect(m_edit, &QLineEdit::textChanged, this, &FindBar::textChanged);
    connect(m_edit, &QLineEdit::returnPressed, this, &FindBar::nextRequested);
    connect(next, &QToolButton::clicked, this, &FindBar::nextRequested);
    connect(prev, &QToolButton::clicked, this, &FindBar::previousRequested);
    connect(close, &QToolButton::clicked, this, [this] {
        hide();
        Q_EMIT closed();
    });
}

QString FindBar::text() const
{
    return m_edit->text();
}

void FindBar::setText(const QString& text)
{
    m_edit->setText(text);
}

void FindBar::activate()
{
    show();
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

void FindBar::setStatus(int current, int total)
{
    if (m_edit->text().isEmpty()) {
        m_status->clear();
    } else if (total == 0) {
        m_status->setText(tr("no match"));
    } else {
        m_status->setText(current < 0 ? tr("%1 found").arg(total)
                                      : tr("%1 / %2").arg(current + 1).arg(total));
    }
}

void FindBar::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape) {
        hide();
        Q_EMIT closed();
        return;
    }
    if (event->key() == Qt::Key_F3) {
        if (event->modifiers() & Qt::ShiftModifier) {
            Q_EMIT previousRequested();
        } else {
            Q_EMIT nextRequested();
        }
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace fxs::views
