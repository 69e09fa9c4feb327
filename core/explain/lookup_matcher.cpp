#include "core/explain/lookup_matcher.h"

#include "core/explain/component_differ.h"
#include "core/keydiff/similarity_index.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

namespace fxs::explain {
namespace {

using model::CacheLookup;

using SlotKey = std::tuple<int, model::CompileId, int, std::size_t>; // rank, id, cache, position

std::vector<SlotKey> slotKeys(const LookupList& lookups)
{
    std::map<std::tuple<int, model::CompileId, int>, std::size_t> seen;
    std::vector<SlotKey> keys;
    keys.reserve(lookups.size());
    for (const CacheLookup* l : lookups) {
        const auto group = std::make_tuple(l->rank, l->compileId, static_cast<int>(l->cache));
        const std::size_t position = seen[group]++;
        keys.emplace_back(l->rank, l->compileId, static_cast<int>(l->cache), position);
    }
    return keys;
}

// The similarity index over a pool of lookups, grouped by cache kind.
keydiff::SimilarityIndex similarityIndex(const LookupList& pool)
{
    std::vector<keydiff::IndexedKey> keys;
    keys.reserve(pool.size());
    for (const CacheLookup* l : pool) {
        keys.push_back({keyComponentsOf(*l), static_cast<int>(l->cache)});
    }
    return keydiff::SimilarityIndex(keys);
}

// Best candidate among pool ids accepted by `allowed`; ties go to the earliest (or latest).
LookupMatch bestSimilar(const keydiff::SimilarityIndex& index, const CacheLookup& probe,
                        std::vector<int>& scores, const std::function<bool(std::uint32_t)>& allowed,
                        bool preferLatest)
{
    LookupMatch m;
    if (probe.components.empty()) {
        return m;
    }
    const int group = static_cast<int>(probe.cache);
    index.score(keyComponentsOf(probe), group, scores);
    int best = 0;
    for (std::uint32_t id : index.members(group)) {
        if (!allowed(id)) {
            continue;
        }
        if (scores[id] > best || (preferLatest && scores[id] == best && best > 0)) {
            best = scores[id];
            m.partner = id;
        }
    }
    if (m.partner) {
        m.kind = MatchKind::Similarity;
        m.commonComponents = static_cast<std::size_t>(best);
    }
    return m;
}

// The lookup at the same rank, cache and position in the latest earlier compile of the same
// frame (frame_compile_id smaller): what a recompile is compared with.
LookupMatch earlierCompileOfFrame(const LookupList& lookups, const std::vector<SlotKey>& slots,
                                  std::size_t i)
{
    const auto& [rank, id, cache, position] = slots[i];
    LookupMatch best;
    int bestCompile = -1;
    for (std::size_t j = 0; j < i; ++j) {
        const auto& [rj, idj, cj, pj] = slots[j];
        if (rj == rank && cj == cache && pj == position && idj.frameId == id.frameId &&
            idj.compiledAutogradId == id.compiledAutogradId &&
            idj.frameCompileId < id.frameCompileId && idj.frameCompileId >= bestCompile &&
            lookups[j]->state != model::CacheState::Bypass &&
            lookups[j]->state != model::CacheState::Disabled) {
            bestCompile = idj.frameCompileId;
            best.partner = j;
            best.kind = MatchKind::Position;
        }
    }
    return best;
}

// Each lookup's gm digest (its value when no digest was logged; empty without a gm).
std::vector<std::string_view> graphCodeDigests(const LookupList& lookups)
{
    std::vector<std::string_view> gm(lookups.size());
    for (std::size_t i = 0; i < lookups.size(); ++i) {
        const model::KeyComponent* c = lookups[i]->component("gm");
        gm[i] = c ? std::string_view(c->digest.empty() ? c->value : c->digest) : std::string_view();
    }
    return gm;
}

LookupList pointers(const std::vector<CacheLookup>& lookups)
{
    LookupList out;
    out.reserve(lookups.size());
    for (const auto& l : lookups) {
        out.push_back(&l);
    }
    return out;
}

} // namespace

std::string_view matchKindName(MatchKind k)
{
    switch (k) {
    case MatchKind::None: return "none";
    case MatchKind::Position: return "position";
    case MatchKind::Similarity: return "similarity";
    case MatchKind::SameKey: return "same_key";
    case MatchKind::Chosen: return "chosen";
    }
    return "?";
}

std::vector<LookupMatch> matchLookups(const LookupList& a, const LookupList& b)
{
    std::map<SlotKey, std::size_t> slotsA;
    const auto keysA = slotKeys(a);
    for (std::size_t i = 0; i < keysA.size(); ++i) {
        slotsA.emplace(keysA[i], i);
    }
    std::vector<LookupMatch> out(b.size());
    std::vector<std::size_t> unmatched;
    const auto keysB = slotKeys(b);
    for (std::size_t j = 0; j < b.size(); ++j) {
        const auto it = slotsA.find(keysB[j]);
        if (it != slotsA.end()) {
            out[j].partner = it->second;
            out[j].kind = MatchKind::Position;
        } else {
            unmatched.push_back(j);
        }
    }
    if (unmatched.empty() || a.empty()) {
        return out;
    }
    const keydiff::SimilarityIndex index = similarityIndex(a);
    std::vector<int> scores;
    for (std::size_t j : unmatched) {
        out[j] = bestSimilar(index, *b[j], scores, [](std::uint32_t) { return true; }, false);
    }
    return out;
}

std::vector<LookupMatch> matchLookups(const std::vector<CacheLookup>& a,
                                      const std::vector<CacheLookup>& b)
{
    return matchLookups(pointers(a), pointers(b));
}

std::vector<LookupMatch> matchWithin(const LookupList& lookups)
{
    std::vector<LookupMatch> out(lookups.size());
    // (rank, cache, key) → latest index with that key so far; rank -1: any rank. A lookup pairs
    // within its rank first: another rank's lookup of the same key only when its own rank has
    // none (the entry that rank stored).
    std::map<std::tuple<int, int, std::string>, std::size_t> lastWithKey;
    std::vector<std::size_t> misses;
    for (std::size_t i = 0; i < lookups.size(); ++i) {
        const CacheLookup& l = *lookups[i];
        if (l.key && !l.key->empty()) {
            const int cache = static_cast<int>(l.cache);
            for (const int rank : {l.rank, -1}) {
                const auto it = lastWithKey.find({rank, cache, *l.key});
                if (it != lastWithKey.end() && !out[i].partner) {
                    out[i].partner = it->second;
                    out[i].kind = MatchKind::SameKey;
                }
            }
            lastWithKey[{l.rank, cache, *l.key}] = i;
            lastWithKey[{-1, cache, *l.key}] = i;
        }
        if (!out[i].partner && l.state == model::CacheState::Miss && i > 0) {
            misses.push_back(i);
        }
    }
    if (misses.empty()) {
        return out;
    }
    // A repeated miss of the same graph: an earlier lookup with the same graph code (gm digest;
    // absent on both counts as the same), the one with most components in common; else the
    // same slot of an earlier compile of the same frame (a recompile whose graph changed).
    const std::vector<std::string_view> gm = graphCodeDigests(lookups);
    const keydiff::SimilarityIndex index = similarityIndex(lookups);
    const auto slots = slotKeys(lookups);
    std::vector<int> scores;
    for (std::size_t i : misses) {
        // Within its rank: another rank's graph of other inputs is a divergence between
        // ranks (diagnose's grid), not the cause of this rank's miss.
        const int rank = lookups[i]->rank;
        out[i] = bestSimilar(index, *lookups[i], scores,
                             [i, rank, &gm, &lookups](std::uint32_t id) {
                                 return id < i && gm[id] == gm[i] && lookups[id]->rank == rank;
                             },
                             true);
        if (!out[i].partner) {
            out[i] = earlierCompileOfFrame(lookups, slots, i);
        }
    }
    return out;
}

std::vector<LookupMatch> matchWithin(const std::vector<CacheLookup>& lookups)
{
    return matchWithin(pointers(lookups));
}

} // namespace fxs::explain
