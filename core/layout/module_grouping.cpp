// ViewGraph groups from a module tree (view_graph.h): one group per module, runs of identical
// sibling modules folded into one Repeated group, inputs placed beside their users.
//
// The rule, deterministic for a given tree:
//   - a node belongs to its module (ModuleTree::moduleOf); in a bare graph (Source::Repetition)
//     an unassigned input goes to the deepest module holding all of its users, so its weights
//     sit inside their block rather than in one rank of hundreds of inputs across the top;
//   - a group's children (direct nodes and child modules) are ordered by the first node they
//     hold, an input counting at its first user;
//   - two or more consecutive numbered sibling modules identical to the same first module
//     (Module::identicalTo) become one Repeated group, which stands in for a module that holds
//     nothing else (a ModuleList such as `layers`); a bare graph's blocks fold across the few
//     loose nodes between them;
//   - a root module holding at least half of the graph (`model` of LlamaForCausalLM) is opened
//     at the top, so the first view shows embed_tokens, layers.0–23, norm, lm_head and the loss.
#include "core/graph/op_category.h"
#include "core/layout/view_graph.h"

#include <algorithm>
#include <functional>
#include <map>

namespace fxs::layout {

namespace {

using graph::Node;
using graph::NodeId;
using structure::kNoModule;
using structure::ModuleId;
using structure::ModuleTree;

bool isInput(const Node& n)
{
    return n.isPlaceholder() || n.op == graph::OpKind::GetAttr;
}

// torch.export names the placeholders of parameters and buffers `p_<path>` and `b_<path>`;
// user inputs keep their own names.
bool isExportedState(const Node& n)
{
    return n.isPlaceholder() && n.name.size() > 2 && (n.name[0] == 'p' || n.name[0] == 'b') &&
           n.name[1] == '_';
}

// The deepest module holding both a and b (kNoModule when they share none).
ModuleId commonModule(const ModuleTree& t, ModuleId a, ModuleId b)
{
    if (a == kNoModule || b == kNoModule) {
        return kNoModule;
    }
    while (t.module(a).depth > t.module(b).depth) {
        a = t.module(a).parent;
    }
    while (t.module(b).depth > t.module(a).depth) {
        b = t.module(b).parent;
    }
    while (a != b && a != kNoModule) {
        a = t.module(a).parent;
        b = t.module(b).parent;
    }
    return a;
}

// The last `n` dot-separated components of a path.
std::string lastComponents(const std::string& path, int n)
{
    std::size_t pos = path.size();
    for (int i = 0; i < n; ++i) {
        const auto dot = pos == 0 ? std::string::npos : path.rfind('.', pos - 1);
        if (dot == std::string::npos) {
            return path;
        }
        pos = dot;
    }
    return path.substr(pos + 1);
}

bool isNumber(std::string_view s)
{
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "mm ×4, softmax": the most frequent compute operators of a group, for its collapsed box.
std::string opSummary(const graph::Graph& g, const std::vector<NodeId>& nodes)
{
    std::map<std::string_view, int> counts;
    std::vector<std::string_view> order;
    for (NodeId id : nodes) {
        const Node& n = g.node(id);
        if (!n.isCallFunction() || n.getitemOf != graph::kNoNode) {
            continue;
        }
        const auto c = graph::categorize(n);
        if (c == graph::OpCategory::View || c == graph::OpCategory::Constant ||
            c == graph::OpCategory::Pointwise) {
            continue;
        }
        const std::string_view op = graph::opBaseName(n.target);
        if (counts[op]++ == 0) {
            order.push_back(op);
        }
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::string_view a, std::string_view b) { return counts[a] > counts[b]; });
    std::string out;
    for (std::size_t i = 0; i < order.size() && i < 2; ++i) {
        out += (i > 0 ? ", " : "") + std::string(order[i]);
        if (counts[order[i]] > 1) {
            out += " ×" + std::to_string(counts[order[i]]);
        }
    }
    return out;
}

// "layers.0–23" for numbered runs, "k_proj, v_proj" for two named ones, else "a … b".
std::string runLabel(const std::string& first, const std::string& last, std::size_t count)
{
    const auto a = first.find_last_of(". ");
    const auto b = last.find_last_of(". ");
    if (a != std::string::npos && b != std::string::npos && a == b &&
        first.compare(0, a, last, 0, b) == 0 && isNumber(std::string_view(last).substr(b + 1))) {
        return first + "–" + last.substr(b + 1);
    }
    return first + (count == 2 ? ", " : " … ") + last;
}

std::string countText(std::size_t n)
{
    return std::to_string(n) + (n == 1 ? " node" : " nodes");
}

// ViewGraph::addGroup: appends a group under parent and returns its id.
using AddGroup = std::function<GroupId(GroupId parent, GroupKind kind, std::string label)>;

// Builds the groups of one module view into the ViewGraph's group list.
class ModuleGrouper {
public:
    ModuleGrouper(const graph::Graph& graph, const ModuleTree& tree, std::vector<Group>& groups,
                  AddGroup add)
        : m_tree(tree), m_graph(graph), m_groups(groups), m_add(std::move(add))
    {
    }

    std::unordered_map<NodeId, std::string> run()
    {
        placeNodes();
        const GroupId root = m_add(kNoGroup, GroupKind::Root, m_graph.name());
        std::vector<ModuleId> roots;
        for (ModuleId r : m_tree.roots) {
            const bool opened =
                m_total[r] * 2 >= m_graph.size() && !m_tree.module(r).children.empty();
            if (!opened) {
                roots.push_back(r);
                continue;
            }
            m_opened = r;
            for (NodeId n : m_direct[r]) {
                m_rootNodes.push_back(n);
            }
            for (ModuleId c : m_tree.module(r).children) {
                roots.push_back(c);
            }
        }
        fill(root, kNoModule, m_rootNodes, roots);
        return std::move(m_titles);
    }

private:
    // Where every node goes and the order key of every node and module.
    void placeNodes()
    {
        const std::size_t nm = m_tree.modules.size();
        m_direct.assign(nm, {});
        m_key.assign(m_graph.size(), 0);
        for (const Node& n : m_graph.nodes()) {
            ModuleId home = m_tree.moduleOf[n.id];
            m_key[n.id] = n.id;
            if (isInput(n)) {
                ModuleId common = kNoModule;
                bool first = true;
                for (NodeId u : n.users) {
                    const ModuleId um = m_tree.moduleOf[u];
                    common = first ? um : commonModule(m_tree, common, um);
                    first = false;
                }
                // A bare graph's inputs name nothing: its weights go beside their users, as do
                // an exported program's parameters and buffers (`p_fc1_weight`, `b_bn_mean`).
                // A named graph's other inputs (x, tangents) are its own and stay at the top.
                if (home == kNoModule && (m_tree.source == structure::Source::Repetition ||
                                          (m_tree.source == structure::Source::ExportMetadata &&
                                           isExportedState(n)))) {
                    home = common;
                }
                if (!n.users.empty()) {
                    m_key[n.id] = n.users.front();
                }
                if (const auto* p = m_tree.inputPath(n.id); p && home != kNoModule) {
                    m_titles[n.id] = lastComponents(p->path, 2);
                }
            }
            (home == kNoModule ? m_rootNodes : m_direct[home]).push_back(n.id);
        }
        m_minKey.assign(nm, graph::kNoNode);
        m_total.assign(nm, 0);
        for (ModuleId m = static_cast<ModuleId>(nm); m-- > 0;) { // preorder: children after
            for (NodeId n : m_direct[m]) {
                m_minKey[m] = std::min(m_minKey[m], m_key[n]);
            }
            m_total[m] += m_direct[m].size();
            const ModuleId p = m_tree.module(m).parent;
            if (p != kNoModule) {
                m_minKey[p] = std::min(m_minKey[p], m_minKey[m]);
                m_total[p] += m_total[m];
            }
        }
    }

    // The first module a module is identical to (itself when none).
    ModuleId identityOf(ModuleId m) const
    {
        ModuleId first = m;
        while (m_tree.module(first).identicalTo != kNoModule) {
            first = m_tree.module(first).identicalTo;
        }
        return first;
    }

    // What the user sees for a module inside a group showing `owner` (kNoModule: the top).
    std::string labelOf(ModuleId m, ModuleId owner) const
    {
        const std::string& path = m_tree.module(m).path;
        if (m_tree.source == structure::Source::Repetition) {
            return path;
        }
        std::string rest = path;
        const ModuleId base = owner != kNoModule ? owner : m_opened;
        if (base != kNoModule) {
            const std::string& prefix = m_tree.module(base).path;
            if (path.size() > prefix.size() + 1 && path.compare(0, prefix.size(), prefix) == 0 &&
                path[prefix.size()] == '.') {
                rest = path.substr(prefix.size() + 1);
            }
        }
        if (isNumber(rest)) {
            rest = lastComponents(path, 2); // "layers.3", not "3"
        }
        return rest;
    }

    // The children of a group showing `owner`: its direct nodes and child modules in order,
    // runs of identical modules folded.
    void fill(GroupId group, ModuleId owner, const std::vector<NodeId>& direct,
              const std::vector<ModuleId>& modules)
    {
        struct Entry {
            NodeId key;
            bool module;
            std::uint32_t index;
        };
        std::vector<Entry> entries;
        for (NodeId n : direct) {
            entries.push_back({m_key[n], false, n});
        }
        for (ModuleId m : modules) {
            if (m_total[m] > 0) {
                entries.push_back({m_minKey[m], true, m});
            }
        }
        std::stable_sort(entries.begin(), entries.end(),
                         [](const Entry& a, const Entry& b) { return a.key < b.key; });
        for (std::size_t i = 0; i < entries.size();) {
            if (!entries[i].module) {
                m_groups[group].children.push_back({false, entries[i].index});
                ++i;
                continue;
            }
            // The run of modules identical to this one, across a few loose nodes between them
            // (a residual add or a gradient sum between two layers belongs to neither).
            const ModuleId cls = identityOf(entries[i].index);
            std::size_t last = i;
            std::size_t modules = 1;
            const std::size_t glue = m_tree.source == structure::Source::Repetition ? kMaxGlue : 0;
            const bool numbered = isNumbered(entries[i].index);
            for (std::size_t j = i + 1, loose = 0; numbered && j < entries.size(); ++j) {
                if (!entries[j].module) {
                    if (++loose > glue) {
                        break;
                    }
                    continue;
                }
                if (identityOf(entries[j].index) != cls) {
                    break;
                }
                last = j;
                loose = 0;
                ++modules;
            }
            if (modules >= 2) {
                std::vector<ViewChild> run;
                for (std::size_t k = i; k <= last; ++k) {
                    run.push_back({entries[k].module, entries[k].index});
                }
                addRepeated(group, owner, run);
            } else {
                addModule(group, owner, entries[i].index, "");
            }
            i = last + 1;
        }
    }

    void addModule(GroupId parent, ModuleId owner, ModuleId m, std::string label)
    {
        const structure::Module& mod = m_tree.module(m);
        // A module holding only one run of identical children (a ModuleList) is that run.
        std::vector<ModuleId> held;
        for (ModuleId c : mod.children) {
            if (m_total[c] > 0) {
                held.push_back(c);
            }
        }
        if (m_direct[m].empty() && held.size() >= 2 && isNumbered(held.front()) &&
            std::all_of(held.begin(), held.end(),
                        [&](ModuleId c) { return identityOf(c) == identityOf(held.front()); })) {
            std::vector<ViewChild> run;
            for (ModuleId c : held) {
                run.push_back({true, c});
            }
            m_groups[addRepeated(parent, owner, run)].module = m;
            return;
        }
        const GroupId g =
            m_add(parent, GroupKind::Module, label.empty() ? labelOf(m, owner) : label);
        m_groups[g].module = m;
        fill(g, m, m_direct[m], mod.children);
        std::vector<NodeId> all = m_tree.nodesOf(m);
        const std::string ops = opSummary(m_graph, all);
        m_groups[g].detail = countText(m_total[m]) + (ops.empty() ? "" : " · " + ops);
    }

    // A Repeated group of identical modules (ViewChild::isGroup marks the modules, the rest are
    // loose nodes between them, kept in place).
    GroupId addRepeated(GroupId parent, ModuleId owner, const std::vector<ViewChild>& run)
    {
        std::vector<ModuleId> modules;
        for (const ViewChild& c : run) {
            if (c.isGroup && m_total[c.index] > 0) {
                modules.push_back(c.index);
            }
        }
        const GroupId g = m_add(parent, GroupKind::Repeated,
                                runLabel(labelOf(modules.front(), owner),
                                         labelOf(modules.back(), owner), modules.size()));
        m_groups[g].detail = std::to_string(modules.size()) + " identical · " +
                             std::to_string(m_total[modules.front()]) + " nodes each";
        const bool blocks = m_tree.source == structure::Source::Repetition;
        for (const ViewChild& c : run) {
            if (!c.isGroup) {
                m_groups[g].children.push_back(c);
            } else if (m_total[c.index] > 0) {
                std::string name = labelOf(c.index, owner);
                if (blocks) {
                    name += " of " + std::to_string(modules.size());
                }
                addModule(g, owner, c.index, std::move(name));
            }
        }
        return g;
    }

    // Loose nodes a run of bare graph's blocks may span (the gradient sum of the residual stream
    // between two backward layers); named modules fold only when adjacent.
    static constexpr std::size_t kMaxGlue = 8;

    // Only numbered modules (ModuleList/Sequential entries, "block N") fold into a run:
    // identical named siblings such as k_proj and v_proj stay apart.
    bool isNumbered(ModuleId m) const
    {
        const std::string& path = m_tree.module(m).path;
        const auto sep = path.find_last_of(". ");
        return isNumber(sep == std::string::npos ? std::string_view(path)
                                                 : std::string_view(path).substr(sep + 1));
    }

    const ModuleTree& m_tree;
    const graph::Graph& m_graph;
    std::vector<Group>& m_groups;
    AddGroup m_add;
    std::vector<std::vector<NodeId>> m_direct; // per module: the nodes placed directly in it
    std::vector<NodeId> m_rootNodes;           // nodes in no module
    std::vector<NodeId> m_key;                 // per node: its order key
    std::vector<NodeId> m_minKey;              // per module: smallest key inside
    std::vector<std::size_t> m_total;          // per module: nodes placed inside
    ModuleId m_opened = kNoModule;             // the root module opened at the top
    std::unordered_map<NodeId, std::string> m_titles;
};

} // namespace

void ViewGraph::buildFromModules(const GroupingOptions& options)
{
    const auto add = [this](GroupId parent, GroupKind kind, std::string label) {
        return addGroup(parent, kind, std::move(label), 0);
    };
    m_inputTitles = ModuleGrouper(*m_graph, *m_modules, m_groups, add).run();
    groupRootInputs();
    groupLooseRuns();
    chunk(kRootGroup, options);
    finish(kRootGroup, 0);
}

// Graph inputs no module claims (input_ids, tangents) gather in one "inputs" group at the first
// one's place when there are several.
void ViewGraph::groupRootInputs()
{
    std::vector<ViewChild>& top = m_groups[kRootGroup].children;
    std::vector<ViewChild> inputs;
    std::size_t at = top.size();
    for (std::size_t i = 0; i < top.size(); ++i) {
        if (!top[i].isGroup && isInput(m_graph->node(top[i].index))) {
            at = std::min(at, i);
            inputs.push_back(top[i]);
        }
    }
    if (inputs.size() < 4) {
        return;
    }
    std::vector<ViewChild> rest;
    for (std::size_t i = 0; i < top.size(); ++i) {
        if (top[i].isGroup || !isInput(m_graph->node(top[i].index))) {
            rest.push_back(top[i]);
        }
        if (i == at) {
            rest.push_back({true, static_cast<GroupId>(m_groups.size())});
        }
    }
    const GroupId g = addGroup(kRootGroup, GroupKind::Inputs, "inputs", 0);
    m_groups[g].children = std::move(inputs);
    m_groups[kRootGroup].children = std::move(rest); // the new group in its place
}

// Runs of three or more loose nodes at the top (building the attention mask, the loss) become
// one group each, named after the source function most of them come from
// ("ForCausalLMLoss · loss_utils.py"), else after their first and last node (a chunk).
void ViewGraph::groupLooseRuns()
{
    std::vector<ViewChild> top = std::move(m_groups[kRootGroup].children);
    std::vector<ViewChild> out;
    std::vector<ViewChild> run;
    const auto flush = [&] {
        if (run.size() < 3) {
            out.insert(out.end(), run.begin(), run.end());
            run.clear();
            return;
        }
        std::map<std::string, int> functions;
        std::string label;
        int best = 0;
        for (const ViewChild& c : run) {
            const graph::SourceLoc& src = m_graph->node(c.index).source;
            if (!src.known()) {
                continue;
            }
            const std::string file = src.file.substr(src.file.find_last_of('/') + 1);
            const std::string name = src.function + " · " + file;
            if (++functions[name] > best) {
                best = functions[name];
                label = name;
            }
        }
        // A chunk is labelled by finish(); root's children are replaced below.
        const GroupId g = addGroup(kRootGroup, label.empty() ? GroupKind::Chunk : GroupKind::Scope,
                                   std::move(label), 0);
        m_groups[g].children = std::move(run);
        run.clear();
        out.push_back({true, g});
    };
    for (const ViewChild& c : top) {
        if (c.isGroup || m_graph->node(c.index).isOutput()) {
            flush();
            out.push_back(c);
        } else {
            run.push_back(c);
        }
    }
    flush();
    m_groups[kRootGroup].children = std::move(out);
}

} // namespace fxs::layout
