#include "core/diagnose/graph_breaks.h"

#include "core/diagnose/compile_metrics.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cctype>
#include <iterator>
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

// One logged break, whichever record it came from.
struct LoggedBreak {
    std::string reason;
    std::string explanation;
    std::vector<std::string> hints;
    std::string gbId;
    UserFrame at;
    int rank = -1;
    model::CompileId compileId; // without attempt
    const char* source = "dynamo_graph_break_reason";
};

// Where the code resumed after a break in compile m: the next frame of the same rank named
// "torch_dynamo_resume_in_<fn>_at_<line>" (its file and that line are the break's user line).
UserFrame resumeLocation(const std::vector<CompileMetrics>& metrics, const CompileMetrics& m)
{
    static constexpr std::string_view kResume = "torch_dynamo_resume_in_";
    std::string_view base = m.function;
    if (startsWith(base, kResume)) {
        base.remove_prefix(kResume.size());
        base = base.substr(0, base.rfind("_at_"));
    }
    const CompileMetrics* next = nullptr;
    for (const auto& r : metrics) {
        if (!r.backward && r.rank == m.rank && r.compileId.session == m.compileId.session &&
            r.compileId.frameId > m.compileId.frameId &&
            startsWith(r.function, std::string(kResume) + std::string(base) + "_at_") &&
            (!next || r.compileId.frameId < next->compileId.frameId)) {
            next = &r;
        }
    }
    if (!next) {
        return {};
    }
    const auto at = next->function.rfind("_at_");
    const auto line = parseInt(std::string_view(next->function).substr(at + 4));
    return {next->file, line ? static_cast<int>(*line) : next->firstLine, {}};
}

// Breaks logged only as restart_reasons (PyTorch before dynamo_graph_break_reason, or a compile
// that logged no artifact): one per reason of a compile without an artifact.
std::vector<LoggedBreak> restartBreaks(const model::Run& run,
                                       const std::vector<CompileMetrics>& metrics)
{
    std::set<std::tuple<int, model::CompileId>> withArtifact;
    for (const auto& b : run.graphBreaks) {
        withArtifact.insert({b.origin.rank, b.origin.compileId.withoutAttempt()});
    }
    std::vector<LoggedBreak> out;
    for (const auto& m : metrics) {
        if (m.backward || m.restartReasons.empty() || withArtifact.count({m.rank, m.compileId})) {
            continue;
        }
        const UserFrame at = resumeLocation(metrics, m);
        for (const auto& reason : m.restartReasons) {
            LoggedBreak b;
            b.reason = std::string(trim(reason));
            if (b.reason.size() > 1 && b.reason.front() == '\'' && b.reason.back() == '\'') {
                b.reason = b.reason.substr(1, b.reason.size() - 2); // repr() of a str
            }
            b.gbId = graphBreakId(reason);
            b.at = at;
            b.rank = m.rank;
            b.compileId = m.compileId;
            b.source = "restart_reasons";
            out.push_back(std::move(b));
        }
    }
    return out;
}

std::vector<LoggedBreak> loggedBreaks(const model::Run& run,
                                      const std::vector<CompileMetrics>& metrics)
{
    std::vector<LoggedBreak> out;
    for (const auto& b : run.graphBreaks) {
        out.push_back({b.reason, b.explanation, b.hints, graphBreakId(b.text), userFrameOf(b),
                       b.origin.rank, b.origin.compileId.withoutAttempt()});
    }
    auto old = restartBreaks(run, metrics);
    out.insert(out.end(), std::make_move_iterator(old.begin()),
               std::make_move_iterator(old.end()));
    return out;
}

GraphBreak& rowOf(std::vector<GraphBreak>& breaks, const LoggedBreak& b)
{
    auto row = std::find_if(breaks.begin(), breaks.end(), [&](const GraphBreak& g) {
        return g.reason == b.reason && g.userFrame.file == b.at.file &&
               g.userFrame.line == b.at.line;
    });
    if (row != breaks.end()) {
        return *row;
    }
    GraphBreak g;
    g.reason = b.reason;
    g.gbId = b.gbId;
    g.explanation = b.explanation;
    g.hints = b.hints;
    g.userFrame = b.at;
    g.source = b.source;
    breaks.push_back(std::move(g));
    return breaks.back();
}

} // namespace

std::string graphBreakId(std::string_view text)
{
    // ".../compile-graph-break-site/gb/gb0025.html": "gb" and four digits, not inside a word.
    for (auto at = text.find("gb"); at != std::string_view::npos; at = text.find("gb", at + 2)) {
        const bool wordStart = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
        std::size_t end = at + 2;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) {
            ++end;
        }
        const bool wordEnd =
            end == text.size() || !std::isalnum(static_cast<unsigned char>(text[end]));
        if (wordStart && wordEnd && end - at == 6) {
            return std::string(text.substr(at, 6));
        }
    }
    return {};
}

void addGraphBreaks(const model::Run& run, int runIndex, const CompileTimes& times,
                    std::vector<GraphBreak>& breaks)
{
    const auto metrics = readCompileMetrics(run);
    // Resumed compiles already costed, per row and rank: a break logged again does not make
    // the same compiles cost twice.
    std::set<std::tuple<std::string, std::string, int, int, model::CompileId>> costed;
    for (const auto& b : loggedBreaks(run, metrics)) {
        GraphBreak& row = rowOf(breaks, b);
        ++row.count;
        const bool newRank =
            std::find(row.ranks.begin(), row.ranks.end(), b.rank) == row.ranks.end();
        if (b.rank >= 0 && newRank) {
            row.ranks.push_back(b.rank);
        }
        std::vector<model::CompileId> split{b.compileId};
        for (const auto* m : resumedFrames(metrics, b.at, b.rank)) {
            addUnique(split, m->compileId);
        }
        row.costS += restartSeconds(metrics, b.rank, b.compileId);
        for (const auto& id : split) {
            if (std::find(row.compileIds.begin(), row.compileIds.end(), id) ==
                row.compileIds.end()) {
                row.compileIds.push_back(id);
                row.graphs.push_back(graphLink(run, runIndex, b.rank, id));
            }
            if (!(id == b.compileId) &&
                costed.insert({row.reason, row.userFrame.file, row.userFrame.line, b.rank, id})
                    .second) {
                row.costS += compileSeconds(times, b.rank, id);
            }
        }
    }
}

} // namespace fxs::diagnose
