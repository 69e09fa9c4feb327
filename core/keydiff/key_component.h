// A labelled key component — (label, family, digest, text) — and one difference between two
// keys, the types every key comparison of fxscope shares: PyTorch's cache lookups (explain)
// and the region cache (cache) convert their components to these and get these changes back.
// Plain data, header only; the comparison itself is component_diff.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fxs::keydiff {

// A view of one component of a key; the key's owner keeps the strings alive.
struct Component {
    std::string_view label;  // "inductor_config[max_fusion_size]", "input[0]"; may repeat
    std::string_view family; // "inductor_config"; empty where keys have no families
    std::string_view digest; // changes exactly when text does; empty: texts are compared
    std::string_view text;   // the canonical or logged value
};

enum class ChangeKind : std::uint8_t { Changed, OnlyA, OnlyB };

// "changed", "only_a", "only_b" (JSON; never renamed).
inline std::string_view changeKindName(ChangeKind k)
{
    switch (k) {
    case ChangeKind::Changed: return "changed";
    case ChangeKind::OnlyA: return "only_a";
    case ChangeKind::OnlyB: return "only_b";
    }
    return "?";
}

// One differing component between key A (the earlier or stored one) and key B (the later or
// wanted one). Filled by diffComponents and the caller's describer.
struct ComponentChange {
    ChangeKind change = ChangeKind::Changed;
    std::string component; // the label: "inductor_config[max_fusion_size]", "input[0]"
    std::string family;    // the component's family; empty where keys have none
    // For texts compared field by field (field_diff.h): the first field that differs
    // ("dtype"), and a/b hold that field's values. Empty otherwise.
    std::string field;
    std::string a; // A's value (display form); empty for OnlyB
    std::string b; // B's value (display form); empty for OnlyA
    // One phrase for the row: "64 → 32", "shape [64, 64] → [128, 64]", "input 0 added".
    std::string summary;
    std::string digestA; // empty for OnlyB
    std::string digestB; // empty for OnlyA
    int indexA = -1;     // position in A's components, -1 for OnlyB
    int indexB = -1;     // position in B's components, -1 for OnlyA
    bool environment = false; // the describer's mark: not something the user changed
    int rank = 0; // the caller's rank table: smaller ranks say more (the headline's choice)
};

} // namespace fxs::keydiff
