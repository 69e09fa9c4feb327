#include "core/diagnose/diagnosis.h"

#include "core/diagnose/cache_classes.h"
#include "core/diagnose/cold_start.h"
#include "core/diagnose/failures.h"
#include "core/diagnose/findings.h"
#include "core/diagnose/graph_breaks.h"
#include "core/diagnose/nested_remedy.h"
#include "core/diagnose/rank_divergence.h"
#include "core/explain/explainer.h"
#include "core/explain/recompile_cause.h"

#include <algorithm>
#include <exception>
#include <new>
#include <set>

namespace fxs::diagnose {

namespace {

std::vector<int> ranksOf(const model::Run& run)
{
    std::set<int> ranks;
    auto note = [&](int r) {
        if (r >= 0) {
            ranks.insert(r);
        }
    };
    for (const auto& g : run.graphs) {
        note(g.rank);
    }
    for (const auto& l : run.lookups) {
        note(l.rank);
    }
    for (const auto& e : run.events) {
        note(e.rank);
    }
    for (const auto& m : run.metrics) {
        note(m.rank);
    }
    return {ranks.begin(), ranks.end()};
}

// The guards text of a compile, as a link target.
Link guardLink(const model::Run& run, int runIndex, int rank, const std::string& entry)
{
    const auto id = model::CompileId::parse(entry);
    if (!id) {
        return {};
    }
    for (std::size_t i = 0; i < run.texts.size(); ++i) {
        const auto& t = run.texts[i];
        if (t.kind == "dynamo_cpp_guards_str" && t.rank == rank &&
            t.compileId.withoutAttempt() == id->withoutAttempt()) {
            return {Link::Kind::Guard, runIndex, static_cast<int>(i), rank, *id, t.file, t.line};
        }
    }
    return {};
}

void addRecompiles(const model::Run& run, int runIndex, const CompileTimes& times,
                   std::vector<Recompile>& out)
{
    for (auto& c : explain::recompileCauses(run)) {
        Recompile r;
        r.run = runIndex;
        r.rank = c.rank;
        r.compileId = c.compileId;
        r.reason = std::move(c.reason);
        r.reasons = std::move(c.reasons);
        r.failedEntry = std::move(c.failedEntry);
        r.input = std::move(c.input);
        r.guard = std::move(c.guard);
        r.sourceFile = std::move(c.sourceFile);
        r.sourceLine = c.sourceLine;
        r.sourceCode = std::move(c.sourceCode);
        r.action = std::move(c.action);
        r.mismatch = std::move(c.mismatch);
        r.dim = c.dim;
        r.expected = std::move(c.expected);
        r.actual = std::move(c.actual);
        r.costS = compileSeconds(times, r.rank, r.compileId);
        r.link = guardLink(run, runIndex, r.rank, r.failedEntry);
        if (r.link.kind == Link::Kind::None && r.sourceLine > 0) {
            r.link = {Link::Kind::Source, runIndex, -1, r.rank, r.compileId, r.sourceFile,
                      r.sourceLine};
        }
        out.push_back(std::move(r));
    }
}

Result<Diagnosis> run(const std::vector<const model::Run*>& runs, const CancelToken& cancel,
                      const ProgressSink& progress)
{
    Diagnosis d;
    std::vector<explain::Explanation> explanations;
    std::vector<CompileTimes> times;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (cancel.isCancelled()) {
            return makeError(ErrorCode::Cancelled, "diagnosing was cancelled");
        }
        reportProgress(progress, double(i) / double(runs.size() + 1), "diagnosing runs");
        const model::Run& r = *runs[i];
        const int index = static_cast<int>(i);
        d.runs.push_back({r.path, ranksOf(r)});
        times.push_back(compileTimes(r));
        auto frames = framesOf(r, index, times.back());
        d.frames.insert(d.frames.end(), frames.begin(), frames.end());
        addRecompiles(r, index, times.back(), d.recompiles);
        addGraphBreaks(r, index, times.back(), d.graphBreaks);
        addFailures(r, index, times.back(), d.failures);
        addExportFailures(r, index, d.exportFailures);
        auto divergence = findDivergence(r);
        for (auto& v : divergence) {
            v.run = index;
        }
        d.divergence.insert(d.divergence.end(), divergence.begin(), divergence.end());
        // A later run is explained against the one before it (what changed since); the first
        // against its own earlier lookups (recompiles, repeated graphs).
        auto ex = i == 0 ? explain::explainWithin(r, cancel)
                         : explain::explainRuns(*runs[i - 1], r, cancel);
        if (!ex) {
            return ex.error();
        }
        explanations.push_back(std::move(*ex));
    }
    d.cache = classifyLookups(runs, explanations, times);
    d.findings = makeFindings(d);
    addNestedRegionRemedies(runs, d.findings);
    reportProgress(progress, 1.0, "diagnosing runs");
    return d;
}

} // namespace

std::string_view cacheClassName(CacheClass c)
{
    switch (c) {
    case CacheClass::Hit: return "hit";
    case CacheClass::ColdMiss: return "cold_miss";
    case CacheClass::GuardMiss: return "guard_miss";
    case CacheClass::Bypass: return "bypass";
    case CacheClass::LoadFailure: return "load_failure";
    case CacheClass::Disabled: return "disabled";
    }
    return "?";
}

std::string_view severityName(Severity s)
{
    switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
    }
    return "?";
}

Result<Diagnosis> diagnose(const std::vector<const model::Run*>& runs, const CancelToken& cancel,
                           const ProgressSink& progress)
{
    try {
        return run(runs, cancel, progress);
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::Internal, "out of memory while diagnosing");
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Internal,
                         std::string("internal error while diagnosing: ") + e.what());
    }
}

} // namespace fxs::diagnose
