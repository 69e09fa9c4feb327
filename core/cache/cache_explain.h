// Explains the region compiler's cache: on a miss, finds the nearest stored entries (same
// region identity first, else most components in common) and diffs their key components
// into changes and a one-line headline ("miss: input 0 dtype float32 → float16"); on a hit,
// says which entry and what it saved. A small local differ: core/explain's differ works on
// PyTorch's logged components, these are fxscope's own labelled components.
#pragma once

#include "core/cache/cache_store.h"

#include <string>
#include <vector>

namespace fxs::cache {

enum class ChangeKind : std::uint8_t { Changed, Added, Removed };

struct ComponentChange {
    ChangeKind kind = ChangeKind::Changed;
    std::string label;  // "input[0]", "region", ...
    std::string field;  // for "k=v;k=v" texts: the first field that differs ("dtype")
    std::string before; // the nearest entry's value (field value when field is set)
    std::string after;  // the wanted value
};

struct MissExplanation {
    bool cold = true;        // no entry to compare with
    bool sameRegion = false; // nearest entry has the same canonical region graph
    std::string nearestKey;
    int commonComponents = 0;
    std::vector<ComponentChange> changes;
    std::string headline; // "miss: input 0 dtype float32 → float16", "miss: cold (...)"
};

// Component diff, in label order. Texts of the form "k=v;k=v" are compared field by field.
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

} // namespace fxs::cache
