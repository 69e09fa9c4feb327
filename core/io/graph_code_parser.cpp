// parseGraphCode: the line driver (frames for nested classes, comment groups, continuation
// lines). Statements, signatures and returns are in graph_code_statements.cpp.
#include "core/io/graph_code_parser.h"

#include "core/io/graph_code_reader.h"
#include "core/io/graph_comments.h"
#include "core/util/strings.h"

namespace fxs::io {

namespace detail {

namespace {

constexpr std::size_t kMaxReported = 1000; // diagnostics per parse; the rest are counted only

std::size_t countNodes(const graph::Graph& g)
{
    std::size_t n = g.size();
    for (const auto& sub : g.submodules()) {
        n += countNodes(*sub);
    }
    return n;
}

bool isClosingBracket(char c) { return c == ')' || c == ']' || c == '}'; }

} // namespace

GraphCodeReader::GraphCodeReader(std::string_view text, const std::string& path, int firstLine,
                                 bool keepText)
    : m_text(text), m_path(path), m_firstLine(firstLine), m_keepText(keepText)
{
}

void GraphCodeReader::error(int line, std::string message, std::string expected,
                            std::string_view found)
{
    if (m_reported++ < kMaxReported) {
        m_out.diagnostics.error(m_path, m_firstLine + line, std::move(message), std::move(expected),
                                abbreviate(found));
    } else if (m_reported == kMaxReported + 1) {
        m_out.diagnostics.note(m_path, m_firstLine + line, "too many problems; the rest are not listed");
    }
}

void GraphCodeReader::warning(int line, std::string message)
{
    if (m_reported++ < kMaxReported) {
        m_out.diagnostics.warning(m_path, m_firstLine + line, std::move(message));
    }
}

void GraphCodeReader::failStatement(const Logical& l, const PyError& e)
{
    const int line = e.line >= l.first && e.line <= l.last ? e.line : l.first;
    error(line, e.message, e.expected, e.found);
    m_out.unparsedLines += l.last - l.first + 1;
}

bool GraphCodeReader::nextLine(std::string_view& line)
{
    if (m_cursor > m_text.size()) {
        return false;
    }
    const auto nl = m_text.find('\n', m_cursor);
    const std::size_t end = nl == std::string_view::npos ? m_text.size() : nl;
    line = m_text.substr(m_cursor, end - m_cursor);
    m_cursor = nl == std::string_view::npos ? m_text.size() + 1 : nl + 1;
    ++m_line;
    return true;
}

// Joins continuation lines while brackets are open. A line that is not indented deeper than the
// opening line (and does not start with a closing bracket) ends the statement: unterminated.
bool GraphCodeReader::gather(std::string_view line, int indent, Logical& out)
{
    m_toks.clear();
    out.first = out.last = m_line;
    LexState st;
    const auto lexFailed = [&](int at) {
        PyError e{"unreadable token", "Python tokens", st.errorText, at};
        out.text = trim(line);
        failStatement(out, e);
        return false;
    };
    if (!lexLine(line, m_line, m_toks, st)) {
        return lexFailed(m_line);
    }
    const char* begin = line.data() + indent;
    const char* end = line.data() + line.size();
    while (st.depth > 0) {
        const std::size_t savedCursor = m_cursor;
        const int savedLine = m_line;
        std::string_view next;
        const bool more = nextLine(next);
        const std::string_view content = more ? trim(next) : std::string_view();
        if (!more || content.empty() ||
            (indentOf(next) <= indent && !isClosingBracket(content[0]))) {
            m_cursor = savedCursor;
            m_line = savedLine;
            out.text = std::string_view(begin, static_cast<std::size_t>(end - begin));
            const std::string_view found = !more           ? std::string_view("end of input")
                                           : content.empty() ? std::string_view("a blank line")
                                                             : content;
            PyError e{"unterminated bracket", "a closing bracket", found, more ? savedLine + 1 : savedLine};
            failStatement(out, e);
            return false;
        }
        out.last = m_line;
        end = next.data() + next.size();
        if (content[0] != '#' && !lexLine(next, m_line, m_toks, st)) {
            out.text = std::string_view(begin, static_cast<std::size_t>(end - begin));
            return lexFailed(m_line);
        }
    }
    out.text = trim(std::string_view(begin, static_cast<std::size_t>(end - begin)));
    return true;
}

void GraphCodeReader::comment(std::string_view text)
{
    Frame* f = current();
    if (!f) {
        return;
    }
    SourceComment c = parseSourceComment(text);
    if (c.kind == CommentKind::Source) {
        f->source = std::move(c.source);
        f->annotation = std::move(c.annotation);
    } else {
        f->source = {};
        f->annotation.reset();
    }
}

void GraphCodeReader::openClass(std::string_view content, int indent)
{
    auto f = std::make_unique<Frame>();
    std::string_view rest = content.substr(6); // after "class "
    const auto end = rest.find_first_of("(:");
    f->name = std::string(trim(rest.substr(0, end)));
    if (f->name.empty() || end == std::string_view::npos || content.back() != ':') {
        error(m_line, "malformed class line", "class <Name>(torch.nn.Module):", content);
        ++m_out.unparsedLines;
    }
    f->classIndent = indent;
    f->firstLine = m_line;
    f->builder = graph::GraphBuilder(f->name);
    m_frames.push_back(std::move(f));
    m_sawGraph = true;
}

void GraphCodeReader::closeFramesFrom(int indent)
{
    while (!m_frames.empty() && m_frames.back()->classIndent >= indent) {
        popFrame();
    }
}

void GraphCodeReader::popFrame()
{
    std::unique_ptr<Frame> f = std::move(m_frames.back());
    m_frames.pop_back();
    const bool topLevel = m_frames.empty();
    graph::GraphPtr g = finalize(*f, topLevel && !m_result);
    if (!g) {
        return;
    }
    if (!topLevel) {
        m_frames.back()->builder.addSubmodule(std::move(g));
    } else if (!m_result) {
        m_result = std::move(g);
    } else {
        warning(f->firstLine, "a second top-level graph '" + f->name + "' was ignored");
    }
}

graph::GraphPtr GraphCodeReader::finalize(Frame& f, bool first)
{
    if (f.defIndent < 0) {
        error(f.firstLine, "class '" + f.name + "' has no forward", "def forward(self, ...):",
              "end of class");
    } else if (!f.returned) {
        error(m_line, "graph '" + f.name + "' ends without a return statement", "return ...",
              "end of graph");
    }
    emitParams(f);
    f.builder.setSource(m_path, m_firstLine, first && m_keepText ? std::string(m_text) : "");
    auto built = f.builder.build();
    if (!built) {
        error(f.firstLine, "graph '" + f.name + "' is inconsistent: " + built.error().message,
              "a valid graph", built.error().where);
        return nullptr;
    }
    return std::move(built).value();
}

void GraphCodeReader::outside(std::string_view content)
{
    if (m_outsideLines++ == 0) {
        m_firstOutside = m_line;
        m_firstOutsideText = content;
    }
}

void GraphCodeReader::dispatch(std::string_view line, std::string_view content, int indent)
{
    if (content[0] == '#') {
        comment(content.substr(1));
        return;
    }
    closeFramesFrom(indent);
    if (startsWith(content, "class ")) {
        openClass(content, indent);
        return;
    }
    if (startsWith(content, "def ")) {
        signature(line, indent);
        return;
    }
    if (content == "GraphModule()" || endsWith(content, " gm: GraphModule()")) {
        return; // the head of a cache key's `gm` component
    }
    Frame* f = current();
    if (!f || f->defIndent < 0 || indent <= f->defIndent) {
        outside(content);
        return;
    }
    Logical l;
    if (!gather(line, indent, l) || m_toks.empty()) {
        return; // failed, or only whitespace the trim above does not strip (form feeds)
    }
    const bool isReturn = m_toks[0].kind == TokKind::Name && m_toks[0].text == "return";
    if (f->returned) {
        error(l.first, "statement after return", "end of forward", l.text);
        m_out.unparsedLines += l.last - l.first + 1;
    } else if (isReturn) {
        returnStatement(*f, l);
    } else {
        statement(*f, l);
    }
}

GraphCodeResult GraphCodeReader::run()
{
    std::string_view line;
    while (nextLine(line)) {
        const std::string_view content = trim(line);
        if (content.empty()) {
            if (Frame* f = current()) {
                f->source = {};
                f->annotation.reset();
            }
            continue;
        }
        dispatch(line, content, indentOf(line));
    }
    while (!m_frames.empty()) {
        popFrame();
    }
    if (!m_result) {
        if (!m_sawGraph) {
            error(m_firstOutside < 0 ? 0 : m_firstOutside, "no graph found",
                  "printed graph code (class ... / def forward(self, ...):)",
                  m_firstOutside < 0 ? std::string_view("empty input") : m_firstOutsideText);
        }
        m_out.unparsedLines += m_outsideLines;
        return std::move(m_out);
    }
    if (m_outsideLines > 0) {
        error(m_firstOutside, "text outside any graph (" + std::to_string(m_outsideLines) +
                                  " lines) was ignored", "graph code", m_firstOutsideText);
        m_out.unparsedLines += m_outsideLines;
    }
    m_out.statements = static_cast<int>(countNodes(*m_result));
    m_out.graph = std::move(m_result);
    return std::move(m_out);
}

} // namespace detail

GraphCodeResult parseGraphCode(std::string_view text, const std::string& sourcePath, int firstLine,
                               bool keepText)
{
    try {
        return detail::GraphCodeReader(text, sourcePath, firstLine, keepText).run();
    } catch (const std::exception& e) {
        GraphCodeResult r; // only std::bad_alloc can get here
        r.diagnostics.error(sourcePath, firstLine, std::string("graph import failed: ") + e.what());
        return r;
    }
}

} // namespace fxs::io
