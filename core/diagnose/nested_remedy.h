// The remedy for a slow cold start of a model made of repeated blocks: compile one block and
// reuse it for the others (Regions › Plan Nested Regions in the app, `partition --nested` on
// the command line). Reads the frame's Dynamo graph and recovers its structure, only for the
// frames slow enough to be findings of their own. Not the plan itself (structure/nested_plan.h).
#pragma once

#include "core/diagnose/diagnosis.h"

#include <vector>

namespace fxs::diagnose {

// A frame compiled in at least this long is worth planning regions for.
inline constexpr double kNestedRemedyMinSeconds = 5.0;
// ... when its Dynamo graph repeats a block at least this many times.
inline constexpr std::size_t kNestedRemedyMinInstances = 4;

// Gives each frame finding (link kind Compile, no remedy yet) costing at least
// kNestedRemedyMinSeconds whose Dynamo graph repeats a block at least kNestedRemedyMinInstances
// times the remedy {"plan_nested_regions", "Plan nested regions (64 identical blocks
// model.layers.*; 47.5 s cold): ...", "plan_nested_regions"}. runs: those given to diagnose().
void addNestedRegionRemedies(const std::vector<const model::Run*>& runs,
                             std::vector<Finding>& findings);

} // namespace fxs::diagnose
