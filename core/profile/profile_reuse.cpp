// Units, keys, the memo and the reuse plan of a profile (see profile_reuse.h for the key).
#include "core/profile/profile_reuse.h"

#include "core/graph/graph_printer.h"
#include "core/profile/runtime_profile.h"
#include "core/util/digest.h"

#include <algorithm>
#include <set>

namespace fxs::profile {
namespace {

constexpr const char* kSubstituteTarget = "fxscope.substitute";

std::string metaText(const graph::Node& n)
{
    if (const graph::TensorMeta* t = n.tensorMeta()) {
        return t->toString();
    }
    return n.meta.text;
}

std::string_view devicePrefName(exec::DevicePref d)
{
    switch (d) {
    case exec::DevicePref::Cpu: return "cpu";
    case exec::DevicePref::Cuda: return "cuda";
    default: return "auto";
    }
}

// Labelled, length-prefixed components: no two transcripts run together.
class Transcript {
public:
    void add(std::string_view label, std::string_view value)
    {
        m_hash.update(label);
        m_hash.update("=" + std::to_string(value.size()) + ":");
        m_hash.update(value);
        m_hash.update("\n");
    }
    std::string finish() { return toHex(m_hash.finish()); }

private:
    Sha256Builder m_hash;
};

// The unit's nodes with a user outside it (or returned): what the rest of the graph reads.
std::vector<graph::NodeId> unitOutputs(const graph::Graph& g, const ProfileUnit& unit)
{
    const std::set<graph::NodeId> members(unit.nodes.begin(), unit.nodes.end());
    std::vector<graph::NodeId> out;
    for (const graph::NodeId id : unit.nodes) {
        const auto& users = g.node(id).users;
        if (std::any_of(users.begin(), users.end(),
                        [&](graph::NodeId u) { return members.count(u) == 0; })) {
            out.push_back(id);
        }
    }
    return out;
}

std::vector<graph::NodeId> unitInputs(const graph::Graph& g, const ProfileUnit& unit)
{
    const std::set<graph::NodeId> members(unit.nodes.begin(), unit.nodes.end());
    std::vector<graph::NodeId> out;
    std::set<graph::NodeId> seen;
    for (const graph::NodeId id : unit.nodes) {
        for (const graph::NodeId in : g.node(id).inputs) {
            if (members.count(in) == 0 && seen.insert(in).second) {
                out.push_back(in);
            }
        }
    }
    return out;
}

std::vector<structure::ModuleId> unitModules(const structure::ModuleTree& tree)
{
    std::vector<structure::ModuleId> out;
    if (!tree.repeatedBlocks.empty()) {
        out = tree.repeatedBlocks.front().instances;
    }
    const auto blocks = out;
    for (const structure::ModuleId root : tree.roots) {
        if (std::none_of(blocks.begin(), blocks.end(),
                         [&](structure::ModuleId b) { return tree.isWithin(b, root); })) {
            out.push_back(root);
        }
    }
    return out;
}

} // namespace

std::vector<ProfileUnit> profileUnits(const graph::Graph& graph,
                                      const structure::ModuleTree* tree)
{
    const bool known = tree != nullptr && tree->moduleOf.size() == graph.size();
    const std::vector<structure::ModuleId> modules =
        known ? unitModules(*tree) : std::vector<structure::ModuleId>{};
    const std::set<structure::ModuleId> isUnit(modules.begin(), modules.end());
    std::vector<ProfileUnit> units;
    std::map<structure::ModuleId, std::size_t> indexOf;
    ProfileUnit rest;
    for (const graph::Node& n : graph.nodes()) {
        if (!n.isCallFunction()) {
            continue;
        }
        structure::ModuleId m = known ? tree->moduleOf[n.id] : structure::kNoModule;
        while (m != structure::kNoModule && isUnit.count(m) == 0) {
            m = tree->modules[m].parent;
        }
        if (m == structure::kNoModule) {
            rest.nodes.push_back(n.id);
            continue;
        }
        auto [it, added] = indexOf.emplace(m, units.size());
        if (added) {
            units.push_back({tree->modules[m].path, {}});
        }
        units[it->second].nodes.push_back(n.id);
    }
    if (!rest.nodes.empty()) {
        units.push_back(std::move(rest));
    }
    return units;
}

std::string unitKey(const graph::Graph& graph, const ProfileUnit& unit,
                    const ProfileOptions& options)
{
    if (options.run.inputs || options.run.forwardGraph) {
        return {};
    }
    Transcript t;
    t.add("salt", "fxscope-profile-unit/1");
    t.add("path", unit.path);
    for (const graph::NodeId id : unit.nodes) {
        const graph::Node& n = graph.node(id);
        t.add("node", n.name);
        t.add("expr", graph::nodeExpression(graph, n));
        t.add("meta", metaText(n));
    }
    for (const graph::NodeId id : unitInputs(graph, unit)) {
        t.add("input", graph.node(id).name);
        t.add("input.meta", metaText(graph.node(id)));
    }
    t.add("repeat", std::to_string(std::max(1, options.repeat)));
    t.add("seed", std::to_string(options.run.seed));
    for (const auto& [symbol, size] : options.run.sizes) {
        t.add("size", symbol + "=" + std::to_string(size));
    }
    t.add("device", devicePrefName(options.run.device));
    t.add("inputs_file", options.run.inputsFile);
    return t.finish();
}

std::optional<ProfileMemo::UnitRuns> ProfileMemo::find(const std::string& key) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_units.find(key);
    return it == m_units.end() ? std::nullopt : std::optional<UnitRuns>(it->second);
}

void ProfileMemo::store(const std::string& key, UnitRuns runs)
{
    std::lock_guard lock(m_mutex);
    if (m_units.insert_or_assign(key, std::move(runs)).second) {
        m_order.push_back(key);
    }
    while (m_units.size() > kMaxEntries) {
        m_units.erase(m_order.front());
        m_order.pop_front();
    }
}

std::optional<ProfileMemo::GraphFacts> ProfileMemo::findGraph(const std::string& key) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_graphs.find(key);
    return it == m_graphs.end() ? std::nullopt : std::optional<GraphFacts>(it->second);
}

void ProfileMemo::storeGraph(const std::string& key, GraphFacts facts)
{
    std::lock_guard lock(m_mutex);
    if (m_graphs.size() >= kMaxEntries) {
        m_graphs.clear(); // a rare reset beats an unbounded map; units stay
    }
    m_graphs.insert_or_assign(key, std::move(facts));
}

ProfileMemo::Stats ProfileMemo::lastStats() const
{
    std::lock_guard lock(m_mutex);
    return m_last;
}

void ProfileMemo::setLastStats(const Stats& stats)
{
    std::lock_guard lock(m_mutex);
    m_last = stats;
}

std::size_t ProfileMemo::size() const
{
    std::lock_guard lock(m_mutex);
    return m_units.size();
}

void ProfileMemo::clear()
{
    std::lock_guard lock(m_mutex);
    m_units.clear();
    m_order.clear();
    m_graphs.clear();
    m_last = {};
}

std::size_t ReusePlan::reused() const
{
    return static_cast<std::size_t>(
        std::count_if(found.begin(), found.end(), [](const auto& f) { return f.has_value(); }));
}

std::vector<std::string> ReusePlan::reusedOutputs(const graph::Graph& g) const
{
    std::vector<std::string> names;
    for (std::size_t u = 0; u < units.size(); ++u) {
        for (const graph::NodeId id : found[u] ? unitOutputs(g, units[u])
                                               : std::vector<graph::NodeId>{}) {
            names.push_back(g.node(id).name);
        }
    }
    return names;
}

std::vector<exec::Substitute> ReusePlan::substitutes(const graph::Graph& g,
                                                     const exec::ValueStore& kept)
{
    std::vector<exec::Substitute> out;
    for (std::size_t u = 0; u < units.size(); ++u) {
        if (!found[u]) {
            continue;
        }
        exec::Substitute s;
        s.name = "reused " + units[u].path;
        s.nodes = units[u].nodes;
        s.inputs = unitInputs(g, units[u]);
        s.outputs = unitOutputs(g, units[u]);
        std::vector<exec::TensorHandle> values;
        for (const graph::NodeId id : s.outputs) {
            if (const exec::TensorHandle* v = kept.find(g.node(id).name)) {
                values.push_back(*v);
            }
        }
        if (values.size() != s.outputs.size()) {
            found[u].reset(); // hands out something that is not a tensor: measure it
            continue;
        }
        s.run = [values](const std::vector<exec::TensorHandle>&) {
            return Result<std::vector<exec::TensorHandle>>(values);
        };
        out.push_back(std::move(s));
    }
    return out;
}

void ReusePlan::merge(int run, std::vector<exec::NodeTiming>& perNode, double& totalMs) const
{
    std::erase_if(perNode, [](const exec::NodeTiming& t) { return t.target == kSubstituteTarget; });
    for (const auto& f : found) {
        if (!f || run < 0 || static_cast<std::size_t>(run) >= f->size()) {
            continue;
        }
        for (const exec::NodeTiming& t : (*f)[static_cast<std::size_t>(run)]) {
            perNode.push_back(t);
            totalMs += t.ms;
        }
    }
}

void ReusePlan::storeMeasured(ProfileMemo& memo,
                              const std::vector<std::vector<exec::NodeTiming>>& runs,
                              const graph::Graph& g) const
{
    for (std::size_t u = 0; u < units.size(); ++u) {
        if (found[u] || keys[u].empty()) {
            continue;
        }
        std::set<std::string> names;
        for (const graph::NodeId id : units[u].nodes) {
            names.insert(g.node(id).name);
        }
        ProfileMemo::UnitRuns unitRuns;
        for (const auto& run : runs) {
            auto& mine = unitRuns.emplace_back();
            for (const exec::NodeTiming& t : run) {
                if (names.count(t.name) != 0) {
                    mine.push_back(t);
                }
            }
        }
        memo.store(keys[u], std::move(unitRuns));
    }
}

UnitProgress::UnitProgress(const graph::Graph& graph, const std::vector<ProfileUnit>& units,
                           ProgressSink sink, double steps)
    : m_unitOf(graph.size(), -1), m_sink(std::move(sink)), m_steps(std::max(steps, 1.0))
{
    for (const ProfileUnit& unit : units) {
        if (unit.path.empty()) {
            continue;
        }
        for (const graph::NodeId id : unit.nodes) {
            m_unitOf[id] = static_cast<int>(m_paths.size());
        }
        m_paths.push_back(unit.path);
    }
}

void UnitProgress::begin(double step, std::string phase)
{
    m_step = step;
    m_phase = std::move(phase);
    m_current = -1;
    report(step / m_steps, m_phase);
}

void UnitProgress::report(double fraction, const std::string& phase)
{
    m_last = std::max(m_last, fraction);
    reportProgress(m_sink, m_last, phase);
}

std::function<void(graph::NodeId)> UnitProgress::hook()
{
    if (m_paths.empty() || !m_sink) {
        return {};
    }
    return [this](graph::NodeId node) { enter(node); };
}

void UnitProgress::enter(graph::NodeId node)
{
    const int unit = node < m_unitOf.size() ? m_unitOf[node] : -1;
    if (unit < 0 || unit == m_current) {
        return;
    }
    m_current = unit;
    const double within = static_cast<double>(unit) / static_cast<double>(m_paths.size());
    report((m_step + within) / m_steps, m_phase + " \u00b7 module " + std::to_string(unit + 1) +
                                            "/" + std::to_string(m_paths.size()) + ": " +
                                            m_paths[static_cast<std::size_t>(unit)]);
}

ReusePlan planReuse(const graph::Graph& graph, const ProfileOptions& options,
                    const ProfileMemo* memo)
{
    ReusePlan plan;
    plan.units = profileUnits(graph, options.modules);
    const std::size_t repeat = static_cast<std::size_t>(std::max(1, options.repeat));
    Transcript all;
    bool every = !plan.units.empty();
    for (const ProfileUnit& unit : plan.units) {
        plan.keys.push_back(unitKey(graph, unit, options));
        all.add("unit", plan.keys.back());
        auto runs = memo != nullptr && !plan.keys.back().empty() ? memo->find(plan.keys.back())
                                                                 : std::nullopt;
        if (runs && runs->size() != repeat) {
            runs.reset();
        }
        every = every && runs.has_value();
        plan.found.push_back(std::move(runs));
    }
    plan.graphKey = all.finish();
    if (every && memo != nullptr) {
        plan.graph = memo->findGraph(plan.graphKey);
    }
    return plan;
}

} // namespace fxs::profile
