// Everything one TORCH_TRACE run holds, as plain data: graphs per compile id, cache lookups,
// text artifacts (inductor output code), chromium events and compilation metrics. Filled by
// io/torch_trace_reader; read by explain/, profile/ and the app.
#pragma once

#include "core/graph/graph.h"
#include "core/model/cache_lookup.h"
#include "core/model/compile_id.h"
#include "core/model/dynamo_records.h"
#include "core/model/exported_program.h"
#include "core/util/diagnostics.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace fxs::model {

// A payload left in the log's buffer, so that graphs can be parsed when first shown instead of
// at import. The buffer is shared by every reference into it and lives as long as they do.
struct PayloadRef {
    std::shared_ptr<const std::string> buffer;
    std::size_t offset = 0; // first byte of the payload's first line
    std::size_t length = 0; // up to the end of the last line (its '\n' excluded)
    int firstLine = 0;      // file line of the first payload line
    bool tabIndented = true; // lines still start with TORCH_TRACE's TAB (false: already stripped)

    bool empty() const { return !buffer || length == 0; }
    // The payload as the graph-code parser reads it: TABs stripped, lines joined by '\n'.
    std::string text() const;
};

// A graph whose parse was put off until it is asked for. Plain data with one explicit entry
// point: get() runs the parse (io's parser, set by io::deferParse) under a once-flag (a second
// caller waits for it) and returns its result; copies of an artifact share one DeferredGraph, so
// runs that several threads read stay immutable. Nothing in model parses on its own: reading a
// graph (GraphArtifact::parsedGraph) never parses; whoever defers parsing calls get() where a
// parse may take its time (the app's WorkspaceLoader, in a background job; io::ensureGraph).
class DeferredGraph {
public:
    struct Parsed {
        graph::GraphPtr graph; // null when the code holds no readable graph
        int statements = 0;
        int unparsedLines = 0;
        Diagnostics diagnostics; // the parser's problems, file:line in the log
    };
    explicit DeferredGraph(std::function<Parsed()> parse) : m_parse(std::move(parse)) {}

    // Parses on the first call (may take a while for a large graph: not on a GUI thread).
    const Parsed& get() const;
    // The result when parsed already, else null; never parses.
    const Parsed* ifParsed() const;

private:
    std::function<Parsed()> m_parse;
    mutable std::once_flag m_once;
    mutable std::atomic<bool> m_done{false};
    mutable Parsed m_parsed;
};

// A graph payload: dynamo_output_graph, aot_{joint,forward,backward,inference}_graph,
// inductor_{pre,post}_grad_graph, artifacts before/after_*_graph, ...; or a standalone graph
// file (kind "graph").
struct GraphArtifact {
    std::string kind;
    CompileId compileId;
    int rank = -1;
    graph::GraphPtr graph; // parsed at import; null when unreadable or deferred (see below)
    std::string file;
    int line = 0; // envelope line (first line of a standalone file)
    int statements = 0;    // statements the graph-code parser saw in the payload
    int unparsedLines = 0; // payload lines it could not read
    // The graph code, kept when graphs are parsed on demand (io::ensureGraph parses it); a
    // count of its lines is known without parsing.
    PayloadRef code;
    int payloadLines = 0;
    // Set when the parse was put off (io::TraceReadOptions::parseGraphs false): its get()
    // parses `code` once, for every copy of this artifact. It holds its own reference to the
    // code: whoever replaces `code` replaces this too (io::deferParse).
    std::shared_ptr<const DeferredGraph> deferred;
    bool checksumOk = true; // false when the payload failed its has_payload MD5
    // A torch.export `.pt2` archive's signature, ranges and weight index; null otherwise.
    std::shared_ptr<const ExportedProgram> exported;

    // The graph when it is parsed (at import, or by its deferred parse); never parses. Null
    // while the parse is pending, or when unreadable.
    graph::GraphPtr parsedGraph() const;
    // True while the deferred parse (deferred->get()) is still to run.
    bool parsePending() const { return !graph && deferred && !deferred->ifParsed(); }
};

// A text payload kept verbatim: inductor_output_code, fx_graph_runnable, guards, ...
struct TextArtifact {
    std::string kind;     // envelope kind or artifact name
    std::string filename; // metadata filename (inductor_output_code), may be empty
    CompileId compileId;
    int rank = -1;
    std::string text;
    std::string file;
    int line = 0;
    bool checksumOk = true; // false when the payload failed its has_payload MD5
};

// Event args longer than this are read at import and not kept (ChromiumEvent::argsJson).
inline constexpr std::size_t kKeptEventArgsBytes = 4096;

// A chromium trace event (kept for compile-time profiling).
struct ChromiumEvent {
    std::string name;
    std::string phase; // "B", "E", "i", "X", ...
    double tsUs = 0.0;
    double durUs = 0.0; // "X" events
    std::string category;
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    CompileId compileId; // from args.compile_id when present
    // The "args" object as JSON text; empty when it was longer than kKeptEventArgsBytes (the
    // compile and cache-miss events of PyTorch 2.5+ carry a whole cache key, which the import
    // reads into a lookup: 700 MB of a 64-rank folder kept for nothing). argsBytes: its size.
    std::string argsJson;
    std::size_t argsBytes = 0;
    int rank = -1;
    int line = 0;
};

// compilation_metrics, bwd_compilation_metrics, *_runtime: the metrics object as JSON text.
struct CompilationMetrics {
    std::string kind;
    CompileId compileId;
    int rank = -1;
    std::string json;
    int line = 0;
};

struct Run {
    std::string path;               // file or directory given by the user
    std::vector<std::string> files; // the log files read (one per rank)
    std::vector<GraphArtifact> graphs;
    std::vector<CacheLookup> lookups;
    std::vector<TextArtifact> texts;
    std::vector<ChromiumEvent> events;
    std::vector<CompilationMetrics> metrics;
    std::vector<RecompileReasons> recompileReasons;
    std::vector<GraphBreakRecord> graphBreaks;
    std::vector<SymbolRecord> symbols;
    std::vector<ShapeGuardRecord> shapeGuards;
    std::vector<TensorRecord> tensors;
    std::vector<DynamoStartRecord> dynamoStarts;
    std::vector<ExportIssueRecord> exportIssues;
    std::map<std::string, int> kindCounts;    // every envelope kind seen, with counts
    std::map<std::string, int> unknownKinds;  // kinds fxscope does not interpret
    std::map<std::string, int> artifactCounts; // `artifact` envelopes by artifact name
    // `str` envelopes: per log file, interned id -> string (file names of stack frames).
    std::map<std::string, std::map<int, std::string>> internedStrings;
    int payloads = 0;          // envelopes with has_payload
    int payloadsVerified = 0;  // ... whose MD5 was checked and matched
    int payloadMismatches = 0; // ... whose MD5 did not match (payload kept, flagged)
    std::size_t bytes = 0;                    // total size of the files read

    // Compile ids in order of first appearance in graphs, lookups and texts.
    std::vector<CompileId> compileIds() const;
};

} // namespace fxs::model
