// GraphView's find bar logic: matching node names, op targets and module paths, stepping
// through matches.
#include "views/graph/graph_view.h"

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

void GraphView::showFindBar()
{
    m_findBar->activate();
    updateMatches(m_findBar->text());
}

void GraphView::setFindText(const QString& text)
{
    if (m_findBar->text() == text) {
        updateMatches(text);
    } else {
        m_findBar->setText(text); // emits textChanged -> updateMatches
    }
}

void GraphView::updateMatches(const QString& text)
{
    m_matches.clear();
    m_matchIndex = -1;
    const std::string needle = toLower(text.trimmed().toStdString());
    const structure::ModuleTree* modules = m_view ? m_view->modules().get() : nullptr;
    if (m_graph && !needle.empty()) {
        for (const graph::Node& n : m_graph->nodes()) {
            if (toLower(n.name).find(needle) != std::string::npos ||
                toLower(n.target).find(needle) != std::string::npos ||
                moduleMatches(modules, n.id, needle)) {
                m_matches.push_back(n.id);
            }
        }
    }
    m_findBar->setStatus(m_matchIndex, findMatchCount());
}

void GraphView::findNext()
{
    stepFind(1);
}

void GraphView::findPrevious()
{
    stepFind(-1);
}

void GraphView::stepFind(int direction)
{
    const int n = findMatchCount();
    if (n == 0) {
        return;
    }
    if (m_matchIndex < 0 && m_selected) {
        // Continue from the selected node rather than from the top of the graph.
        const auto it = direction > 0
                            ? std::upper_bound(m_matches.begin(), m_matches.end(), *m_selected)
                            : std::lower_bound(m_matches.begin(), m_matches.end(), *m_selected);
        m_matchIndex = static_cast<int>(it - m_matches.begin()) - (direction > 0 ? 1 : 0);
    }
    m_matchIndex = m_matchIndex < 0 && direction < 0 ? n - 1 : (m_matchIndex + direction + n) % n;
    selectNode(m_matches[static_cast<std::size_t>(m_matchIndex)]);
    m_findBar->setStatus(m_matchIndex, n);
}

} // namespace fxs::views
