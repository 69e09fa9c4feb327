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
    m_edit->setPlaceholderText(tr("Find node by name, op, module or attribute"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    m_regex = new QToolButton(this);
    m_regex->setObjectName(QStringLiteral("findRegexButton"));
    m_regex->setText(QStringLiteral(".*"));
    m_regex->setCheckable(true);
    m_regex->setToolTip(tr("Regular expression (Alt+R)"));
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("findStatus"));
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
    layout->addWidget(m_regex);
    layout->addWidget(m_status);
    layout->addWidget(prev);
    layout->addWidget(next);
    layout->addWidget(close);
    connect(m_edit, &QLineEdit::textChanged, this, &FindBar::textChanged);
    connect(m_regex, &QToolButton::toggled, this, &FindBar::regexToggled);
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

bool FindBar::isRegex() const
{
    return m_regex->isChecked();
}

void FindBar::setRegex(bool regex)
{
    m_regex->setChecked(regex);
}

void FindBar::setStatus(int current, int total, const QString& detail)
{
    if (m_edit->text().isEmpty()) {
        m_status->clear();
    } else if (total == 0) {
        m_status->setText(tr("no match"));
    } else {
        QString text = tr("%1/%2").arg(current < 0 ? QStringLiteral("–")
                                                   : QString::number(current + 1))
                           .arg(total);
        if (!detail.isEmpty()) {
            text += QStringLiteral(" · ") + detail;
        }
        m_status->setText(text);
    }
    m_status->setToolTip(m_status->text());
}

void FindBar::showError(const QString& message)
{
    m_status->setText(tr("invalid: %1").arg(message));
    m_status->setToolTip(m_status->text());
}

QString FindBar::statusText() const
{
    return m_status->text();
}

// Alt+R toggles the expression mode before a menu mnemonic can take it; Enter steps forward,
// Shift+Enter back.
bool FindBar::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != m_edit ||
        (event->type() != QEvent::ShortcutOverride && event->type() != QEvent::KeyPress)) {
        return QWidget::eventFilter(watched, event);
    }
    const auto* key = static_cast<QKeyEvent*>(event);
    const bool altR = key->key() == Qt::Key_R && key->modifiers() == Qt::AltModifier;
    const bool enter = key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter;
    if (event->type() == QEvent::ShortcutOverride) {
        if (altR) {
            event->accept(); // delivered as a key press to the edit, not to the menu bar
        }
        return false;
    }
    if (altR) {
        m_regex->toggle();
        return true;
    }
    if (enter) {
        if (key->modifiers() & Qt::ShiftModifier) {
            Q_EMIT previousRequested();
        } else {
            Q_EMIT nextRequested();
        }
        return true;
    }
    return false;
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
