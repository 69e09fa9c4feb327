// Text-level parsing of compile-cache events: which cache and state an artifact name means,
// and the "[digest] family[index]: value" lines of a cache key's components. No JSON here
// (payload_decoder does that); no judgement of what differs between keys (that is explain/).
#pragma once

#include "core/model/cache_lookup.h"

#include <optional>
#include <string_view>

namespace fxs::io::detail {

struct CacheEventName {
    model::CacheKind cache;
    model::CacheState state;
};

// fx_graph_cache_{hit,miss,bypass,disabled}, aotautograd_cache_{hit,miss,bypass} and the
// chromium-event spellings autograd_cache_{hit,miss,bypass}; nullopt for anything else.
std::optional<CacheEventName> cacheEventName(std::string_view name);

// "hit", "miss", "bypass", "disabled" -> state; nullopt for other text.
std::optional<model::CacheState> cacheStateFromText(std::string_view text);

// Splits one component line. Lines that do not have the shape keep the whole text as value
// and an empty name (returns false so the caller can report them).
bool parseKeyComponent(std::string_view line, model::KeyComponent& out);

// False for values that are pickles or other binary data logged as text (U+FFFD replacement
// characters or control bytes other than tab/newline/carriage return).
bool isReadableValue(std::string_view value);

} // namespace fxs::io::detail
