// The one way fxscope reads JSON text with nlohmann (.pt2 programs and configs, projects,
// plans, profiles, TORCH_TRACE metrics, cache and remote rows, region options): nesting past
// kMaxNesting is refused before nlohmann builds a value, so nothing recursive (nlohmann's copy
// and dump, our readers) ever walks a hostile depth. tests/layering.cmake refuses a direct
// json::parse anywhere else. Not the TORCH_TRACE envelope reader (simdjson, iterative).
#pragma once

#include "core/util/nesting.h"
#include "core/util/result.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <optional>
#include <string_view>

namespace fxs {

struct JsonLimits {
    int maxDepth = kMaxNesting; // arrays and objects inside each other
};

// The byte offset of the `[` or `{` that opens level maxDepth + 1 (outside strings), nullopt
// when the text never nests that deep. Does not check that the text is JSON. O(n).
std::optional<std::size_t> findDeepJsonNesting(std::string_view text, int maxDepth);

// Only the nesting check of parseJson (its first error below). O(n), allocates nothing.
Status checkJsonNesting(std::string_view text, JsonLimits limits = {});
// parseJson's checks without building a value (nlohmann's SAX parser, which keeps nothing): the
// same errors, for readers that build their own structures (the .pt2 program reader).
Status validateJson(std::string_view text, JsonLimits limits = {});

// The value of `text`. Errors (code Parse): "JSON nested deeper than 200 levels at byte N";
// "not valid JSON (byte N)" (found: nlohmann's message). Throws only std::bad_alloc.
Result<nlohmann::json> parseJson(std::string_view text, JsonLimits limits = {});
Result<nlohmann::ordered_json> parseOrderedJson(std::string_view text, JsonLimits limits = {});

// For callers that only ask "is it JSON?" (nlohmann's parse without exceptions before): the
// value, or a discarded value (is_discarded()) for text that is not JSON or nests too deep.
nlohmann::json parseJsonOrDiscarded(std::string_view text, JsonLimits limits = {});
nlohmann::ordered_json parseOrderedJsonOrDiscarded(std::string_view text, JsonLimits limits = {});

} // namespace fxs
