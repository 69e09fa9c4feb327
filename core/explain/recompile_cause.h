// Why a frame was compiled again, from one run: PyTorch's recompile_reasons for the compile,
// the guard that failed (found in the guard tree of the cached entry it failed against), the
// input and user source line it concerns, and what PyTorch did about it — automatic dynamic
// (a new shape symbol: "dynamic: s77 = x.size(0)") or a new specialised graph ("new graph for
// dtype Half"). The headline of a recompiled frame's cache misses leads with this; diagnose/
// ranks recompiles by cost. Plain data; no Qt, no I/O.
#pragma once

#include "core/model/run.h"

#include <string>
#include <string_view>
#include <vector>

namespace fxs::explain {

struct RecompileCause {
    model::CompileId compileId; // the new compile (attempt 0)
    int rank = -1;
    std::vector<std::string> reasons; // as logged: "0/0: tensor 'x' size mismatch at ..."
    std::string failedEntry; // the cached entry the first reason is about ("0/0"), or ""
    std::string reason;      // the first reason without its "0/0: " prefix
    std::string input;       // "x", "self.weight"; empty when the reason names none
    std::string inputSource; // Dynamo's source: "L['x']"
    std::string guard;       // the failed guard as logged: "TENSOR_MATCH: check_tensor(...)"
    std::string sourceFile;  // the user line the guard came from (full path when known)
    int sourceLine = 0;
    std::string sourceCode;
    std::string action; // "dynamic: s77 = x.size(0)", "new graph for dtype Half", ...
    // What the first reason says changed, read apart: "size", "stride", "dtype", ... ("" when
    // it is not a tensor mismatch), the dimension ("at index N", else -1), the values.
    std::string mismatch;
    int dim = -1;
    std::string expected;
    std::string actual;
    std::string file;   // where recompile_reasons was logged
    int line = 0;

    // "tensor 'x' size mismatch at index 0. expected 8, actual 16 → dynamic: s77 = x.size(0)"
    std::string summary() const;
};

// One cause per recompile_reasons record of the run, in log order. Never throws.
std::vector<RecompileCause> recompileCauses(const model::Run& run);

// Dynamo's source names as a user writes them: "L['x']" → "x", "L['x'].size()[0]" →
// "x.size(0)", "G['torch'].nn" → "torch.nn".
std::string readableSource(std::string_view source);

} // namespace fxs::explain
