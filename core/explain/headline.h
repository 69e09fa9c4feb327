// The one-line answer per cache lookup, in words a user understands: why it hit, missed,
// bypassed or was disabled, naming the most likely cause first, e.g.
//   "miss: inductor_config[max_fusion_size] changed 64 → 32 (1 of 540 components)",
//   "miss: example_inputs[0] shape [64, 64] → [128, 64] (2 of 540 components)",
//   "bypass: Unsupported call_function target autograd_function_apply ...",
//   "hit: fok4sqjz… (saved 1535 ms)".
// Only words: the comparison itself is done by lookup_matcher, component_differ and graph_diff;
// the sentence's shape ("<outcome>: <detail>", the leading change and its count) is
// keydiff's headline maker, shared with the region cache.
#pragma once

#include "core/explain/component_differ.h"
#include "core/explain/graph_diff.h"
#include "core/explain/lookup_matcher.h"
#include "core/explain/recompile_cause.h"
#include "core/model/cache_lookup.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fxs::explain {

// Why, as a stable code (JSON "verdict"). Numbered like cache::Reason: append only, numbers
// and names never reused or renamed.
enum class Verdict : std::uint8_t {
    Hit = 1,                // the entry was found
    Bypass = 2,             // the cache was not consulted; bypassReason says why
    Disabled = 3,           // the cache is turned off
    GuardMiss = 4,          // key found, but the entry's guards failed
    ComponentsChanged = 5,  // key components differ from the partner's; diff[0] is the cause
    EnvironmentChanged = 6, // only environment components differ (torch version, system, tag)
    EntryAbsent = 7,        // same key as the partner, still a miss: the entry was not there
    PartnerUncached = 8,    // the partner bypassed or disabled the cache: nothing was stored
    KeyDiffers = 9,         // keys differ but every logged component is equal
    NoComponents = 10,      // a miss whose key components were not logged
    NoPartner = 11,         // nothing to compare with (a first compile, a new graph)
};

std::string_view verdictName(Verdict v); // "hit", "bypass", ..., "entry_absent", "no_partner"

struct HeadlineInput {
    const model::CacheLookup* lookup = nullptr;  // the lookup explained (required)
    const model::CacheLookup* partner = nullptr; // its partner, or null
    MatchKind matchKind = MatchKind::None;
    const ComponentDiff* diff = nullptr;     // lookup vs partner; null when not compared
    const GraphDiff* graphDiff = nullptr;    // when the gm component changed and was diffed
    // How to name the partner: "A" when comparing runs, "lookup #3" within one run.
    std::string partnerLabel = "A";
    bool withinRun = false; // partners are earlier lookups of the same run
    // Set when the lookup belongs to a recompile: a miss's headline then leads with why the
    // frame recompiled ("miss: recompile (tensor 'x' size mismatch ... → dynamic: s77 =
    // x.size(0)); example_inputs[0] ..."), not with the key components that follow from it.
    const RecompileCause* recompile = nullptr;
};

struct Headline {
    Verdict verdict = Verdict::NoPartner;
    std::string text;
};

Headline makeHeadline(const HeadlineInput& in);

// "1535 ms", "0.4 ms", "2.6 s"; for costs and savings.
std::string formatDurationNs(std::int64_t ns);
// Collapses whitespace runs (newlines included) to one space and abbreviates to maxChars.
std::string oneLine(std::string_view text, std::size_t maxChars = 120);

} // namespace fxs::explain
