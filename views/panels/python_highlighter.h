// Syntax colouring for the Python that PyTorch prints (graph code, Inductor output code):
// keywords, strings (incl. triple-quoted blocks), comments, numbers, torch.ops targets.
// Picks its colours from the palette so dark themes stay readable. Not a Python parser.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <vector>

namespace fxs::views {

class PythonHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit PythonHighlighter(QTextDocument* document);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    void addRule(const QString& pattern, const QTextCharFormat& format);
    bool continueTripleQuote(const QString& text, int& start);

    std::vector<Rule> m_rules;
    QTextCharFormat m_string;
    QTextCharFormat m_comment;
};

} // namespace fxs::views
