#include "core/io/run_merge.h"

#include <iterator>

namespace fxs::io::detail {

namespace {

// Calls f with the rank of every record (const or not, as run is).
template <class RunT, class F>
void forEachRank(RunT& run, F&& f)
{
    auto each = [&](auto& records, auto member) {
        for (auto& r : records) {
            f(r.*member);
        }
    };
    auto eachOrigin = [&](auto& records) {
        for (auto& r : records) {
            f(r.origin.rank);
        }
    };
    each(run.graphs, &model::GraphArtifact::rank);
    each(run.lookups, &model::CacheLookup::rank);
    each(run.texts, &model::TextArtifact::rank);
    each(run.events, &model::ChromiumEvent::rank);
    each(run.metrics, &model::CompilationMetrics::rank);
    eachOrigin(run.recompileReasons);
    eachOrigin(run.graphBreaks);
    eachOrigin(run.symbols);
    eachOrigin(run.shapeGuards);
    eachOrigin(run.tensors);
    eachOrigin(run.dynamoStarts);
    eachOrigin(run.exportIssues);
}

} // namespace

void mergeRun(model::Run& into, model::Run&& from)
{
    auto move = [](auto& dst, auto& src) {
        dst.insert(dst.end(), std::make_move_iterator(src.begin()),
                   std::make_move_iterator(src.end()));
    };
    for (auto& l : from.lookups) {
        l.run = into.path;
    }
    move(into.files, from.files);
    move(into.graphs, from.graphs);
    move(into.lookups, from.lookups);
    move(into.texts, from.texts);
    move(into.events, from.events);
    move(into.metrics, from.metrics);
    move(into.recompileReasons, from.recompileReasons);
    move(into.graphBreaks, from.graphBreaks);
    move(into.symbols, from.symbols);
    move(into.shapeGuards, from.shapeGuards);
    move(into.tensors, from.tensors);
    move(into.dynamoStarts, from.dynamoStarts);
    move(into.exportIssues, from.exportIssues);
    for (const auto& [k, n] : from.kindCounts) {
        into.kindCounts[k] += n;
    }
    for (const auto& [k, n] : from.unknownKinds) {
        into.unknownKinds[k] += n;
    }
    for (const auto& [k, n] : from.artifactCounts) {
        into.artifactCounts[k] += n;
    }
    into.internedStrings.merge(from.internedStrings);
    into.payloads += from.payloads;
    into.payloadsVerified += from.payloadsVerified;
    into.payloadMismatches += from.payloadMismatches;
    into.bytes += from.bytes;
}

std::set<int> envelopeRanks(const model::Run& run)
{
    std::set<int> ranks;
    forEachRank(run, [&](int rank) {
        if (rank >= 0) {
            ranks.insert(rank);
        }
    });
    return ranks;
}

void assignMissingRank(model::Run& run, int rank)
{
    forEachRank(run, [&](int& r) {
        if (r < 0) {
            r = rank;
        }
    });
}

} // namespace fxs::io::detail
