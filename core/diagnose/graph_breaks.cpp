#include "core/diagnose/graph_breaks.h"

#include "core/diagnose/compile_metrics.h"
#include "core/util/strings.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace fxs::diagnose {

namespace {

UserFrame userFrameOf(const model::GraphBreakRecord& b)
{
    UserFrame f;
    if (!b.userStack.empty()) {
        f.file = b.userStack.back().file;
        f.line = b.userStack.back().line;
        f.code = b.userStack.back().code;
    }
    if (f.file.empty()) {
        f.file = b.atFile;
        f.line = b.atLine;
    }
    return f;
}

// PyTorch names the code after a break "torch_dynamo_resume_in_<fn>_at_<line>", first line
// <line> of the same file: those frames' compiles are what the break split off.
std::vector<const CompileMetrics*> resumedFrames(const std::vector<CompileMetrics>& metrics,
                                                 const UserFrame& at, int rank)
{
    std::vector<const CompileMetrics*> out;
    for (const auto& m : metrics) {
        if (!m.backward && m.rank == rank && startsWith(m.function, "torch_dynamo_resume_in_") &&
            endsWith(m.function, "_at_" + std::to_string(at.line)) && m.firstLine == at.line &&
            (m.file == at.file || at.file.empty())) {
            out.push_back(&m);
        }
    }
    return out;
}

double restartSeconds(const std::vector<CompileMetrics>& metrics, int rank,
                      const model::CompileId& id)
{
    for (const auto& m : metrics) {
        if (!m.backward && m.rank == rank && m.compileId == id && !m.restartReasons.empty()) {
            return m.restartS;
        }
    }
    return 0.0;
}

void addUnique(std::vector<model::CompileId>& ids, const model::CompileId& id)
{
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
        ids.push_back(id);
    }
}

Link graphLink(const model::Run& run, int runIndex, int rank, const model::CompileId& id)
{
    for (std::size_t i = 0; i < run.graphs.size(); ++i) {
        const auto& g = run.graphs[i];
        if (g.kind == "dynamo_output_graph" && g.rank == rank &&
            g.compileId.withoutAttempt() == id) {
            return {Link::Kind::Graph, runIndex, static_cast<int>(i), rank, id, g.file, g.line};
        }
    }
    return {Link::Kind::Compile, runIndex, -1, rank, id, {}, 0};
}

} // namespace

void addGraphBreaks(const model::Run& run, int runIndex, const CompileTimes& times,
                    std::vector<GraphBreak>& breaks)
{
    const auto metrics = readCompileMetrics(run);
    // Resumed compiles already costed, per row and rank: a break logged again does not make
    // the same compiles cost twice.
    std::set<std::tuple<std::size_t, int, model::CompileId>> costed;
    for (const auto& b : run.graphBreaks) {
        const UserFrame at = userFrameOf(b);
        auto row = std::find_if(breaks.begin(), breaks.end(), [&](const GraphBreak& g) {
            return g.reason == b.reason && g.userFrame.file == at.file &&
                   g.userFrame.line == at.line;
        });
        if (row == breaks.end()) {
            breaks.push_back({});
            row = breaks.end() - 1;
            row->reason = b.reason;
            row->explanation = b.explanation;
            row->hints = b.hints;
            row->userFrame = at;
        }
        ++row->count;
        const int rank = b.origin.rank;
        if (rank >= 0 &&
            std::find(row->ranks.begin(), row->ranks.end(), rank) == row->ranks.end()) {
            row->ranks.push_back(rank);
        }
        const model::CompileId at0 = b.origin.compileId.withoutAttempt();
        std::vector<model::CompileId> split{at0};
        for (const auto* m : resumedFrames(metrics, at, rank)) {
            addUnique(split, m->compileId);
        }
        row->costS += restartSeconds(metrics, rank, at0);
        const auto rowIndex = static_cast<std::size_t>(row - breaks.begin());
        for (const auto& id : split) {
            if (std::find(row->compileIds.begin(), row->compileIds.end(), id) ==
                row->compileIds.end()) {
                row->compileIds.push_back(id);
                row->graphs.push_back(graphLink(run, runIndex, rank, id));
            }
            if (!(id == at0) && costed.insert({rowIndex, rank, id}).second) {
                row->costS += compileSeconds(times, rank, id);
            }
        }
    }
}

} // namespace fxs::diagnose
