#include "views/panels/rule_highlighter.h"

#include <QGuiApplication>
#include <QPalette>

namespace fxs::views {

RuleHighlighter::RuleHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {}

bool RuleHighlighter::darkPalette()
{
    return QGuiApplication::palette().color(QPalette::Base).lightnessF() < 0.5;
}

QTextCharFormat RuleHighlighter::makeFormat(const QColor& color, bool bold, bool italic)
{
    QTextCharFormat f;
    f.setForeground(color);
    if (bold) {
        f.setFontWeight(QFont::Bold);
    }
    f.setFontItalic(italic);
    return f;
}

void RuleHighlighter::addRule(const QString& pattern, const QTextCharFormat& format)
{
    m_rules.push_back(Rule{QRegularExpression(pattern), format});
}

void RuleHighlighter::applyRules(const QString& text, int start)
{
    for (const Rule& rule : m_rules) {
        auto it = rule.pattern.globalMatch(text, start);
        while (it.hasNext()) {
            const auto m = it.next();
            setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()),
                      rule.format);
        }
    }
}

} // namespace fxs::views
