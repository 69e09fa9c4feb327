// Explains the region compiler's cache: on a miss, finds the nearest stored entries (same
// region identity first, else most components in common) and diffs their key components
// into changes and a one-line headline ("miss: input 0 dtype float32 → float16"); on a hit,
// says which entry and what it saved. Its changes are explain::ComponentChange (A = the
// nearest stored entry, B = the wanted key), the type core/explain's differ of PyTorch's logged
// components also returns; pairing here is by label, and "k=v;k=v" texts by field.
#pragma once

#include "core/cache/cache_store.h"
#include "core/explain/component_change.h"

#include <string>
#include <vector>

namespace fxs::cache {

using explain::ChangeKind;
using explain::ComponentChange;

struct MissExplanation {
    bool cold = true;        // no entry to compare with
    bool sameRegion = false; // nearest entry has the same canonical region graph
    std::string nearestKey;
    int commonComponents = 0;
    std::vector<ComponentChange> changes;
    std::string headline; // "miss: input 0 dtype float32 → float16", "miss: cold (...)"
};

// Component diff of A (before) and B (after), in label order: OnlyA = removed, OnlyB = added.
// Texts of the form "k=v;k=v" are compared field by field (field, a, b = the field's values).
// Each change's summary is describeChange's phrase.
std::vector<ComponentChange> diffComponents(const std::vector<KeyComponent>& before,
                                            const std::vector<KeyComponent>& after);
// "input 0 dtype float32 → float16", "compiler changed", "region graph changed: ...".
std::string describeChange(const ComponentChange& change);

// candidates: typically store.entriesOfRegion(digest), else store.list().
MissExplanation explainMiss(const std::vector<KeyComponent>& wanted,
                            const std::vector<EntryInfo>& candidates);
// Looks the candidates up in the store itself.
Result<MissExplanation> explainMiss(CacheStore& store, const std::vector<KeyComponent>& wanted);

// "hit: entry 1a2b3c4d5e6f (verified, hit 3×, saves 412 ms of compile)".
std::string hitHeadline(const EntryInfo& entry);

// "hit: remote hit (redis://host:6379), entry 1a2b3c4d5e6f (verified, saves 412 ms of compile)".
std::string remoteHitHeadline(const EntryInfo& entry, const std::string& url);

} // namespace fxs::cache
