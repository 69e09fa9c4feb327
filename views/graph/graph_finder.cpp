#include "views/graph/graph_finder.h"

#include "views/graph/find_bar.h"
#include "views/models/graph_decorations.h"

#include <QRegularExpression>

#include <algorithm>
#include <cctype>

namespace fxs::views {

namespace {

std::string toLower(std::string s)
{
    for (char& c : s) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

// Whether a module or parameter path holds the needle as whole components: "layers.3.mlp" and
// "mlp" match model.layers.3.mlp, "layers.3" does not match model.layers.30.
bool pathMatches(std::string_view path, std::string_view needle)
{
    for (auto at = path.find(needle); at != std::string_view::npos;
         at = path.find(needle, at + 1)) {
        const std::size_t end = at + needle.size();
        if ((at == 0 || path[at - 1] == '.') && (end == path.size() || path[end] == '.')) {
            return true;
        }
    }
    return false;
}

// The attribute texts of a node as the Inspector shows them: "dtype=torch.float16" for each
// keyword argument (node references read "%"), the output meta ("f32[4, 64]") and the
// annotation.
std::vector<std::string> attributeTexts(const graph::Node& n)
{
    std::vector<std::string> out;
    const auto ref = [](graph::NodeId) { return std::string("%"); };
    for (const auto& [key, value] : n.kwargs) {
        out.push_back(key + "=" + graph::argumentToString(value, ref));
    }
    if (n.meta.isTensor()) {
        out.push_back(n.meta.tensor.toString());
    } else if (!n.meta.text.empty()) {
        out.push_back(n.meta.text);
    }
    if (n.annotation) {
        out.push_back(n.annotation->text);
    }
    return out;
}

// Plain text (lower-cased needle) or a valid regular expression, tried on each field.
class NodeMatcher {
public:
    NodeMatcher(const QString& text, bool regex) : m_regex(regex)
    {
        if (regex) {
            m_re = QRegularExpression(text, QRegularExpression::CaseInsensitiveOption);
        } else {
            m_needle = toLower(text.toStdString());
        }
    }
    bool isValid() const { return !m_regex || m_re.isValid(); }

    bool text(const std::string& s) const
    {
        return m_regex ? m_re.match(QString::fromStdString(s)).hasMatch()
                       : toLower(s).find(m_needle) != std::string::npos;
    }
    bool path(std::string_view p) const
    {
        return m_regex ? m_re.match(QString::fromUtf8(p.data(), qsizetype(p.size()))).hasMatch()
                       : pathMatches(p, m_needle);
    }

    std::optional<FindMatch> match(const graph::Node& n, const structure::ModuleTree* t) const
    {
        if (text(n.name)) {
            return FindMatch{n.id, FindField::Name, QString::fromStdString(n.name)};
        }
        if (text(n.target)) {
            return FindMatch{n.id, FindField::Op, QString::fromStdString(n.target)};
        }
        if (auto m = module(n.id, t)) {
            return m;
        }
        for (const std::string& a : attributeTexts(n)) {
            if (text(a)) {
                return FindMatch{n.id, FindField::Attribute, QString::fromStdString(a)};
            }
        }
        return std::nullopt;
    }

private:
    std::optional<FindMatch> module(graph::NodeId id, const structure::ModuleTree* t) const
    {
        if (t == nullptr || id >= t->moduleOf.size()) {
            return std::nullopt;
        }
        if (const auto* in = t->inputPath(id); in != nullptr && path(in->path)) {
            return FindMatch{id, FindField::Module, QString::fromStdString(in->path)};
        }
        const std::string_view p = t->pathOf(id);
        if (!p.empty() && path(p)) {
            const QString text = QString::fromUtf8(p.data(), qsizetype(p.size()));
            return FindMatch{id, FindField::Module, text};
        }
        return std::nullopt;
    }

    bool m_regex;
    QRegularExpression m_re;
    std::string m_needle;
};

} // namespace

QString findFieldName(FindField field)
{
    switch (field) {
    case FindField::Name: return GraphFinder::tr("name");
    case FindField::Op: return GraphFinder::tr("op");
    case FindField::Module: return GraphFinder::tr("module");
    case FindField::Attribute: return GraphFinder::tr("attribute");
    }
    return {};
}

GraphFinder::GraphFinder(FindBar* bar, QObject* parent) : QObject(parent), m_bar(bar)
{
    connect(m_bar, &FindBar::textChanged, this, &GraphFinder::update);
    connect(m_bar, &FindBar::regexToggled, this, &GraphFinder::update);
}

void GraphFinder::setGraph(graph::GraphPtr graph,
                           std::shared_ptr<const structure::ModuleTree> modules)
{
    m_graph = std::move(graph);
    m_modules = std::move(modules);
    m_matches.clear();
    m_index = -1;
    if (m_bar->isVisible()) {
        update();
    }
}

void GraphFinder::setDecorations(GraphDecorations* decorations)
{
    if (m_decorations != nullptr && m_decorations != decorations) {
        m_decorations->clear(DecorationLayer::Search);
    }
    m_decorations = decorations;
    mark();
}

void GraphFinder::activate()
{
    m_bar->activate();
    update();
}

void GraphFinder::setText(const QString& text)
{
    if (m_bar->text() == text) {
        update();
    } else {
        m_bar->setText(text); // emits textChanged -> update
    }
}

void GraphFinder::setRegex(bool regex)
{
    m_bar->setRegex(regex); // emits regexToggled -> update when it changes
}

bool GraphFinder::isRegex() const
{
    return m_bar->isRegex();
}

void GraphFinder::close()
{
    m_matches.clear();
    m_index = -1;
    mark();
}

void GraphFinder::update()
{
    m_matches.clear();
    m_index = -1;
    m_error.clear();
    const QString text = m_bar->text().trimmed();
    const NodeMatcher matcher(text, m_bar->isRegex());
    if (!matcher.isValid()) {
        m_error = QRegularExpression(text).errorString();
    } else if (m_graph && !text.isEmpty()) {
        for (const graph::Node& n : m_graph->nodes()) {
            if (auto m = matcher.match(n, m_modules.get())) {
                m_matches.push_back(std::move(*m));
            }
        }
    }
    mark();
    showStatus();
}

void GraphFinder::mark()
{
    if (m_decorations == nullptr || (m_graph && m_decorations->graph() != m_graph)) {
        return; // the decorations are about another graph until the view sets this one
    }
    std::vector<graph::NodeId> ids;
    ids.reserve(m_matches.size());
    for (const FindMatch& m : m_matches) {
        ids.push_back(m.node);
    }
    m_decorations->setHighlighted(DecorationLayer::Search, ids);
}

void GraphFinder::showStatus()
{
    if (!m_error.isEmpty()) {
        m_bar->showError(m_error);
        return;
    }
    QString detail;
    if (m_index >= 0) {
        const FindMatch& m = m_matches[static_cast<std::size_t>(m_index)];
        detail = findFieldName(m.field);
        if (m.field != FindField::Name) {
            detail += QStringLiteral(": ") + m.text;
        }
    }
    m_bar->setStatus(m_index, matchCount(), detail);
}

void GraphFinder::step(int direction, std::optional<graph::NodeId> from)
{
    if (m_matches.empty() && !m_bar->text().trimmed().isEmpty()) {
        update(); // F3 after the bar was closed: the last text again, marked again
    }
    const int n = matchCount();
    if (n == 0) {
        return;
    }
    if (m_index < 0 && from) {
        // Continue from the current node rather than from the top of the graph.
        const auto before = [](const FindMatch& m, graph::NodeId id) { return m.node < id; };
        const auto after = [](graph::NodeId id, const FindMatch& m) { return id < m.node; };
        const auto it = direction > 0
                            ? std::upper_bound(m_matches.begin(), m_matches.end(), *from, after)
                            : std::lower_bound(m_matches.begin(), m_matches.end(), *from, before);
        m_index = static_cast<int>(it - m_matches.begin()) - (direction > 0 ? 1 : 0);
    }
    m_index = m_index < 0 && direction < 0 ? n - 1 : (m_index + direction + n) % n;
    showStatus();
    Q_EMIT nodeFound(m_matches[static_cast<std::size_t>(m_index)].node);
}

} // namespace fxs::views
