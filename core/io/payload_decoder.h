// Decodes the JSON payloads of TORCH_TRACE records fxscope interprets: compile-cache events
// (fx_graph_cache_*, aotautograd_cache_*) and chromium trace events. Internal to core/io; the
// reader fills envelope-level fields (compile id, file, line) itself.
#pragma once

#include "core/model/cache_lookup.h"
#include "core/model/run.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::io::detail {

struct DecodeProblem {
    std::string message;  // what was wrong
    std::string expected;
    std::string found;
};

class PayloadDecoder {
public:
    PayloadDecoder();
    ~PayloadDecoder();
    PayloadDecoder(const PayloadDecoder&) = delete;
    PayloadDecoder& operator=(const PayloadDecoder&) = delete;

    // buffer holds text (at its start) with spare capacity for simdjson's padding.
    // Fills every payload field of out (state from cache_state when present, components,
    // times, bypass fields, compile_id); problems found on the way are appended to problems.
    // False when the payload is not a JSON object at all.
    bool decodeCacheLookup(const std::string& buffer, std::string_view text,
                           model::CacheLookup& out, std::vector<DecodeProblem>& problems);
    // name, ph, ts, dur, cat, pid, tid, args (JSON text) and args.compile_id.
    bool decodeChromiumEvent(const std::string& buffer, std::string_view text,
                             model::ChromiumEvent& out, std::vector<DecodeProblem>& problems);
    // The chromium event's args as fields a cache lookup can use (bypass reason, key, ...),
    // for lookups that PyTorch logs only as chromium events.
    bool decodeCacheLookupFromArgs(std::string_view argsJson, model::CacheLookup& out,
                                   std::vector<DecodeProblem>& problems);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs::io::detail
