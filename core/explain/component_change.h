// One differing key component between two cache keys (A = the earlier/stored one, B = the
// later/wanted one): the type both differs share — explain/component_differ (PyTorch's logged
// FX-graph and AOTAutograd keys) and cache/cache_explain (fxscope's own region keys) — and
// the one the app's component diff table converts. Plain data, header only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fxs::explain {

enum class ChangeKind : std::uint8_t { Changed, OnlyA, OnlyB };

// "changed", "only_a", "only_b".
inline std::string_view changeKindName(ChangeKind k)
{
    switch (k) {
    case ChangeKind::Changed: return "changed";
    case ChangeKind::OnlyA: return "only_a";
    case ChangeKind::OnlyB: return "only_b";
    }
    return "?";
}

struct ComponentChange {
    ChangeKind change = ChangeKind::Changed;
    std::string component; // full name: "inductor_config[max_fusion_size]", "input[0]"
    std::string family;    // PyTorch key family ("inductor_config"); empty for region keys
    // For region-key texts of the form "k=v;k=v": the first field that differs ("dtype"),
    // and a/b hold that field's values. Empty otherwise.
    std::string field;
    std::string a; // A's value (display form); empty for OnlyB
    std::string b; // B's value (display form); empty for OnlyA
    // One phrase for the row: "64 → 32", "shape [64, 64] → [128, 64]", "input 0 added".
    std::string summary;
    std::string digestA; // empty for OnlyB
    std::string digestB; // empty for OnlyA
    int indexA = -1;     // position in A's components, -1 for OnlyB
    int indexB = -1;     // position in B's components, -1 for OnlyA
    bool environment = false; // family is torch_version / system_info / cache_key_tag
};

} // namespace fxs::explain
