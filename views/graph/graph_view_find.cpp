// GraphView's find bar logic: matching node names and op targets, stepping through matches.
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
    if (m_graph && !needle.empty()) {
        for (const graph::Node& n : m_graph->nodes()) {
            if (toLower(n.name).find(needle) != std::string::npos ||
                toLower(n.target).find(needle) != std::string::npos) {
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
