#include "core/explain/explainer.h"

#include <algorithm>
#include <exception>
#include <new>

namespace fxs::explain {
namespace {

using model::CacheLookup;
using model::CacheState;

std::optional<std::int64_t> costOf(const CacheLookup& l)
{
    if (l.state == CacheState::Miss) {
        return l.timeTakenNs;
    }
    if (l.state == CacheState::Hit) {
        if (l.timeSavedNs) {
            return l.timeSavedNs;
        }
        if (l.timeSavedMs) {
            return static_cast<std::int64_t>(*l.timeSavedMs * 1e6 + 0.5);
        }
    }
    return std::nullopt;
}

// A miss is compared component by component with a partner that was looked up (hit or miss)
// under a different key; equal keys and uncached partners are explained without a diff.
bool shouldDiff(const CacheLookup& l, const CacheLookup* p)
{
    if (!p || l.state != CacheState::Miss) {
        return false;
    }
    if (p->state != CacheState::Hit && p->state != CacheState::Miss) {
        return false;
    }
    if (l.key && p->key && *l.key == *p->key) {
        return false;
    }
    return !l.components.empty() || !p->components.empty();
}

std::optional<GraphDiff> graphDiffOf(const CacheLookup& l, const CacheLookup& p,
                                     const ComponentDiff& diff)
{
    for (const auto& c : diff.changes) {
        if (c.family == "gm" && c.change == ChangeKind::Changed) {
            return diffGraphCode(p.components[c.indexA].value, l.components[c.indexB].value);
        }
    }
    return std::nullopt;
}

LookupExplanation explainPair(const CacheLookup& l, const CacheLookup* p, MatchKind kind,
                              const std::string& label, bool within,
                              const RecompileCause* recompile = nullptr)
{
    LookupExplanation e;
    e.cache = l.cache;
    e.state = l.state;
    e.detailedStatus = l.detailedStatus;
    e.compileId = l.compileId;
    e.rank = l.rank;
    e.key = l.key;
    e.costNs = costOf(l);
    e.matchKind = p ? kind : MatchKind::None;
    if (p) {
        e.partnerState = p->state;
        e.partnerKey = p->key;
    }
    if (shouldDiff(l, p)) {
        e.diff = diffLookups(*p, l);
        e.graphDiff = graphDiffOf(l, *p, e.diff);
    }
    HeadlineInput in;
    in.lookup = &l;
    in.partner = p;
    in.matchKind = e.matchKind;
    in.diff = shouldDiff(l, p) ? &e.diff : nullptr;
    in.graphDiff = e.graphDiff ? &*e.graphDiff : nullptr;
    in.partnerLabel = label;
    in.withinRun = within;
    in.recompile = recompile;
    const Headline h = makeHeadline(in);
    e.verdict = h.verdict;
    e.headline = h.text;
    return e;
}

LookupList pointersOf(const model::Run& run)
{
    LookupList out;
    out.reserve(run.lookups.size());
    for (const auto& l : run.lookups) {
        out.push_back(&l);
    }
    return out;
}

std::string withinLabel(const CacheLookup& p, std::size_t index)
{
    std::string label = "earlier lookup #" + std::to_string(index);
    if (p.compileId.valid()) {
        label += " (" + p.compileId.toString() + ")";
    }
    return label;
}

// The recompile cause of each (rank, compile id) of a run that recompiled.
class RecompileIndex {
public:
    explicit RecompileIndex(const model::Run& run) : m_causes(recompileCauses(run)) {}

    const RecompileCause* find(const CacheLookup& l) const
    {
        for (const auto& c : m_causes) {
            if (c.rank == l.rank && c.compileId == l.compileId.withoutAttempt()) {
                return &c;
            }
        }
        return nullptr;
    }

private:
    std::vector<RecompileCause> m_causes;
};

// Explains b's lookups given their matches; partners index into `a`.
Result<Explanation> explainMatched(const LookupList& a, const LookupList& b,
                                   const std::vector<LookupMatch>& matches, bool within,
                                   const RecompileIndex& recompiles, const CancelToken& cancel,
                                   const ProgressSink& progress)
{
    Explanation ex;
    ex.within = within;
    ex.lookupsA = a.size();
    ex.lookups.reserve(b.size());
    for (std::size_t j = 0; j < b.size(); ++j) {
        if (cancel.isCancelled()) {
            return makeError(ErrorCode::Cancelled, "explaining cache lookups was cancelled");
        }
        if (j % 64 == 0) {
            reportProgress(progress, double(j) / double(b.size()), "explaining lookups");
        }
        const LookupMatch& m = matches[j];
        const CacheLookup* p = m.partner ? a[*m.partner] : nullptr;
        const std::string label = within && p ? withinLabel(*p, *m.partner) : std::string("A");
        LookupExplanation e =
            explainPair(*b[j], p, m.kind, label, within, recompiles.find(*b[j]));
        e.index = j;
        e.partner = m.partner;
        ex.lookups.push_back(std::move(e));
    }
    reportProgress(progress, 1.0, "explaining lookups");
    return ex;
}

template <class F>
Result<Explanation> guarded(F&& body)
{
    try {
        return body();
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::Internal, "out of memory while explaining cache lookups");
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Internal,
                         std::string("internal error while explaining cache lookups: ") + e.what());
    }
}

} // namespace

std::size_t Explanation::count(model::CacheState s) const
{
    return static_cast<std::size_t>(std::count_if(lookups.begin(), lookups.end(),
                                                  [s](const auto& e) { return e.state == s; }));
}

Result<Explanation> explainRuns(const model::Run& a, const model::Run& b,
                                const CancelToken& cancel, const ProgressSink& progress)
{
    return guarded([&]() -> Result<Explanation> {
        const LookupList la = pointersOf(a);
        const LookupList lb = pointersOf(b);
        reportProgress(progress, 0.0, "matching lookups");
        const auto matches = matchLookups(la, lb);
        return explainMatched(la, lb, matches, false, RecompileIndex(b), cancel, progress);
    });
}

Result<Explanation> explainWithin(const model::Run& run, const CancelToken& cancel,
                                  const ProgressSink& progress)
{
    return guarded([&]() -> Result<Explanation> {
        const LookupList l = pointersOf(run);
        reportProgress(progress, 0.0, "matching lookups");
        const auto matches = matchWithin(l);
        return explainMatched(l, l, matches, true, RecompileIndex(run), cancel, progress);
    });
}

LookupExplanation explainLookup(const model::CacheLookup& lookup,
                                const model::CacheLookup* partner, const std::string& partnerLabel)
{
    try {
        return explainPair(lookup, partner, MatchKind::Chosen, partnerLabel, false);
    } catch (const std::exception& e) {
        LookupExplanation ex;
        ex.cache = lookup.cache;
        ex.state = lookup.state;
        ex.headline = std::string("could not explain this lookup: ") + e.what();
        return ex;
    }
}

} // namespace fxs::explain
