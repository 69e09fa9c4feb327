// Graph breaks of a run, deduplicated: one row per distinct break (same reason at the same user
// line), with how often it was logged, the compiles it separates (where it was logged, then
// the resumed code after it) and what it cost. Internal to core/diagnose.
#pragma once

#include "core/diagnose/cold_start.h"
#include "core/diagnose/diagnosis.h"
#include "core/model/run.h"

#include <string>
#include <string_view>
#include <vector>

namespace fxs::diagnose {

// Adds the run's graph breaks to `breaks` (dynamo_graph_break_reason artifacts, and the
// restart_reasons of compiles that logged none), merging with rows already there (other runs,
// ranks or records) that have the same reason and user line.
void addGraphBreaks(const model::Run& run, int runIndex, const CompileTimes& times,
                    std::vector<GraphBreak>& breaks);

// PyTorch's graph-break registry id in a message ("gb0025", from the "For more details about
// this graph break" link); empty when there is none.
std::string graphBreakId(std::string_view text);

} // namespace fxs::diagnose
