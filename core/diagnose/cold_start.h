// Cold-start breakdown: where each compile's time went — Dynamo, AOTAutograd, Inductor and the
// compile caches (key computation, lookups, loads, saves) — and per frame the sum over its
// compiles. Built on profile::buildCompileProfile's phase tree: every phase's own time (its
// duration minus its children's) goes to the category of its name, or of its nearest
// categorised ancestor, so the four parts sum to the compile's total. Compiles without chromium
// events fall back to their compilation metrics. Internal to core/diagnose.
#pragma once

#include "core/diagnose/diagnosis.h"
#include "core/model/run.h"

#include <map>
#include <string_view>
#include <tuple>
#include <vector>

namespace fxs::diagnose {

enum class PhaseCategory : std::uint8_t { Dynamo, Aot, Inductor, Cache };

// The category a chromium phase name sets, or none (it inherits its parent's).
std::optional<PhaseCategory> categoryOf(std::string_view phaseName);

struct CompileTime {
    double totalS = 0.0;
    PhaseTimes phases;
    bool fromMetrics = false;
};

// Keyed by (rank, compile id without attempt).
using CompileKey = std::tuple<int, model::CompileId>;
using CompileTimes = std::map<CompileKey, CompileTime>;

// Compile times of one run, every rank.
CompileTimes compileTimes(const model::Run& run);

// Frames of one run (run index `runIndex`), ordered by rank then frame id.
std::vector<Frame> framesOf(const model::Run& run, int runIndex, const CompileTimes& times);

// The compile's total, 0 when unknown.
double compileSeconds(const CompileTimes& times, int rank, const model::CompileId& id);

} // namespace fxs::diagnose
