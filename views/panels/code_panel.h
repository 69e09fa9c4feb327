// The Code dock: the selected graph's printed code and the Inductor output code of its compile
// id, syntax-highlighted, read-only. Selecting a node highlights its statement (graph code:
// Node::line relative to Graph::firstLine; output code: the line that names the node in
// Inductor's "%name : ... = call_function" or "Source Nodes: [...]" comments).
#pragma once

#include "core/graph/graph.h"

#include <QHash>
#include <QString>
#include <QWidget>

#include <vector>

class QComboBox;
class QPlainTextEdit;

namespace fxs::views {

class PythonHighlighter;

struct CodeText {
    QString title; // "output_code.py (0/0)"
    QString text;
};

class CodePanel : public QWidget {
    Q_OBJECT
public:
    explicit CodePanel(QWidget* parent = nullptr);

    // Shows the graph's text first, then each output code in the source combo.
    void setGraph(graph::GraphPtr graph, std::vector<CodeText> outputCode = {});
    void clear();
    // Highlights and scrolls to the node's line in the current text (when it has one).
    void showNode(graph::NodeId id);
    // Picks the source shown: 0 is the graph code, 1.. the output codes.
    void setCurrentSource(int index);
    int sourceCount() const;

    // 1-based line of the highlighted line in the current text; 0 when none.
    int highlightedLine() const { return m_highlighted; }
    QString currentText() const;

    // 0-based line in `text` that names node `name` in Inductor output code, or -1.
    static int findNodeInOutputCode(const QString& text, const QString& name);
    // The 0-based line of node `name`'s statement in printed graph code, -1 when none (a
    // placeholder is in the signature).
    static int findStatement(const QString& text, const QString& name);
    // Every statement's name in printed graph code and its 0-based line (its first).
    static QHash<QString, int> statementLines(const QString& text);

private:
    void showSource(int index);
    void highlightLine(int zeroBasedLine);

    QComboBox* m_sources;
    QPlainTextEdit* m_editor;
    PythonHighlighter* m_highlighter;
    graph::GraphPtr m_graph;
    std::vector<CodeText> m_outputCode;
    QString m_printed; // the graph printed, when it has no text of its own
    QHash<QString, int> m_printedLines; // statementLines(m_printed)
    graph::NodeId m_node = graph::kNoNode;
    int m_highlighted = 0;
};

} // namespace fxs::views
