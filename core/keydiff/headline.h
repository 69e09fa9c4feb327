// The one maker of outcome headlines, "<outcome>: <detail>", and of the detail of a key that
// changed: the leading change (the first of the smallest rank) in the caller's words plus how
// many more changed. Both explainers use it: explain for PyTorch's lookups ("miss:
// inductor_config[max_fusion_size] changed 64 → 32 (1 of 540 components)") and the region
// cache ("miss: input 0 dtype float32 → float16 (+1 more)"). Which outcome and which phrase
// is theirs; the shape of the sentence is here.
#pragma once

#include "core/keydiff/component_diff.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::keydiff {

enum class Outcome : std::uint8_t { Hit, Miss, Bypass, Disabled, Fallback };

std::string_view outcomeWord(Outcome o); // "hit", "miss", "bypass", "disabled", "fallback"

// "<word>: <detail>".
std::string headline(Outcome outcome, std::string_view detail);

// The change a headline names: the first change of the smallest rank; null when none.
const ComponentChange* leadingChange(const std::vector<ComponentChange>& changes);

enum class CountStyle : std::uint8_t {
    OfTotal,  // " (2 of 540 components)": changes of changes + common
    PlusMore, // " (+1 more)": the changes besides the leading one; "" for one change
};

std::string countSuffix(std::size_t changes, std::size_t common, CountStyle style);

// "<phrase of the leading change><count suffix>"; "" when there is no change.
std::string changeDetail(const KeyDiff& diff,
                         const std::function<std::string(const ComponentChange&)>& phrase,
                         CountStyle style);

} // namespace fxs::keydiff
