#include "views/models/workspace.h"

#include "core/model/lookup_graphs.h"
#include "views/models/graph_kinds.h"

#include <QFileInfo>

#include <algorithm>

namespace fxs::views {

Workspace::Workspace(QObject* parent) : QObject(parent) {}

void Workspace::add(io::LoadResult result)
{
    Q_EMIT aboutToChange();
    for (auto& run : result.runs) {
        auto ptr = std::make_shared<const model::Run>(std::move(run));
        auto targets = model::graphsKeyedByLookups(*ptr);
        auto same = std::find_if(m_runs.begin(), m_runs.end(),
                                 [&](const RunPtr& r) { return r->path == ptr->path; });
        if (same != m_runs.end()) {
            const auto i = static_cast<std::size_t>(same - m_runs.begin());
            m_reported[i].assign(ptr->graphs.size(), false);
            m_runs[i] = std::move(ptr);
            m_lookupTargets[i] = std::move(targets);
        } else {
            m_reported.emplace_back(ptr->graphs.size(), false);
            m_runs.push_back(std::move(ptr));
            m_lookupTargets.push_back(std::move(targets));
        }
    }
    for (auto& g : result.graphs) {
        auto same = std::find_if(m_graphFiles.begin(), m_graphFiles.end(),
                                 [&](const auto& a) { return a.file == g.file; });
        if (same != m_graphFiles.end()) {
            *same = std::move(g);
        } else {
            m_graphFiles.push_back(std::move(g));
        }
    }
    m_diagnostics.append(result.diagnostics);
    Q_EMIT changed();
}

void Workspace::clear()
{
    Q_EMIT aboutToChange();
    m_runs.clear();
    m_lookupTargets.clear();
    m_reported.clear();
    m_graphFiles.clear();
    m_diagnostics = Diagnostics();
    Q_EMIT changed();
}

const model::GraphArtifact* Workspace::artifact(GraphRef ref) const
{
    if (ref.index < 0) {
        return nullptr;
    }
    const auto i = static_cast<std::size_t>(ref.index);
    if (ref.run == GraphRef::kStandalone) {
        return i < m_graphFiles.size() ? &m_graphFiles[i] : nullptr;
    }
    if (ref.run < 0 || static_cast<std::size_t>(ref.run) >= m_runs.size()) {
        return nullptr;
    }
    const auto& graphs = m_runs[static_cast<std::size_t>(ref.run)]->graphs;
    return i < graphs.size() ? &graphs[i] : nullptr;
}

graph::GraphPtr Workspace::graph(GraphRef ref) const
{
    const auto* a = artifact(ref);
    return a ? a->parsedGraph() : nullptr;
}

bool Workspace::parsePending(GraphRef ref) const
{
    const auto* a = artifact(ref);
    return a != nullptr && a->parsePending();
}

void Workspace::reportParsed(GraphRef ref)
{
    const auto* a = artifact(ref);
    if (a == nullptr || ref.run < 0 || !a->deferred) {
        return;
    }
    const auto* parsed = a->deferred->ifParsed();
    auto&& reported = m_reported[static_cast<std::size_t>(ref.run)][static_cast<std::size_t>(ref.index)];
    if (parsed == nullptr || reported) {
        return;
    }
    reported = true;
    if (!parsed->diagnostics.empty()) {
        const int first = static_cast<int>(m_diagnostics.size());
        Q_EMIT diagnosticsAboutToBeAdded(first, first + int(parsed->diagnostics.size()) - 1);
        m_diagnostics.append(parsed->diagnostics);
        Q_EMIT diagnosticsAdded();
    }
    Q_EMIT graphReady(ref);
}

void Workspace::reportProblem(Diagnostic problem)
{
    const int row = static_cast<int>(m_diagnostics.size());
    Q_EMIT diagnosticsAboutToBeAdded(row, row);
    m_diagnostics.add(std::move(problem));
    Q_EMIT diagnosticsAdded();
}

void Workspace::reportParsedGraphs(int run)
{
    if (run < 0 || static_cast<std::size_t>(run) >= m_runs.size()) {
        return;
    }
    const int graphs = static_cast<int>(m_runs[static_cast<std::size_t>(run)]->graphs.size());
    for (int i = 0; i < graphs; ++i) {
        reportParsed({run, i});
    }
}

const model::CacheLookup* Workspace::lookup(LookupRef ref) const
{
    if (!ref.valid() || static_cast<std::size_t>(ref.run) >= m_runs.size()) {
        return nullptr;
    }
    const auto& lookups = m_runs[static_cast<std::size_t>(ref.run)]->lookups;
    const auto i = static_cast<std::size_t>(ref.index);
    return i < lookups.size() ? &lookups[i] : nullptr;
}

QString Workspace::runName(int run) const
{
    if (run < 0 || static_cast<std::size_t>(run) >= m_runs.size()) {
        return {};
    }
    const QFileInfo info(QString::fromStdString(m_runs[static_cast<std::size_t>(run)]->path));
    return info.fileName().isEmpty() ? info.filePath() : info.fileName();
}

QString Workspace::graphTitle(GraphRef ref) const
{
    const auto* a = artifact(ref);
    if (!a) {
        return {};
    }
    if (ref.run == GraphRef::kStandalone) {
        return QFileInfo(QString::fromStdString(a->file)).fileName();
    }
    const auto& run = *m_runs[static_cast<std::size_t>(ref.run)];
    return QStringLiteral("%1 · %2").arg(QString::fromStdString(a->compileId.toString()),
                                          graphDisplayName(run, ref.index));
}

GraphRef Workspace::graphForLookup(LookupRef ref) const
{
    if (!lookup(ref)) {
        return {};
    }
    const int target = m_lookupTargets[static_cast<std::size_t>(ref.run)]
                                      [static_cast<std::size_t>(ref.index)];
    return target < 0 ? GraphRef{} : GraphRef{ref.run, target};
}

std::vector<LookupRef> Workspace::lookupsForGraph(GraphRef ref) const
{
    std::vector<LookupRef> out;
    if (ref.run < 0 || !artifact(ref)) {
        return out;
    }
    const auto& targets = m_lookupTargets[static_cast<std::size_t>(ref.run)];
    for (std::size_t i = 0; i < targets.size(); ++i) {
        if (targets[i] == ref.index) {
            out.push_back(LookupRef{ref.run, static_cast<int>(i)});
        }
    }
    return out;
}

std::vector<const model::TextArtifact*> Workspace::outputCode(GraphRef ref) const
{
    std::vector<const model::TextArtifact*> out;
    const auto* a = artifact(ref);
    if (!a || ref.run < 0) {
        return out;
    }
    for (const auto& t : m_runs[static_cast<std::size_t>(ref.run)]->texts) {
        if (t.kind == "inductor_output_code" && t.compileId == a->compileId) {
            out.push_back(&t);
        }
    }
    return out;
}

GraphRef Workspace::counterpart(GraphRef ref, int otherRun) const
{
    const auto* a = artifact(ref);
    if (!a || ref.run < 0 || otherRun < 0 || static_cast<std::size_t>(otherRun) >= m_runs.size()) {
        return {};
    }
    // The n-th graph of the same kind and compile id.
    const auto& mine = m_runs[static_cast<std::size_t>(ref.run)]->graphs;
    int ordinal = 0;
    for (int i = 0; i < ref.index; ++i) {
        const auto& g = mine[static_cast<std::size_t>(i)];
        ordinal += (g.kind == a->kind && g.compileId == a->compileId) ? 1 : 0;
    }
    const auto& theirs = m_runs[static_cast<std::size_t>(otherRun)]->graphs;
    for (std::size_t i = 0; i < theirs.size(); ++i) {
        if (theirs[i].kind == a->kind && theirs[i].compileId == a->compileId && ordinal-- == 0) {
            return GraphRef{otherRun, static_cast<int>(i)};
        }
    }
    return {};
}

} // namespace fxs::views
