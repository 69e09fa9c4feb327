// Importer for TORCH_TRACE structured logs (what tlparse reads): a file, or a directory of
// per-rank files. Each line is a glog prefix plus a JSON envelope, optionally followed by a
// tab-indented payload whose MD5 the envelope names. Never throws; bad lines become
// diagnostics and reading goes on.
#pragma once

#include "core/model/run.h"
#include "core/util/cancel.h"
#include "core/util/diagnostics.h"

#include <string>
#include <string_view>

namespace fxs::io {

struct TraceReadOptions {
    bool parseGraphs = true;   // build graph IR for every graph payload
    bool verifyPayloads = true; // check has_payload MD5s
    // Decode JSON payloads (cache events, chromium events). false: only envelopes, payload
    // extraction and MD5 checks; lookups then carry ids and state but no components, and
    // chromium events are counted, not kept.
    bool decodePayloads = true;
};

struct TraceReadResult {
    model::Run run;
    Diagnostics diagnostics;
    bool readSomething = false; // at least one envelope was understood
};

// Reads one log held in memory (path is used for diagnostics and Run::path).
TraceReadResult readTorchTrace(std::string_view data, const std::string& path,
                               const TraceReadOptions& options = {},
                               const CancelToken& cancel = CancelToken::none());
// Reads a file, or every log file of a directory into one Run.
TraceReadResult readTorchTracePath(const std::string& path, const TraceReadOptions& options = {},
                                   const CancelToken& cancel = CancelToken::none(),
                                   const ProgressSink& progress = {});
// True when data starts like a TORCH_TRACE log (glog prefix + '{').
bool looksLikeTorchTrace(std::string_view data);

} // namespace fxs::io
