// Explains the region cache (fxscope's own compiled-region store): on a miss, finds the nearest
// stored entry (among the entries of the same region when there are any; then keydiff's
// nearest entry: fewest differing components, then fields, ties: the most recent) and diffs
// its key components into changes and a one-line headline ("miss: input 0 dtype float32 →
// float16"); on a hit, says which entry and what it saved. Pairing, field diffs, the choice
// and the headline's shape are keydiff's; this file adds the region key's rank table
// (inputs first, the region graph last) and its describer.
#pragma once

#include "core/cache/cache_store.h"
#include "core/keydiff/component_diff.h"

#include <string>
#include <vector>

namespace fxs::cache {

using keydiff::ChangeKind;
using keydiff::ComponentChange;

struct MissExplanation {
    bool cold = true;        // no entry to compare with
    bool sameRegion = false; // nearest entry has the same canonical region graph
    std::string nearestKey;
    int commonComponents = 0;
    std::vector<ComponentChange> changes; // label order; rank = the headline's order
    std::string headline; // "miss: input 0 dtype float32 → float16", "miss: cold (...)"
};

// Component diff of A (before) and B (after), in label order: OnlyA = removed, OnlyB = added.
// Texts of the form "k=v;k=v" are compared field by field (field, a, b = the first differing
// field's values). Each change's summary is describeChange's phrase, its rank the headline's.
std::vector<ComponentChange> diffKeys(const std::vector<KeyComponent>& before,
                                      const std::vector<KeyComponent>& after);
// "input 0 dtype float32 → float16", "compiler changed", "region graph changed: ...".
std::string describeChange(const ComponentChange& change);

// The region key's components as keydiff sees them (views into the vector; no families).
std::vector<keydiff::Component> keyComponentsOf(const std::vector<KeyComponent>& components);

// candidates: typically store.entriesOfRegion(digest), else store.list(). Entries of the
// wanted region are preferred when there are any.
MissExplanation explainMiss(const std::vector<KeyComponent>& wanted,
                            const std::vector<EntryInfo>& candidates);
// Looks the candidates up in the store itself.
Result<MissExplanation> explainMiss(CacheStore& store, const std::vector<KeyComponent>& wanted);

// "hit: entry 1a2b3c4d5e6f (verified, hit 3×, saves 412 ms of compile)".
std::string hitHeadline(const EntryInfo& entry);

// "hit: remote hit (redis://host:6379), entry 1a2b3c4d5e6f (verified, saves 412 ms of compile)".
std::string remoteHitHeadline(const EntryInfo& entry, const std::string& url);

} // namespace fxs::cache
