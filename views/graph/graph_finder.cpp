#include "views/graph/graph_finder.h"

#include "views/graph/find_bar.h"

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

bool moduleMatches(const structure::ModuleTree* t, graph::NodeId id, std::string_view needle)
{
    if (t == nullptr || id >= t->moduleOf.size()) {
        return false;
    }
    if (const auto* in = t->inputPath(id); in != nullptr && pathMatches(in->path, needle)) {
        return true;
    }
    return pathMatches(t->pathOf(id), needle);
}

} // namespace

GraphFinder::GraphFinder(FindBar* bar, QObject* parent) : QObject(parent), m_bar(bar)
{
    connect(m_bar, &FindBar::textChanged, this, &GraphFinder::update);
}

void GraphFinder::setGraph(graph::GraphPtr graph,
                           std::shared_ptr<const structure::ModuleTree> modules)
{
    m_graph = std::move(graph);
    m_modules = std::move(modules);
    m_matches.clear();
    m_index = -1;
    if (m_bar->isVisible()) {
        update(m_bar->text());
    }
}

void GraphFinder::activate()
{
    m_bar->activate();
    update(m_bar->text());
}

void GraphFinder::setText(const QString& text)
{
    if (m_bar->text() == text) {
        update(text);
    } else {
        m_bar->setText(text); // emits textChanged -> update
    }
}

void GraphFinder::update(const QString& text)
{
    m_matches.clear();
    m_index = -1;
    const std::string needle = toLower(text.trimmed().toStdString());
    if (m_graph && !needle.empty()) {
        for (const graph::Node& n : m_graph->nodes()) {
            if (toLower(n.name).find(needle) != std::string::npos ||
                toLower(n.target).find(needle) != std::string::npos ||
                moduleMatches(m_modules.get(), n.id, needle)) {
                m_matches.push_back(n.id);
            }
        }
    }
    m_bar->setStatus(m_index, matchCount());
}

void GraphFinder::step(int direction, std::optional<graph::NodeId> from)
{
    const int n = matchCount();
    if (n == 0) {
        return;
    }
    if (m_index < 0 && from) {
        // Continue from the current node rather than from the top of the graph.
        const auto it = direction > 0
                            ? std::upper_bound(m_matches.begin(), m_matches.end(), *from)
                            : std::lower_bound(m_matches.begin(), m_matches.end(), *from);
        m_index = static_cast<int>(it - m_matches.begin()) - (direction > 0 ? 1 : 0);
    }
    m_index = m_index < 0 && direction < 0 ? n - 1 : (m_index + direction + n) % n;
    m_bar->setStatus(m_index, n);
    Q_EMIT nodeFound(m_matches[static_cast<std::size_t>(m_index)]);
}

} // namespace fxs::views
