#include "views/panels/python_highlighter.h"

namespace fxs::views {

PythonHighlighter::PythonHighlighter(QTextDocument* document) : RuleHighlighter(document)
{
    const bool dark = darkPalette();
    const QColor keyword = dark ? QColor(0xc6, 0x92, 0xf0) : QColor(0x7a, 0x1f, 0xa2);
    const QColor number = dark ? QColor(0xf0, 0xa8, 0x6e) : QColor(0xa6, 0x4b, 0x00);
    const QColor op = dark ? QColor(0x6c, 0xb6, 0xff) : QColor(0x00, 0x55, 0xaa);
    const QColor meta = dark ? QColor(0x5f, 0xd0, 0xc0) : QColor(0x00, 0x7a, 0x6c);
    m_string = makeFormat(dark ? QColor(0x9c, 0xd6, 0x7e) : QColor(0x2e, 0x7d, 0x32));
    m_comment = makeFormat(dark ? QColor(0x9a, 0x9a, 0x9a) : QColor(0x6a, 0x6a, 0x6a), false, true);

    addRule(QStringLiteral("\\b(and|as|assert|async|await|break|class|continue|def|del|elif|else|"
                           "except|False|finally|for|from|global|if|import|in|is|lambda|None|"
                           "nonlocal|not|or|pass|raise|return|self|True|try|while|with|yield)\\b"),
            makeFormat(keyword, true));
    addRule(QStringLiteral("\\b[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?\\b"), makeFormat(number));
    addRule(QStringLiteral("\\btorch\\.ops\\.[A-Za-z_0-9.]+"), makeFormat(op));
    addRule(QStringLiteral("\\b(triton_[A-Za-z_0-9]+|extern_kernels\\.[A-Za-z_0-9]+)"), makeFormat(op));
    // Printed meta annotations inside strings are coloured as strings first, so meta
    // shapes ("f32[64, 64]") come after and win.
    addRule(QStringLiteral("\"[^\"\\\\]*(\\\\.[^\"\\\\]*)*\"|'[^'\\\\]*(\\\\.[^'\\\\]*)*'"), m_string);
    addRule(QStringLiteral("\"(f16|bf16|f32|f64|i8|i16|i32|i64|u8|b8|c64|c128|Sym)[^\"]*\""),
            makeFormat(meta));
    addRule(QStringLiteral("#[^\n]*"), m_comment);
}

// Colours the rest of a triple-quoted string begun on an earlier line; returns false when it
// does not close on this line.
bool PythonHighlighter::continueTripleQuote(const QString& text, int& start)
{
    const int end = static_cast<int>(text.indexOf(QStringLiteral("'''"), start));
    const int end2 = static_cast<int>(text.indexOf(QStringLiteral("\"\"\""), start));
    const int close = (end < 0) ? end2 : (end2 < 0 ? end : std::min(end, end2));
    if (close < 0) {
        setFormat(start, static_cast<int>(text.size()) - start, m_string);
        return false;
    }
    setFormat(start, close + 3 - start, m_string);
    start = close + 3;
    return true;
}

void PythonHighlighter::highlightBlock(const QString& text)
{
    int start = 0;
    setCurrentBlockState(0);
    if (previousBlockState() == 1 && !continueTripleQuote(text, start)) {
        setCurrentBlockState(1);
        return;
    }
    applyRules(text, start);
    // An opening triple quote without its close on this line (Inductor's kernel sources).
    for (const QString& quote : {QStringLiteral("'''"), QStringLiteral("\"\"\"")}) {
        const auto open = text.indexOf(quote, start);
        if (open >= 0 && text.indexOf(quote, open + 3) < 0) {
            setFormat(static_cast<int>(open), static_cast<int>(text.size() - open), m_string);
            setCurrentBlockState(1);
            return;
        }
    }
}

} // namespace fxs::views
