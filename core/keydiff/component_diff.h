// Compares two keys component by component: pairs components by label (the k-th occurrence of
// a label in A with the k-th in B, so repeated labels are kept apart), and reports each pair
// whose digest (or text, without digests) differs and each component only one side has.
// What a change says and how changes rank is the caller's policy: explain (PyTorch's lookups)
// and the region cache each give a rank table and a describer. Not for choosing which stored
// key to compare with (nearest_entry.h) or for words (headline.h).
#pragma once

#include "core/keydiff/key_component.h"

#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace fxs::keydiff {

// One pair of the pairing: indices into A and B, -1 for the side that lacks the component.
struct ComponentPair {
    int a = -1;
    int b = -1;
    bool operator==(const ComponentPair&) const = default;
};

// Pairs by label, k-th occurrence with k-th occurrence: first every component of B in B's
// order (paired or only in B), then the components only A has in A's order. Linear.
std::vector<ComponentPair> pairComponents(std::span<const Component> a,
                                          std::span<const Component> b);

// Equal digests, or equal texts when neither side has a digest.
bool sameValue(const Component& a, const Component& b);

enum class ChangeOrder : std::uint8_t {
    Rank,  // by rank, then changed before only-in-B before only-in-A, then pairing order
    Label, // by label (the region cache's listing)
};

struct DiffPolicy {
    // The rank of a change (stored in ComponentChange::rank). Null: every change ranks 0.
    std::function<int(const ComponentChange&)> rank;
    // Fills a, b, field, summary and environment of a change whose kind, component, family,
    // digests and indices are set; a or b is null for OnlyB or OnlyA. Null: describeText.
    std::function<void(ComponentChange&, const Component* a, const Component* b)> describe;
    ChangeOrder order = ChangeOrder::Rank;
};

struct KeyDiff {
    std::vector<ComponentChange> changes; // in the policy's order
    std::size_t componentsA = 0;
    std::size_t componentsB = 0;
    std::size_t common = 0; // paired components with equal values

    bool empty() const { return changes.empty(); }
    // True when there are changes and the describer marked every one as environment.
    bool onlyEnvironment() const;
};

// Never throws except for allocation failure. Linear in the components plus the sort.
KeyDiff diffComponents(std::span<const Component> a, std::span<const Component> b,
                       const DiffPolicy& policy = {});

// The default describer: texts verbatim as a and b; "k=v;k=v" texts (field_diff.h) name
// their first differing field and its values; summary "<label> <a> → <b>", "<label> added",
// "<label> removed".
void describeText(ComponentChange& change, const Component* a, const Component* b);

} // namespace fxs::keydiff
