// What Dynamo logs about a compile besides graphs and cache lookups, as plain data: why a frame
// recompiled (recompile_reasons), where a graph broke (dynamo_graph_break_reason), the shape
// symbols it created (create_symbol), the guards ShapeEnv added (guard_added_fast), the inputs
// it saw (describe_tensor + describe_source) and the user stack at each compile start
// (dynamo_start). Filled by io/torch_trace_reader; interpreted by diagnose/ and explain/.
#pragma once

#include "core/model/compile_id.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fxs::model {

// One frame of a logged stack; file resolved from the log's interned strings.
struct StackFrame {
    std::string file; // "/home/user/demo/record.py"; empty when the id was never interned
    int line = 0;
    std::string name; // function name
    std::string code; // the source line ("loc"), when logged
};

// Where a record sits in the log, shared by every record below.
struct RecordOrigin {
    CompileId compileId;
    int rank = -1;
    std::string file; // the log file
    int line = 0;     // the envelope's line
};

// recompile_reasons: one entry per cached entry whose guards failed, most recent first,
// as PyTorch wrote them ("0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16").
struct RecompileReasons {
    RecordOrigin origin;
    std::vector<std::string> reasons;
};

// dynamo_graph_break_reason, read apart. The text is kept whole; the parts are what the
// first lines and the "User code traceback:" say, empty when the text does not have them.
struct GraphBreakRecord {
    RecordOrigin origin;
    std::string text;        // the payload as logged
    std::string reason;      // "Failed to trace builtin operator", "Data-dependent branching"
    std::string explanation; // the "Explanation:" line, without the label
    std::vector<std::string> hints;
    std::string atFile; // "Graph break in user code at FILE:LINE"
    int atLine = 0;
    std::vector<StackFrame> userStack; // the user code traceback, outermost first
};

// create_symbol: a shape symbol ShapeEnv introduced ("s77" for L['x'].size()[0]).
struct SymbolRecord {
    RecordOrigin origin;
    std::string symbol; // "s77"
    std::string value;  // the hint when created: "16"
    std::string range;  // "[2, int_oo]"
    std::string source; // "L['x'].size()[0]"
    std::vector<StackFrame> userStack;
};

// guard_added_fast / guard_added: a guard ShapeEnv recorded ("32*s77 <= 2147483647").
struct ShapeGuardRecord {
    RecordOrigin origin;
    std::string kind; // the envelope kind
    std::string expr;
    std::string prefix; // guard_added: "eval" when torch.export evaluated it (a specialisation)
    std::vector<StackFrame> userStack;
};

// What torch.export logs when it could not keep a program general (tlparse's export report):
// propagate_real_tensors_provenance (a data-dependent expression specialised), missing_fake_kernel,
// mismatched_fake_kernel. guard_added with prefix "eval" stays a ShapeGuardRecord.
struct ExportIssueRecord {
    RecordOrigin origin;
    std::string kind;   // the envelope kind
    std::string expr;   // propagate_real_tensors_provenance: the expression
    std::string result; // ... and what it was specialised to
    std::string op;     // *_fake_kernel: the operator ("mylib.foo.default")
    std::string reason; // mismatched_fake_kernel: why
    std::vector<StackFrame> userStack;
};

// describe_tensor joined with its describe_source: one input tensor Dynamo fakified.
struct TensorRecord {
    RecordOrigin origin;
    int describerId = -1;
    int id = -1;
    std::string source; // "L['x']"; empty when no describe_source named it
    std::string dtype;  // "torch.float32"
    std::string device; // "device(type='cuda', index=0)"
    std::vector<std::string> size; // "8", "32", or a symbol
    std::vector<std::string> stride;
    bool requiresGrad = false;
    int storage = -1;          // describe_tensor: the id of its storage
    std::int64_t storageBytes = -1; // that storage's size from describe_storage; -1 unknown
};

// dynamo_start: the user stack when Dynamo started on a frame (innermost last).
struct DynamoStartRecord {
    RecordOrigin origin;
    std::vector<StackFrame> stack;
};

// One line of a dynamo_cpp_guards_str guard tree (read by io::parseGuardTree on demand: the
// text can be megabytes): a guard ("TENSOR_MATCH: check_tensor(L['x'], ...)") or a guard
// manager ("GuardManager: source=L['x'], ..."), with the user code line it came from.
struct GuardEntry {
    int depth = 0;           // nesting under RootGuardManager (0 = the root's level)
    bool manager = false;    // a GuardManager/RootGuardManager line, not a guard
    std::string kind;        // "TENSOR_MATCH", "ID_MATCH", "LAMBDA_GUARD", "GuardManager"
    std::string expr;        // what follows "KIND: " up to the comment
    std::string source;      // the nearest enclosing manager's source ("L['x']"), or own
    std::string userCode;    // the first comment: the user line ("return fn(x) ...")
    std::string file;        // as written, possibly cut at the front ("ome/user/demo/x.py")
    int line = 0;
    std::string function;    // "fn"
    int textLine = 0;        // 1-based line in the guards text
};

} // namespace fxs::model
