// Syntax colouring for the C++ the region compiler generates: keywords and types, preprocessor
// lines and pragmas (#pragma omp), numbers, strings, // and /* */ comments. Colours come from
// the palette's lightness so dark themes stay readable. Not a C++ parser.
#pragma once

#include "views/panels/rule_highlighter.h"

namespace fxs::views {

class CppHighlighter : public RuleHighlighter {
    Q_OBJECT
public:
    explicit CppHighlighter(QTextDocument* document);

protected:
    void highlightBlock(const QString& text) override;

private:

    QTextCharFormat m_comment;
};

} // namespace fxs::views
