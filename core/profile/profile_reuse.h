// Per-module reuse for run-time profiles (ProfileOptions::memo): the units a profile reports its
// progress by and reuses results of, their keys, and ProfileMemo, the in-memory store of each
// unit's node timings. A re-profile of an unchanged graph with the same options makes no engine
// run (one, the warm-up, when regions are compiled: the region compiler takes its inputs from
// it); one with some units changed runs the graph once untimed, then times only the changed
// units (the others are skipped through exec::Substitute with the untimed run's values).
// Not persisted (the memo lives as long as its owner, the app's ProfileController) and not the
// profile itself (runtime_profile.h).
#pragma once

#include "core/exec/interpreter.h"
#include "core/graph/graph.h"
#include "core/profile/roofline.h"
#include "core/structure/module_tree.h"
#include "core/util/cancel.h"

#include <functional>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace fxs::profile {

struct ProfileOptions;

struct ProfileUnit {
    std::string path;                 // "model.layers.4"; "" for the call nodes in no unit
    std::vector<graph::NodeId> nodes; // its call_function nodes, graph order
};

// The instances of the tree's largest repeated block (the decoder layers) and the root modules
// that hold none of them, in graph order, then "" for the call nodes left (embeddings, norms,
// loss). No tree or no modules: the single unit "". Units without call nodes are left out.
std::vector<ProfileUnit> profileUnits(const graph::Graph& graph,
                                      const structure::ModuleTree* tree);

// The reuse key of a unit: SHA-256 (hex) over a labelled transcript of
//   - the salt "fxscope-profile-unit/1" (bumped when timings are taken differently),
//   - the unit's path,
//   - each node of the unit in order: name, expression (graph::nodeExpression: the target and
//     the arguments by name) and output meta,
//   - each value the unit reads from outside it: name and meta,
//   - the options that change timings: timed runs (repeat), seed, symbolic sizes, the device
//     preference and the real-inputs file's path.
// Not in it: tensor values (synthesised from the seed, or read from inputsFile: a file changed
// in place under the same path is not noticed), other units (a unit's time is taken as not
// depending on what ran before it), the machine's load, and the device Auto resolves to (the
// same within the process the memo lives in). Empty, never reused, when the options give inputs
// in memory or a forward graph (their values are not in the key).
std::string unitKey(const graph::Graph& graph, const ProfileUnit& unit,
                    const ProfileOptions& options);

class ProfileMemo {
public:
    // One unit's node timings per timed run, in run order.
    using UnitRuns = std::vector<std::vector<exec::NodeTiming>>;
    // What a profile whose every unit was reused takes from the last full one.
    struct GraphFacts {
        std::string device;
        std::int64_t peakBytes = 0;
        MachinePeaks peaks;
        std::vector<double> totalsMs; // per timed run
    };
    // What the last profileGraph given this memo did (tests and the status bar).
    struct Stats {
        int engineRuns = 0;            // graph runs of the engine, the warm-up included
        std::size_t unitsReused = 0;   // units whose timings came from the memo
        std::size_t unitsMeasured = 0; // units timed in this profile
        std::size_t units = 0;         // units the graph has (progress: "module k/units")
    };
    static constexpr std::size_t kMaxEntries = 4096; // units kept; the oldest go first

    // Thread-safe: a stale profile may still be running when the next one starts.
    std::optional<UnitRuns> find(const std::string& key) const;
    void store(const std::string& key, UnitRuns runs);
    std::optional<GraphFacts> findGraph(const std::string& key) const;
    void storeGraph(const std::string& key, GraphFacts facts);
    Stats lastStats() const;
    void setLastStats(const Stats& stats);
    std::size_t size() const;
    void clear();

private:
    mutable std::mutex m_mutex;
    std::map<std::string, UnitRuns> m_units;
    std::deque<std::string> m_order; // insertion order of m_units' keys
    std::map<std::string, GraphFacts> m_graphs;
    Stats m_last;
};

// What one profile reuses: per unit its key and, when the memo has it, its stored runs.
struct ReusePlan {
    std::vector<ProfileUnit> units;
    std::vector<std::string> keys;                      // per unit; "" never reused
    std::vector<std::optional<ProfileMemo::UnitRuns>> found; // per unit, with `repeat` runs
    std::string graphKey;                               // over every unit's key
    std::optional<ProfileMemo::GraphFacts> graph;       // when every unit was found

    std::size_t reused() const;
    bool complete() const { return graph.has_value(); }
    // Names of the values reused units hand to the rest of the graph (keep them in the warm-up).
    std::vector<std::string> reusedOutputs(const graph::Graph& g) const;
    // Substitutes that skip the reused units in a timed run, handing out the warm-up's values;
    // a unit whose outputs kept lacks (a value that is not a tensor) is measured instead.
    std::vector<exec::Substitute> substitutes(const graph::Graph& g, const exec::ValueStore& kept);
    // A timed run's node timings without the substitutes' entries, with the reused units'
    // timings of run `run` added in their place (totalMs gains their sum).
    void merge(int run, std::vector<exec::NodeTiming>& perNode, double& totalMs) const;
    // Stores the units measured in these runs.
    void storeMeasured(ProfileMemo& memo, const std::vector<std::vector<exec::NodeTiming>>& runs,
                       const graph::Graph& g) const;
};

// Reports a profile's engine runs by unit: "timed run 2/5 · module 5/24: model.layers.4" as the
// run enters each named unit (RunOptions::onNode), fractions never falling.
class UnitProgress {
public:
    UnitProgress(const graph::Graph& graph, const std::vector<ProfileUnit>& units,
                 ProgressSink sink, double steps);
    // An engine run begins at step `step` of `steps`: reports phase.
    void begin(double step, std::string phase);
    // RunOptions::onNode for the runs; valid while this object lives.
    std::function<void(graph::NodeId)> hook();
    // Reports phase at a fraction (the steps outside engine runs).
    void report(double fraction, const std::string& phase);

private:
    void enter(graph::NodeId node);

    std::vector<int> m_unitOf;       // per NodeId: index in m_paths, -1 for none
    std::vector<std::string> m_paths; // the named units
    ProgressSink m_sink;
    double m_steps = 1.0;
    double m_step = 0.0;
    double m_last = 0.0;
    std::string m_phase;
    int m_current = -1;
};

// The plan for a profile of graph with options (memo null: nothing reused, keys still made).
ReusePlan planReuse(const graph::Graph& graph, const ProfileOptions& options,
                    const ProfileMemo* memo);

} // namespace fxs::profile
