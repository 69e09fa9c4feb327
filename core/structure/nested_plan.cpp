#include "core/structure/nested_plan.h"

#include "core/util/digest.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace fxs::structure {

namespace {

using Classes = std::map<std::string, std::set<std::string>, std::less<>>;

// Module path -> the classes nn_module_stack gives it (a .pt2; empty for other graphs).
Classes moduleClasses(const graph::Graph& graph)
{
    Classes out;
    for (const graph::Node& n : graph.nodes()) {
        for (const graph::ModuleFrame& f : n.moduleStack) {
            if (!f.path.empty() && !f.type.empty()) {
                out[f.path].insert(f.type);
            }
        }
    }
    return out;
}

std::vector<std::string> pathsOf(const ModuleTree& tree, const std::vector<ModuleId>& ids)
{
    std::vector<std::string> out;
    for (ModuleId m : ids) {
        out.push_back(tree.module(m).path);
    }
    return out;
}

// The one class every instance has, or "" (with why in *note when they differ).
std::string commonClass(const Classes& classes, const std::vector<std::string>& paths,
                        std::string* note)
{
    std::set<std::string> seen;
    bool allKnown = true;
    for (const std::string& p : paths) {
        const auto it = classes.find(p);
        if (it == classes.end() || it->second.size() != 1) {
            allKnown = false;
            continue;
        }
        seen.insert(*it->second.begin());
    }
    if (seen.size() > 1) {
        std::string list;
        for (const std::string& c : seen) {
            list += (list.empty() ? "" : ", ") + c;
        }
        *note += " The instances' classes differ (" + list + "): wrapped one by one.";
        return {};
    }
    return allKnown && seen.size() == 1 ? *seen.begin() : std::string();
}

bool isNumber(std::string_view s)
{
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

class Planner {
public:
    Planner(const graph::Graph& graph, const ModuleTree& tree, const NestedPlanOptions& options)
        : m_tree(tree), m_options(options), m_classes(moduleClasses(graph))
    {
    }

    NestedPlan run()
    {
        m_plan.source = m_tree.source;
        m_plan.strength = m_tree.strength;
        m_plan.notes = m_tree.notes;
        if (m_tree.modules.empty()) {
            skip(NestedSkip::NoModules, {},
                 "the graph names no modules (no parameter names, call_module targets or "
                 "nn_module_stack): there is nothing to wrap");
        } else if (m_tree.source == Source::Repetition) {
            skipRepetition();
        } else {
            planGroups();
            skipDifferingSiblings();
        }
        return std::move(m_plan);
    }

private:
    void skip(NestedSkip reason, std::vector<std::string> modules, std::string message)
    {
        m_plan.skipped.push_back({reason, std::move(modules), std::move(message)});
    }

    void skipRepetition()
    {
        for (const RepeatedBlock& b : m_tree.repeatedBlocks) {
            skip(NestedSkip::NoModulePaths, pathsOf(m_tree, b.instances),
                 "identical blocks found by repetition in a graph that names no modules: they "
                 "have no module paths to wrap");
        }
        if (m_tree.repeatedBlocks.empty()) {
            skip(NestedSkip::NoModules, {},
                 "the graph names no modules and repeats no block: there is nothing to wrap");
        }
    }

    // The accepted instance that m lies in (or is), else kNoModule.
    ModuleId insideRegion(ModuleId m) const
    {
        for (ModuleId a : m_accepted) {
            if (m_tree.isWithin(m, a)) {
                return a;
            }
        }
        return kNoModule;
    }

    void planGroups()
    {
        // Outer groups first, so that groups inside an instance are seen to be inside it.
        std::vector<const RepeatedBlock*> groups;
        for (const RepeatedBlock& b : m_tree.repeatedBlocks) {
            groups.push_back(&b);
        }
        std::stable_sort(groups.begin(), groups.end(), [this](const auto* a, const auto* b) {
            return m_tree.module(a->instances.front()).depth <
                   m_tree.module(b->instances.front()).depth;
        });
        for (const RepeatedBlock* b : groups) {
            planGroup(*b);
        }
        if (m_tree.repeatedBlocks.empty()) {
            skip(NestedSkip::NoRepetition, {},
                 "no two sibling modules are identical (same structure and node count): no "
                 "block to compile once and reuse");
        }
    }

    void planGroup(const RepeatedBlock& b)
    {
        std::vector<std::string> paths = pathsOf(m_tree, b.instances);
        for (ModuleId m : b.instances) {
            m_grouped.insert(m);
        }
        if (const ModuleId outer = insideRegion(b.instances.front()); outer != kNoModule) {
            skip(NestedSkip::InsideRegion, std::move(paths),
                 "inside " + m_tree.module(outer).path +
                     ", an instance of a planned region: compiled as part of it");
            return;
        }
        if (b.nodesEach < m_options.minNodesEach) {
            skip(NestedSkip::TooSmall, std::move(paths),
                 std::to_string(b.nodesEach) + " node(s) each, fewer than " +
                     std::to_string(m_options.minNodesEach) + ": too small to gain from a region");
            return;
        }
        const Module& first = m_tree.module(b.instances.front());
        NestedRegion r;
        r.id = "n" + std::to_string(m_plan.regions.size());
        r.nodesEach = b.nodesEach;
        r.parent = first.parent == kNoModule ? std::string() : m_tree.module(first.parent).path;
        r.note = std::to_string(paths.size()) + " identical modules of " +
                 std::to_string(b.nodesEach) + " nodes each (" + paths.front() + " ... " +
                 paths.back() + "): traced once, reused by the others.";
        r.moduleClass = commonClass(m_classes, paths, &r.note);
        r.instances = std::move(paths);
        m_accepted.insert(m_accepted.end(), b.instances.begin(), b.instances.end());
        m_plan.regions.push_back(std::move(r));
    }

    // Numbered sibling blocks (modules with submodules in a ModuleList or Sequential) where some
    // are identical to none of the others: say so, since a reader expects repetition there.
    void skipDifferingSiblings()
    {
        for (ModuleId id = 0; id < m_tree.modules.size(); ++id) {
            const Module& m = m_tree.module(id);
            if (m.children.size() < 2 || insideRegion(id) != kNoModule || mirrorsAnother(id)) {
                continue;
            }
            const bool numbered = std::all_of(m.children.begin(), m.children.end(),
                                              [this](ModuleId c) {
                                                  return isNumber(m_tree.module(c).name());
                                              });
            std::vector<ModuleId> alone; // blocks only: a Sequential's layers differ by design
            for (ModuleId c : m.children) {
                if (!m_grouped.count(c) && !m_tree.module(c).children.empty()) {
                    alone.push_back(c);
                }
            }
            if (numbered && !alone.empty()) {
                skip(NestedSkip::NotIdentical, pathsOf(m_tree, alone),
                     "numbered children of " + m.path +
                         " identical to none of their siblings (structure or node count "
                         "differ): no region");
            }
        }
    }

    // True when id or an ancestor is identical to another module (listed under that one).
    bool mirrorsAnother(ModuleId id) const
    {
        for (ModuleId m = id; m != kNoModule; m = m_tree.module(m).parent) {
            if (m_tree.module(m).identicalTo != kNoModule) {
                return true;
            }
        }
        return false;
    }

    const ModuleTree& m_tree;
    const NestedPlanOptions& m_options;
    Classes m_classes;
    NestedPlan m_plan;
    std::vector<ModuleId> m_accepted; // instances of planned regions
    std::set<ModuleId> m_grouped;     // instances of any group, planned or skipped
};

} // namespace

std::string_view nestedSkipCode(NestedSkip reason)
{
    switch (reason) {
    case NestedSkip::NoModules: return "no_modules";
    case NestedSkip::NoModulePaths: return "no_module_paths";
    case NestedSkip::NoRepetition: return "no_repetition";
    case NestedSkip::NotIdentical: return "not_identical";
    case NestedSkip::InsideRegion: return "inside_region";
    case NestedSkip::TooSmall: return "too_small";
    }
    return "unknown";
}

std::size_t NestedPlan::instanceCount() const
{
    std::size_t n = 0;
    for (const NestedRegion& r : regions) {
        n += r.instances.size();
    }
    return n;
}

NestedPlan planNestedRegions(const graph::Graph& graph, const ModuleTree& tree,
                             const NestedPlanOptions& options)
{
    return Planner(graph, tree, options).run();
}

std::string nestedPlanJson(const NestedPlan& plan, const graph::Graph& graph,
                           const NestedPlanOrigin& origin)
{
    using nlohmann::json;
    json regions = json::array();
    for (const NestedRegion& r : plan.regions) {
        regions.push_back({{"id", r.id},
                           {"instances", r.instances},
                           {"module_class", r.moduleClass.empty() ? json() : json(r.moduleClass)},
                           {"nodes_each", r.nodesEach},
                           {"parent", r.parent},
                           {"note", r.note}});
    }
    json skipped = json::array();
    for (const NestedSkipped& s : plan.skipped) {
        skipped.push_back({{"modules", s.modules},
                           {"reason", std::string(nestedSkipCode(s.reason))},
                           {"message", s.message}});
    }
    const json digest =
        origin.sourceBytes.empty() ? json() : json(toHex(sha256(origin.sourceBytes)));
    const json out = {
        {"format", std::string(kNestedPlanFormat)},
        {"version", kNestedPlanVersion},
        {"graph",
         {{"path", origin.path},
          {"selector", origin.selector.empty() ? json() : json(origin.selector)},
          {"sha256", digest},
          {"name", graph.name()},
          {"nodes", graph.size()}}},
        {"structure",
         {{"source", std::string(sourceName(plan.source))},
          {"match", std::string(matchStrengthName(plan.strength))}}},
        {"regions", std::move(regions)},
        {"skipped", std::move(skipped)},
        {"notes", plan.notes}};
    return dumpJson(out, 2) + "\n";
}

} // namespace fxs::structure
