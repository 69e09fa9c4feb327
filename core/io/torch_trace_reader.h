// Importer for TORCH_TRACE structured logs (what tlparse reads): a file, or a directory of
// per-rank files. Each line is a glog prefix plus a JSON envelope, optionally followed by a
// tab-indented payload whose MD5 the envelope names. Never throws; bad lines become
// diagnostics and reading goes on.
#pragma once

#include "core/model/run.h"
#include "core/util/cancel.h"
#include "core/util/diagnostics.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::io {

struct TraceReadOptions {
    // Build graph IR for every graph payload at import. false: graphs keep a reference to
    // their payload (GraphArtifact::code, sharing the file's buffer) and a deferred parse
    // (GraphArtifact::deferred: its get(), or ensureGraph, runs it when one is needed); their
    // line counts are known at once.
    bool parseGraphs = true;
    bool verifyPayloads = true; // check has_payload MD5s
    // Decode JSON payloads (cache events, chromium events). false: only envelopes, payload
    // extraction and MD5 checks; lookups then carry ids and state but no components, and
    // chromium events are counted, not kept.
    bool decodePayloads = true;
    // The rank the file's name gives (io::planDirectory); -1: none. Records take it when their
    // envelope names no rank (those before init_process_group); an envelope that names another
    // rank is a warning naming both, and the file's rank wins.
    int fileRank = -1;
    // Files of a rank folder read at once: 0 one per hardware thread, 1 one after the other.
    // The run is the same whatever the count (merged in rank order).
    int readThreads = 0;
};

struct TraceReadResult {
    model::Run run;
    Diagnostics diagnostics;
    bool readSomething = false; // at least one envelope was understood
};

// Reads one log held in memory (path is used for diagnostics and Run::path). Graphs kept for
// parsing on demand copy their payload, since data is not owned.
TraceReadResult readTorchTrace(std::string_view data, const std::string& path,
                               const TraceReadOptions& options = {},
                               const CancelToken& cancel = CancelToken::none());
// The same for a buffer the run may share: graphs kept for parsing on demand reference it.
TraceReadResult readTorchTrace(std::shared_ptr<const std::string> data, const std::string& path,
                               const TraceReadOptions& options = {},
                               const CancelToken& cancel = CancelToken::none());
// A log file's bytes, inflated when gzip'd: the one way TORCH_TRACE files are read (here and by
// the loader). A gzip'd log cut short (a copy or a run interrupted) keeps the whole lines that
// inflate before the cut, with an error saying so; any other failure is an error, no bytes.
std::optional<std::string> readTraceFile(const std::string& path, Diagnostics& diagnostics);
// Reads a file, or a directory as io::planDirectory plans it into one Run (a directory of
// separate processes is merged: callers that can show several runs use readTorchTraceRuns).
TraceReadResult readTorchTracePath(const std::string& path, const TraceReadOptions& options = {},
                                   const CancelToken& cancel = CancelToken::none(),
                                   const ProgressSink& progress = {});
// Every run a path holds: a file is one; a directory is read as io::planDirectory plans it (one
// run of rank logs, or one run per process log). Never empty: the plan's notes and errors are
// in the first result's diagnostics (a result with readSomething false when nothing was read).
std::vector<TraceReadResult> readTorchTraceRuns(const std::string& path,
                                                const TraceReadOptions& options = {},
                                                const CancelToken& cancel = CancelToken::none(),
                                                const ProgressSink& progress = {});
// Parses a graph kept for parsing on demand (GraphArtifact::code, or its deferred parse when
// another copy ran it already) and fills its graph, statements and unparsedLines; the parser's
// problems go to diagnostics. Does nothing when the graph is parsed already or has no code. Not
// thread-safe for one artifact: for runs that threads share, call its deferred->get().
void ensureGraph(model::GraphArtifact& artifact, Diagnostics& diagnostics);
// The deferred parse of graph code kept in a log's buffer (what the reader sets on each graph
// when TraceReadOptions::parseGraphs is false); diagnostics name `file` and the log's lines.
std::shared_ptr<const model::DeferredGraph> deferParse(const model::PayloadRef& code,
                                                       const std::string& file);

// True when data starts like a TORCH_TRACE log (glog prefix + '{').
bool looksLikeTorchTrace(std::string_view data);

} // namespace fxs::io
