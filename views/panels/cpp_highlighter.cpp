#include "views/panels/cpp_highlighter.h"

namespace fxs::views {

CppHighlighter::CppHighlighter(QTextDocument* document) : RuleHighlighter(document)
{
    const bool dark = darkPalette();
    const QColor keyword = dark ? QColor(0xc6, 0x92, 0xf0) : QColor(0x7a, 0x1f, 0xa2);
    const QColor type = dark ? QColor(0x6c, 0xb6, 0xff) : QColor(0x00, 0x55, 0xaa);
    const QColor number = dark ? QColor(0xf0, 0xa8, 0x6e) : QColor(0xa6, 0x4b, 0x00);
    const QColor preproc = dark ? QColor(0x5f, 0xd0, 0xc0) : QColor(0x00, 0x7a, 0x6c);
    const QColor string = dark ? QColor(0x9c, 0xd6, 0x7e) : QColor(0x2e, 0x7d, 0x32);
    m_comment = makeFormat(dark ? QColor(0x9a, 0x9a, 0x9a) : QColor(0x6a, 0x6a, 0x6a), false, true);

    addRule(QStringLiteral("\\b(auto|break|case|const|constexpr|continue|default|do|else|enum|"
                           "extern|for|if|inline|namespace|noexcept|return|static|struct|switch|"
                           "template|typename|using|while|restrict|__restrict__)\\b"),
            makeFormat(keyword, true));
    addRule(QStringLiteral("\\b(void|bool|char|int|long|float|double|unsigned|signed|short|"
                           "size_t|u?int(8|16|32|64)_t|std::[A-Za-z_0-9:]+)\\b"),
            makeFormat(type));
    addRule(QStringLiteral("\\b[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?[fFuUlL]*\\b"),
            makeFormat(number));
    addRule(QStringLiteral("^\\s*#[^\n]*"), makeFormat(preproc));
    addRule(QStringLiteral("\"[^\"\\\\]*(\\\\.[^\"\\\\]*)*\""), makeFormat(string));
    addRule(QStringLiteral("//[^\n]*"), m_comment);
}

void CppHighlighter::highlightBlock(const QString& text)
{
    applyRules(text);
    // Block comments, possibly spanning lines: state 1 means "inside /* */".
    setCurrentBlockState(0);
    qsizetype start = previousBlockState() == 1 ? 0 : text.indexOf(QStringLiteral("/*"));
    while (start >= 0) {
        const qsizetype end = text.indexOf(QStringLiteral("*/"), start);
        if (end < 0) {
            setFormat(static_cast<int>(start), static_cast<int>(text.size() - start), m_comment);
            setCurrentBlockState(1);
            return;
        }
        setFormat(static_cast<int>(start), static_cast<int>(end + 2 - start), m_comment);
        start = text.indexOf(QStringLiteral("/*"), end + 2);
    }
}

} // namespace fxs::views
