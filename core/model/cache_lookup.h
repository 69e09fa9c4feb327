// One lookup in one of PyTorch's compile caches (FX graph cache, AOTAutograd cache), as a
// TORCH_TRACE artifact records it: state, key and the key's labelled components. The
// explainer compares these; the importer fills them.
#pragma once

#include "core/model/compile_id.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fxs::model {

enum class CacheKind : std::uint8_t { FxGraph, AotAutograd };
enum class CacheState : std::uint8_t { Hit, Miss, Bypass, Disabled };

std::string_view cacheKindName(CacheKind k);   // "fx_graph", "aotautograd"
std::string_view cacheStateName(CacheState s); // "hit", "miss", "bypass", "disabled"

// One line of a key's `components`: "[digest] family[index]: value".
struct KeyComponent {
    std::string digest; // the bracketed digest; changes exactly when the value changes
    std::string name;   // "inductor_config[max_fusion_size]", "gm", "example_inputs[0]"
    std::string family; // "inductor_config", "gm", "example_inputs"
    std::string index;  // "max_fusion_size", "0"; empty when the name has no brackets
    std::string value;  // as logged; may be multi-line (gm) or binary (pickles)
    bool readable = true; // false for pickles/binary: compare by digest only
};

struct CacheLookup {
    CacheKind cache = CacheKind::FxGraph;
    CacheState state = CacheState::Miss;
    std::string detailedStatus;  // "full_miss", "guard_miss", "hit", ...
    std::string guardExpression; // for guard_miss, when logged
    std::optional<std::string> key;
    std::vector<KeyComponent> components;
    std::string bypassReason;
    std::string bypassExceptionType;
    bool bypassHardException = false;
    std::optional<std::int64_t> timeTakenNs;
    std::optional<std::int64_t> timeSavedNs;
    std::optional<double> timeSavedMs; // AOT hits: time_saved_ms
    std::optional<double> forwardTimeSavedMs;
    std::optional<double> backwardTimeSavedMs;
    std::optional<std::int64_t> cacheEventTime;
    CompileId compileId;
    int rank = -1;     // -1 when the log names no rank
    std::string run;   // the run (file or directory) this lookup belongs to
    std::string file;  // the log file
    int line = 0;      // the envelope's line in that file
    bool checksumOk = true; // false when the payload failed its has_payload MD5
    // "artifact" (an fx_graph_cache_*/aotautograd_cache_* artifact) or "chromium_event" (a
    // lookup only logged as a chromium event, e.g. fx_graph_cache_disabled in PyTorch 2.11).
    std::string origin = "artifact";

    const KeyComponent* component(std::string_view name) const;
};

} // namespace fxs::model
