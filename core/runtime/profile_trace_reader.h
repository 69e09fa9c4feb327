// Streaming reader of torch.profiler Chrome traces (`.json`, `.json.gz`): the file is read and
// inflated in pieces, the top-level `traceEvents` array is split into its event objects as the
// bytes go by and each event is decoded alone, so memory follows what is kept, never the file.
// Not for other Chrome-trace producers' extras (flows, counters, metadata are only counted).
#pragma once

#include "core/runtime/profile_trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fxs::runtime {

struct ProfileReadOptions {
    std::uint64_t maxInflatedBytes = std::uint64_t(8) << 30; // JSON bytes scanned at most
    std::size_t maxEventBytes = std::size_t(64) << 20;       // one event, or one top-level value
};

struct ProfileReadResult {
    ProfileTrace trace;         // what was read, also when an error stopped the reading
    std::optional<Error> error; // truncated or corrupt input: where (path:line), expected, found
    std::string firstEventProblem; // the first event that could not be decoded, when any
};

// True when bytes (a file's inflated head) start like a Chrome trace: a JSON object whose first
// kilobytes name "traceEvents", or "schemaVersion" with "deviceProperties".
bool looksLikeProfileTrace(std::string_view head);

// Reads a trace file (gzip'd or not). Errors in the result: Io (missing, not a regular file),
// Parse (corrupt/truncated gzip or JSON, nesting past kMaxNesting, no traceEvents array),
// Unsupported (over a cap). Never throws.
ProfileReadResult readProfileTrace(const std::string& path, const ProfileReadOptions& options = {},
                                   const CancelToken& cancel = CancelToken::none());
// The same for JSON text held in memory (tests, fuzzing); name is used in messages.
ProfileReadResult readProfileTraceText(std::string_view json, const std::string& name,
                                       const ProfileReadOptions& options = {});

} // namespace fxs::runtime
