// Compiles that failed and what torch.export could not keep general, as diagnose reports them
// (errors, not timings): compilation_metrics' fail_type/fail_reason with the dynamo_error
// traceback, and the export records tlparse's export report lists. Internal to core/diagnose.
#pragma once

#include "core/diagnose/cold_start.h"
#include "core/diagnose/diagnosis.h"
#include "core/model/run.h"

#include <string_view>
#include <vector>

namespace fxs::diagnose {

// Adds the run's failed compiles: one per (rank, compile id) whose metrics name a fail_type or
// that logged a dynamo_error artifact.
void addFailures(const model::Run& run, int runIndex, const CompileTimes& times,
                 std::vector<Failure>& out);

// Adds the run's export failures, in log order.
void addExportFailures(const model::Run& run, int runIndex, std::vector<ExportFailure>& out);

// The exception a Python traceback ends with: "torch._dynamo.exc.BackendCompilerFailed: backend
// raised:\nRuntimeError: x" → type "BackendCompilerFailed", message from what follows the type.
struct RaisedException {
    std::string type;
    std::string message;
};
RaisedException lastException(std::string_view traceback);

} // namespace fxs::diagnose
