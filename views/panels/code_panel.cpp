#include "views/panels/code_panel.h"

#include "views/panels/python_highlighter.h"

#include "core/graph/graph_printer.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTextBlock>
#include <QVBoxLayout>

namespace fxs::views {

CodePanel::CodePanel(QWidget* parent)
    : QWidget(parent), m_sources(new QComboBox(this)), m_editor(new QPlainTextEdit(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_sources);
    layout->addWidget(m_editor);
    m_sources->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_editor->setReadOnly(true);
    m_editor->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setPlaceholderText(tr("Select a graph to see its code."));
    m_editor->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_highlighter = new PythonHighlighter(m_editor->document());
    connect(m_sources, &QComboBox::currentIndexChanged, this, [this](int i) { showSource(i); });
    clear();
}

void CodePanel::setGraph(graph::GraphPtr graph, std::vector<CodeText> outputCode)
{
    m_graph = std::move(graph);
    m_outputCode = std::move(outputCode);
    m_node = graph::kNoNode;
    // A graph read from a torch.export program or a TorchScript module has no text of its
    // own: it is shown printed as graph code (printGraphCode: 11 ms for LLaMA-64's 11,246-node
    // backward, 1.4 MB), up to kMaxPrintedNodes, on this thread as the editor's own work is.
    constexpr std::size_t kMaxPrintedNodes = 200000;
    const bool noText = m_graph && m_graph->text().empty();
    m_printed = noText && m_graph->size() <= kMaxPrintedNodes
                    ? QString::fromStdString(graph::printGraphCode(*m_graph))
                    : QString();
    m_printedLines = statementLines(m_printed); // once, not on every node shown
    const QSignalBlocker block(m_sources);
    m_sources->clear();
    m_sources->addItem(!noText                ? tr("Graph code")
                       : !m_printed.isEmpty() ? tr("Graph code (printed by fxscope)")
                                              : tr("Graph code (none: %1 nodes, too many to print "
                                                   "here)")
                                                    .arg(m_graph->size()));
    for (const auto& code : m_outputCode) {
        m_sources->addItem(code.title);
    }
    m_sources->setEnabled(m_graph != nullptr);
    m_sources->setCurrentIndex(0);
    showSource(0);
}

void CodePanel::clear()
{
    setGraph(nullptr, {});
}

int CodePanel::sourceCount() const
{
    return m_sources->count();
}

void CodePanel::setCurrentSource(int index)
{
    m_sources->setCurrentIndex(index);
}

QString CodePanel::currentText() const
{
    return m_editor->toPlainText();
}

void CodePanel::showSource(int index)
{
    m_highlighted = 0;
    m_editor->setExtraSelections({});
    if (index <= 0) {
        m_editor->setPlainText(!m_graph              ? QString()
                               : m_printed.isEmpty() ? QString::fromStdString(m_graph->text())
                                                     : m_printed);
    } else if (static_cast<std::size_t>(index) <= m_outputCode.size()) {
        m_editor->setPlainText(m_outputCode[static_cast<std::size_t>(index - 1)].text);
    }
    if (m_node != graph::kNoNode) {
        showNode(m_node);
    }
}

void CodePanel::showNode(graph::NodeId id)
{
    if (!m_graph || id >= m_graph->size()) {
        return;
    }
    m_node = id;
    const graph::Node& node = m_graph->node(id);
    int line = -1;
    if (m_sources->currentIndex() <= 0 && !m_printed.isEmpty()) {
        line = m_printedLines.value(QString::fromStdString(node.name), -1);
    } else if (m_sources->currentIndex() <= 0) {
        line = node.line > 0 ? node.line - m_graph->firstLine() : -1;
    } else {
        line = findNodeInOutputCode(m_editor->toPlainText(), QString::fromStdString(node.name));
    }
    highlightLine(line);
}

void CodePanel::highlightLine(int zeroBasedLine)
{
    const QTextBlock block = m_editor->document()->findBlockByNumber(zeroBasedLine);
    if (zeroBasedLine < 0 || !block.isValid()) {
        m_highlighted = 0;
        m_editor->setExtraSelections({});
        return;
    }
    QTextEdit::ExtraSelection sel;
    QColor color = palette().color(QPalette::Highlight);
    color.setAlpha(70);
    sel.format.setBackground(color);
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = QTextCursor(block);
    m_editor->setExtraSelections({sel});
    m_editor->setTextCursor(QTextCursor(block));
    m_editor->centerCursor();
    m_highlighted = zeroBasedLine + 1;
}

int CodePanel::findStatement(const QString& text, const QString& name)
{
    return statementLines(text).value(name, -1);
}

QHash<QString, int> CodePanel::statementLines(const QString& text)
{
    // `name = ...` or `name: "f32[4]" = ...` at the start of a line; a name's first statement.
    static const QRegularExpression statement(
        QStringLiteral("^\\s*([A-Za-z_][A-Za-z0-9_]*)(\\s*:\\s*\"[^\"]*\")?\\s*=[^=]"));
    QHash<QString, int> lines;
    int i = 0;
    for (const QStringView line : QStringView(text).split(QLatin1Char('\n'))) {
        const QRegularExpressionMatch m = statement.match(line);
        if (m.hasMatch() && !lines.contains(m.captured(1))) {
            lines.insert(m.captured(1), i);
        }
        ++i;
    }
    return lines;
}

int CodePanel::findNodeInOutputCode(const QString& text, const QString& name)
{
    if (name.isEmpty()) {
        return -1;
    }
    const QString n = QRegularExpression::escape(name);
    // The FX node dump Inductor writes above each kernel is the most precise place.
    const QRegularExpression dump(QStringLiteral("^\\s*#\\s+%%1 :.*= call_").arg(n));
    const QRegularExpression sources(
        QStringLiteral("Source Nodes: \\[[^\\]]*(?<![A-Za-z0-9_])%1(?![A-Za-z0-9_])").arg(n));
    const QStringList lines = text.split(QLatin1Char('\n'));
    int fallback = -1;
    for (int i = 0; i < lines.size(); ++i) {
        if (dump.match(lines[i]).hasMatch()) {
            return i;
        }
        if (fallback < 0 && sources.match(lines[i]).hasMatch()) {
            fallback = i;
        }
    }
    return fallback;
}

} // namespace fxs::views
