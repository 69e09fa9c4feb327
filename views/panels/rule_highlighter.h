// The base of fxscope's code highlighters: an ordered list of regular-expression rules painted
// over each block (later rules win), plus the palette-aware colour helpers they share. The
// language-specific parts (multi-line strings or comments) stay in the subclasses.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <vector>

namespace fxs::views {

class RuleHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
protected:
    explicit RuleHighlighter(QTextDocument* document);

    // Whether the application palette is dark (base lightness under one half).
    static bool darkPalette();
    static QTextCharFormat makeFormat(const QColor& color, bool bold = false,
                                      bool italic = false);

    void addRule(const QString& pattern, const QTextCharFormat& format);
    // Paints every rule's matches from `start` on, in rule order.
    void applyRules(const QString& text, int start = 0);

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    std::vector<Rule> m_rules;
};

} // namespace fxs::views
