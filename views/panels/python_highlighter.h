// Syntax colouring for the Python that PyTorch prints (graph code, Inductor output code):
// keywords, strings (incl. triple-quoted blocks), comments, numbers, torch.ops targets.
// Picks its colours from the palette so dark themes stay readable. Not a Python parser.
#pragma once

#include "views/panels/rule_highlighter.h"

namespace fxs::views {

class PythonHighlighter : public RuleHighlighter {
    Q_OBJECT
public:
    explicit PythonHighlighter(QTextDocument* document);

protected:
    void highlightBlock(const QString& text) override;

private:
    bool continueTripleQuote(const QString& text, int& start);

    QTextCharFormat m_string;
    QTextCharFormat m_comment;
};

} // namespace fxs::views
