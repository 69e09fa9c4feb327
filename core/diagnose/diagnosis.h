// The diagnose facade: why start-up was slow, from one or more TORCH_TRACE runs (a log, or a
// directory of per-rank logs). Puts together what PyTorch logged and its cost: per frame the
// cold-start breakdown (Dynamo, AOT, Inductor, cache), each recompile (failed guard, input,
// source line, what PyTorch did), graph breaks (deduplicated, with the compiles they split),
// every cache lookup classed (hit, cold/guard miss, bypass, load failure, disabled), rank
// divergence, and findings ranked by cost. What `fxscope-cli diagnose` and the app's Diagnosis
// overview call. Plain data out; no Qt, no I/O (read runs with io::readTorchTracePath first,
// graphs need not be parsed).
//
// Typical use:
//   auto d = fxs::diagnose::diagnose({&run});
//   if (!d) { show(d.error()); return; }
//   for (const auto& f : d->findings) { f.severity; f.costS; f.text; f.where; }
#pragma once

#include "core/model/run.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::diagnose {

// Where a finding or a row points, for the app's links: a graph, a cache lookup, a guard or a
// user source line. Indices refer to the diagnosed runs.
struct Link {
    enum class Kind : std::uint8_t { None, Graph, Lookup, Guard, Source, Compile };
    Kind kind = Kind::None;
    int run = 0;      // index into the runs given to diagnose()
    int index = -1;   // Graph: Run::graphs; Lookup: Run::lookups; Guard: Run::texts
    int rank = -1;
    model::CompileId compileId;
    std::string file; // Source: the user file; Guard: the guards text line in `line`
    int line = 0;
};

struct RunInfo {
    std::string source;     // the path given
    std::vector<int> ranks; // ranks seen, sorted; empty when the log names none
};

struct PhaseTimes {
    double dynamoS = 0.0;
    double aotS = 0.0;
    double inductorS = 0.0;
    double cacheS = 0.0; // cache key computation, lookups, loads and saves
    double total() const { return dynamoS + aotS + inductorS + cacheS; }
};

// One frame's compile time (all its compile ids), broken down so that the phases sum to
// totalS. From chromium events when logged, else from compilation metrics.
struct Frame {
    int run = 0;
    int rank = -1;
    int frameId = 0;
    std::string function; // co_name ("fn", "torch_dynamo_resume_in_fn_at_80")
    std::string file;     // co_filename
    int line = 0;         // co_firstlineno
    std::vector<model::CompileId> compileIds;
    double totalS = 0.0;
    PhaseTimes phases;
    bool fromMetrics = false; // no chromium events: the breakdown comes from metrics
};

struct Recompile {
    int run = 0;
    int rank = -1;
    model::CompileId compileId;
    std::string reason;               // the first reason, without its "0/0: " prefix
    std::vector<std::string> reasons; // all, as logged
    std::string failedEntry;          // "0/0": the cached entry whose guard failed
    std::string input;                // "x"
    std::string guard;                // the failed guard, as logged
    std::string sourceFile;
    int sourceLine = 0;
    std::string sourceCode;
    std::string action; // "dynamic: s77 = x.size(0)", "new graph for dtype Half"
    std::string mismatch; // "size", "dtype", ... (RecompileCause)
    int dim = -1;
    std::string expected;
    std::string actual;
    double costS = 0.0; // compile time of the recompile
    Link link;          // the guard, else the source line
};

struct UserFrame {
    std::string file;
    int line = 0;
    std::string code;
};

// A compile that failed: compilation_metrics' fail_type/fail_reason, the dynamo_error
// traceback logged with it. An error: the frame runs without the compiled code.
struct Failure {
    int run = 0;
    int rank = -1;
    model::CompileId compileId;
    std::string frame;    // co_name of the compiled function ("fn")
    std::string failType; // "BackendCompilerFailed"
    std::string reason;   // fail_reason, else the exception's message
    UserFrame userFrame;  // fail_user_frame_*, else where Dynamo started on the frame
    std::string error;    // the dynamo_error traceback, when logged
    double costS = 0.0;   // the compile time spent before it failed
    Link link;            // the compile (file:line: its dynamo_error record, when logged)
};

// What torch.export could not keep general (tlparse's export report): a guard it evaluated
// (guard_added with prefix "eval"), a data-dependent expression it specialised
// (propagate_real_tensors_provenance), an operator without a fake kernel or with a wrong one.
struct ExportFailure {
    int run = 0;
    int rank = -1;
    model::CompileId compileId;
    std::string kind;        // the envelope kind ("guard_added", "missing_fake_kernel", ...)
    std::string failureType; // "guard_evaluated", "data_dependent", "missing_fake_kernel",
                             // "mismatched_fake_kernel"
    std::string reason;      // one sentence, with the expression or the operator
    std::string expr;        // guard_added / propagate_real_tensors_provenance
    std::string op;          // *_fake_kernel
    UserFrame userFrame;     // innermost frame of the user stack, when logged
};

// Distinct graph breaks (same reason and user line), deduplicated over runs and ranks; from
// dynamo_graph_break_reason artifacts, and from compilation_metrics' restart_reasons where a
// compile logged no artifact (older PyTorch).
struct GraphBreak {
    std::string reason;      // "Failed to trace builtin operator"
    std::string gbId;        // "gb0025": PyTorch's graph-break registry id, when the text has it
    std::string explanation; // PyTorch's explanation line
    std::vector<std::string> hints;
    UserFrame userFrame;
    int count = 0; // times logged
    // The compile where the break was logged, then the compiles of the resumed code after it
    // ("torch_dynamo_resume_in_fn_at_80"): the graphs the break separates.
    std::vector<model::CompileId> compileIds;
    std::vector<int> ranks;
    double costS = 0.0; // Dynamo's restart time plus the compile time of the resumed frames
    std::vector<Link> graphs; // dynamo_output_graph of each compile id, when logged
    std::string source = "dynamo_graph_break_reason"; // or "restart_reasons"
};

enum class CacheClass : std::uint8_t { Hit, ColdMiss, GuardMiss, Bypass, LoadFailure, Disabled };
std::string_view cacheClassName(CacheClass c); // "hit", "cold_miss", ..., "load_failure"

struct CacheRow {
    int run = 0;
    int rank = -1;
    model::CompileId compileId;
    model::CacheKind cache = model::CacheKind::FxGraph;
    CacheClass cls = CacheClass::ColdMiss;
    std::string headline;
    std::optional<std::string> key;
    std::size_t lookup = 0; // index into the run's lookups
    double costS = 0.0;     // miss/bypass: time spent compiling; hit: time saved
    bool componentsMissing = false; // key logged without its components
    std::optional<std::size_t> sameGraphUpToNames; // another row whose gm equals this one's
                                                   // after renaming nodes (index into cache)
    // A miss explained against the run before it (key components changed): that run, and the
    // most likely cause ("inductor_config[max_fusion_size] 64 → 32", "+N more" when others
    // changed too).
    std::optional<int> changedSinceRun;
    std::string cause;
};

struct Divergence {
    int run = 0; // index into the runs given to diagnose()
    model::CompileId compileId;
    std::string what;                  // "input shapes differ", "graph differs", ...
    std::map<int, std::string> detail; // rank → what that rank had
};

enum class Severity : std::uint8_t { Error, Warning, Info };
std::string_view severityName(Severity s); // "error", "warning", "info"

// What to do about a finding. kind: "mark_dynamic" (a recompile on a size change), "keep_dtype"
// (on a dtype change), "keep_key_component" (a cache miss whose key component changed between
// runs: the setting that differs), "graph_break_hint" (PyTorch's hint), "plan_nested_regions"
// (a slow cold start with a repeated block). action: what the app offers for it ("open_source",
// "open_lookup", "plan_nested_regions"); empty when there is nothing to open.
struct Remedy {
    std::string kind;
    std::string text;
    std::string action;
};

struct Finding {
    Severity severity = Severity::Info;
    double costS = 0.0;
    std::string text;
    std::string where; // "record.py:71", "0/1", "rank 1 0/0"
    Link link;
    std::optional<Remedy> remedy;
};

struct Diagnosis {
    std::vector<RunInfo> runs;
    std::vector<Frame> frames;
    std::vector<Recompile> recompiles;
    std::vector<GraphBreak> graphBreaks;
    std::vector<Failure> failures;
    std::vector<ExportFailure> exportFailures;
    std::vector<CacheRow> cache;
    std::vector<Divergence> divergence; // first diverging compile id first
    std::vector<Finding> findings;      // largest cost first
};

// Diagnoses the runs (each a file or a directory of per-rank logs, read before). Several runs
// are also compared: each later run's cache lookups are explained against the run before it
// (explain::explainRuns), and a key one run stored that a later run, reading the same cache,
// did not load counts as a load failure. Errors: Cancelled when cancel fires; Internal if something inside threw (never
// propagated). Thread-safe for distinct or const inputs.
Result<Diagnosis> diagnose(const std::vector<const model::Run*>& runs,
                           const CancelToken& cancel = CancelToken::none(),
                           const ProgressSink& progress = {});

} // namespace fxs::diagnose
