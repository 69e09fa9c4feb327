// The line-driven reader behind parseGraphCode: walks physical lines, joins bracketed
// continuations, tracks nested `class` bodies (one GraphBuilder each), the current
// `# File:` comment group, and turns signatures, statements and returns into nodes.
// Internal to fxscope_io; parseGraphCode is the public entry point.
#pragma once

#include "core/graph/graph_builder.h"
#include "core/io/graph_code_lowering.h"
#include "core/io/graph_code_parser.h"
#include "core/io/py_expr.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::io::detail {

struct PendingParam {
    std::string_view name;
    graph::ValueMeta meta;
    std::optional<graph::AotTag> aot;
    std::string_view text; // `name: "meta"` as written
    int line = 0;          // 0-based physical line
};

// One `class X(torch.nn.Module):` body (or the bare `def forward` form).
struct Frame {
    std::string name = "GraphModule";
    int classIndent = -1; // -1: bare `def forward` without a class line
    int defIndent = -1;   // -1 until `def forward` is read
    int firstLine = 0;    // 0-based line of the class/def
    bool returned = false;
    bool paramsEmitted = false;
    graph::GraphBuilder builder;
    NameMap names;
    std::vector<PendingParam> params;
    graph::SourceLoc source;                     // current `# File:` group
    std::optional<graph::Annotation> annotation; // current `# Annotation:` group
};

// A logical line: one physical line plus bracketed continuation lines.
struct Logical {
    int first = 0; // 0-based physical lines
    int last = 0;
    std::string_view text; // verbatim, from the first non-blank character
};

class GraphCodeReader {
public:
    GraphCodeReader(std::string_view text, const std::string& path, int firstLine, bool keepText);
    GraphCodeResult run();

private:
    // graph_code_parser.cpp: lines, frames, comments
    bool nextLine(std::string_view& line);
    void dispatch(std::string_view line, std::string_view content, int indent);
    bool gather(std::string_view line, int indent, Logical& out);
    void comment(std::string_view text);
    void openClass(std::string_view content, int indent);
    void closeFramesFrom(int indent);
    void popFrame();
    graph::GraphPtr finalize(Frame& f, bool topLevel);
    void outside(std::string_view content);
    Frame* current() { return m_frames.empty() ? nullptr : m_frames.back().get(); }
    void error(int line, std::string message, std::string expected, std::string_view found);
    void warning(int line, std::string message);
    void failStatement(const Logical& l, const PyError& e);

    // graph_code_statements.cpp: signature, statements, return
    void signature(std::string_view line, int indent);
    bool parseParams(PyParser& p, std::vector<PendingParam>& params);
    void statement(Frame& f, const Logical& l);
    bool declarations(Frame& f, PyParser& p);
    bool pytreeFlatten(Frame& f, PyParser& p, const Logical& l);
    bool alias(Frame& f, std::string_view name, std::uint32_t rhs);
    bool annotation(PyParser& p, graph::ValueMeta& meta);
    bool assignment(Frame& f, PyParser& p, const Logical& l);
    bool inPlace(Frame& f, PyParser& p, const Logical& l);
    bool node(Frame& f, graph::Node&& node, std::string_view name, const Logical& l);
    void returnStatement(Frame& f, const Logical& l);
    void returnedValues(Lowering& low, std::uint32_t e, graph::Node& out);
    void emitParams(Frame& f);
    graph::NodeId addNode(Frame& f, graph::Node&& node, std::string_view name);
    void reportUnknownNames(const Lowering& low, int line);
    std::optional<graph::AotTag> commentAfter(std::size_t tok) const;

    std::string_view m_text;
    const std::string& m_path;
    int m_firstLine;
    bool m_keepText;
    std::size_t m_cursor = 0;
    int m_line = -1; // 0-based index of the line nextLine() returned last
    std::vector<std::unique_ptr<Frame>> m_frames;
    graph::GraphPtr m_result;
    GraphCodeResult m_out;
    std::vector<PyToken> m_toks;
    PyAst m_ast;
    std::string m_unquoted; // storage for unquoteView
    int m_outsideLines = 0;
    int m_firstOutside = -1;
    std::string_view m_firstOutsideText;
    bool m_sawGraph = false;
    std::size_t m_reported = 0;
};

} // namespace fxs::io::detail
