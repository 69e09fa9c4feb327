// Graph breaks of a run, deduplicated: one row per distinct break (same reason at the same user
// line), with how often it was logged, the compiles it separates (where it was logged, then
// the resumed code after it) and what it cost. Internal to core/diagnose.
#pragma once

#include "core/diagnose/cold_start.h"
#include "core/diagnose/diagnosis.h"
#include "core/model/run.h"

#include <vector>

namespace fxs::diagnose {

// Adds the run's graph breaks to `breaks`, merging with rows already there (other runs or
// ranks) that have the same reason and user line.
void addGraphBreaks(const model::Run& run, int runIndex, const CompileTimes& times,
                    std::vector<GraphBreak>& breaks);

} // namespace fxs::diagnose
