// Syntax colouring for the C++ the region compiler generates: keywords and types, preprocessor
// lines and pragmas (#pragma omp), numbers, strings, // and /* */ comments. Colours come from
// the palette's lightness so dark themes stay readable. Not a C++ parser.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <vector>

namespace fxs::views {

class CppHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit CppHighlighter(QTextDocument* document);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    void addRule(const QString& pattern, const QTextCharFormat& format);

    std::vector<Rule> m_rules;
    QTextCharFormat m_comment;
};

} // namespace fxs::views
