#include "core/explain/graph_diff.h"

#include "core/graph/subgraphs.h"
#include "core/io/graph_code_parser.h"
#include "core/util/strings.h"

#include <algorithm>
#include <map>

namespace fxs::explain {
namespace {

using graph::Graph;
using graph::Node;

std::string argsText(const Graph& g, const Node& n)
{
    auto nameOf = [&g](graph::NodeId id) -> std::string {
        return id < g.size() ? g.node(id).name : std::string("?");
    };
    std::vector<std::string> parts;
    parts.reserve(n.args.size() + n.kwargs.size());
    for (const auto& a : n.args) {
        parts.push_back(graph::argumentToString(a, nameOf));
    }
    for (const auto& [key, value] : n.kwargs) {
        parts.push_back(key + "=" + graph::argumentToString(value, nameOf));
    }
    return "(" + join(parts, ", ") + ")";
}

std::string opText(const Node& n)
{
    return std::string(graph::opKindName(n.op));
}

void describeSide(const Graph& g, const Node& n, bool sideA, NodeChange& ch)
{
    (sideA ? ch.opA : ch.opB) = opText(n);
    (sideA ? ch.targetA : ch.targetB) = n.target;
    (sideA ? ch.argsA : ch.argsB) = argsText(g, n);
    (sideA ? ch.metaA : ch.metaB) = n.meta.text;
    (sideA ? ch.idA : ch.idB) = n.id;
}

void compareFields(NodeChange& ch)
{
    if (ch.opA != ch.opB) {
        ch.fields.emplace_back("op");
    }
    if (ch.targetA != ch.targetB) {
        ch.fields.emplace_back("target");
    }
    if (ch.argsA != ch.argsB) {
        ch.fields.emplace_back("args");
    }
    if (ch.metaA != ch.metaB) {
        ch.fields.emplace_back("meta");
    }
}

// The function a target names, not its module or overload: "aten::mul.Tensor" → "mul",
// "torch.ops.aten.mul.Tensor" → "mul", "operator.mul" → "mul", "torch.nn.functional.gelu" →
// "gelu", "relu" (a method) → "relu"; placeholders and outputs by their op ("placeholder").
std::string shortTarget(std::string_view target, std::string_view op)
{
    if (target.empty()) {
        return std::string(op);
    }
    // An operator overload, "ns::name.overload" or "torch.ops.ns.name.overload": the name.
    if (const auto colons = target.rfind("::"); colons != std::string_view::npos) {
        target.remove_prefix(colons + 2);
        return std::string(target.substr(0, target.find('.')));
    }
    const auto ops = target.find("ops.");
    if (ops != std::string_view::npos && (ops == 0 || target[ops - 1] == '.')) {
        const std::string_view rest = target.substr(ops + 4); // "aten.mul.Tensor"
        const auto ns = rest.find('.');
        if (ns != std::string_view::npos && ns + 1 < rest.size()) {
            const std::string_view name = rest.substr(ns + 1); // "mul.Tensor"
            return std::string(name.substr(0, name.find('.')));
        }
    }
    // A Python function by its dotted path: the last part.
    const auto dot = target.rfind('.');
    if (dot != std::string_view::npos && dot + 1 < target.size()) {
        return std::string(target.substr(dot + 1));
    }
    return std::string(target);
}

// "mul(gelu, 2.0) → mul(gelu, 3.0)", "+ cos(x)", "− sin(x)", "mul_1: meta a → b".
std::string nodeChangeText(const NodeChange& c)
{
    const std::string a = shortTarget(c.targetA, c.opA) + c.argsA;
    const std::string b = shortTarget(c.targetB, c.opB) + c.argsB;
    switch (c.change) {
    case NodeChangeKind::Added: return "+ " + b;
    case NodeChangeKind::Removed: return "\u2212 " + a;
    case NodeChangeKind::Changed: break;
    }
    if (a == b) { // only the output meta (shape, dtype, stride) differs
        return c.name + ": " + c.metaA + " \u2192 " + c.metaB;
    }
    return a + " \u2192 " + b;
}

std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines = split(text, '\n');
    for (auto& l : lines) {
        if (!l.empty() && l.back() == '\r') {
            l.remove_suffix(1);
        }
    }
    return lines;
}

using Lines = std::vector<std::string_view>;

// Appends "- "/"+ " entries for la[0..n) against lb[0..m) by longest common subsequence.
void lcsDiff(const Lines& la, const Lines& lb, std::vector<std::string>& out)
{
    const std::size_t n = la.size();
    const std::size_t m = lb.size();
    // lcs[i][j]: LCS length of la[i..] and lb[j..].
    std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
    for (std::size_t i = n; i-- > 0;) {
        for (std::size_t j = m; j-- > 0;) {
            at(i, j) = la[i] == lb[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
        }
    }
    auto emit = [&out](char sign, std::string_view line) {
        if (out.size() < kMaxLineDiff) {
            out.push_back(std::string(1, sign) + " " + std::string(line));
        }
    };
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && la[i] == lb[j]) {
            ++i;
            ++j;
        } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
            emit('-', la[i++]);
        } else {
            emit('+', lb[j++]);
        }
    }
}

// Line diff of the middle part (common prefix and suffix removed first); when the middle is
// too large for the quadratic table, every middle line is reported as removed then added.
std::vector<std::string> diffLines(std::string_view a, std::string_view b)
{
    Lines la = splitLines(a);
    Lines lb = splitLines(b);
    std::size_t pre = 0;
    while (pre < la.size() && pre < lb.size() && la[pre] == lb[pre]) {
        ++pre;
    }
    std::size_t suf = 0;
    while (suf + pre < la.size() && suf + pre < lb.size() &&
           la[la.size() - 1 - suf] == lb[lb.size() - 1 - suf]) {
        ++suf;
    }
    la = Lines(la.begin() + pre, la.end() - suf);
    lb = Lines(lb.begin() + pre, lb.end() - suf);
    constexpr std::size_t kMaxCells = 4'000'000;
    std::vector<std::string> out;
    if (la.size() * lb.size() <= kMaxCells) {
        lcsDiff(la, lb, out);
        return out;
    }
    for (const auto* side : {&la, &lb}) {
        const char sign = side == &la ? '-' : '+';
        for (auto line : *side) {
            if (out.size() < kMaxLineDiff) {
                out.push_back(std::string(1, sign) + " " + std::string(line));
            }
        }
    }
    return out;
}

bool cleanParse(const io::GraphCodeResult& r)
{
    return r.graph && r.unparsedLines == 0 && r.graph->size() > 0;
}

// One graph's nodes against the other's, matched by name. A side may be null (a body only the
// other side has: all its nodes are added or removed). `at` says where changes sit.
struct Place {
    std::string body;
    graph::NodeId callA = graph::kNoNode; // body changes point at the HOP node that runs it
    graph::NodeId callB = graph::kNoNode;
};

void diffNodes(const Graph* a, const Graph* b, const Place& at, GraphDiff& diff)
{
    const auto locate = [&](NodeChange& ch) {
        ch.body = at.body;
        if (!at.body.empty()) {
            ch.idA = ch.change == NodeChangeKind::Added ? graph::kNoNode : at.callA;
            ch.idB = ch.change == NodeChangeKind::Removed ? graph::kNoNode : at.callB;
        }
        diff.nodes.push_back(std::move(ch));
    };
    static const std::vector<Node> kNone;
    const std::vector<Node>& nodesA = a != nullptr ? a->nodes() : kNone;
    const std::vector<Node>& nodesB = b != nullptr ? b->nodes() : kNone;
    std::vector<char> seenA(nodesA.size(), 0);
    for (const Node& nb : nodesB) {
        NodeChange ch;
        ch.name = nb.name;
        describeSide(*b, nb, false, ch);
        const auto ia = a != nullptr ? a->find(nb.name) : std::nullopt;
        if (!ia) {
            ch.change = NodeChangeKind::Added;
            locate(ch);
            continue;
        }
        seenA[*ia] = 1;
        describeSide(*a, a->node(*ia), true, ch);
        compareFields(ch);
        if (ch.fields.empty()) {
            ++diff.unchanged;
        } else {
            locate(ch);
        }
    }
    for (const Node& na : nodesA) {
        if (!seenA[na.id]) {
            NodeChange ch;
            ch.change = NodeChangeKind::Removed;
            ch.name = na.name;
            describeSide(*a, na, true, ch);
            locate(ch);
        }
    }
}

// Bodies by path ("outer/inner") with the top-level HOP node that (transitively) runs each.
struct BodyAt {
    graph::GraphPtr graph;
    graph::NodeId call = graph::kNoNode;
};

std::vector<std::pair<std::string, BodyAt>> bodiesOf(const Graph& g)
{
    std::vector<std::pair<std::string, BodyAt>> out;
    std::map<std::string, std::pair<std::string, graph::NodeId>> where; // name -> (path, call)
    for (const auto& s : graph::listSubgraphs(g)) {
        std::string path = s.name;
        graph::NodeId call = s.callSites.empty() ? graph::kNoNode : s.callSites.front();
        if (const auto it = where.find(s.parent); !s.parent.empty() && it != where.end()) {
            path = it->second.first + "/" + s.name;
            call = it->second.second; // a nested body: the top-level node running its parent
        }
        where[s.name] = {path, call};
        out.emplace_back(path, BodyAt{s.graph, call});
    }
    return out;
}

void diffBodies(const Graph& a, const Graph& b, GraphDiff& diff)
{
    const auto bodiesA = bodiesOf(a);
    const auto bodiesB = bodiesOf(b);
    const auto findIn = [](const auto& list, const std::string& path) -> const BodyAt* {
        for (const auto& [p, body] : list) {
            if (p == path) {
                return &body;
            }
        }
        return nullptr;
    };
    for (const auto& [path, bodyB] : bodiesB) {
        const BodyAt* bodyA = findIn(bodiesA, path);
        diffNodes(bodyA != nullptr ? bodyA->graph.get() : nullptr, bodyB.graph.get(),
                  {path, bodyA != nullptr ? bodyA->call : graph::kNoNode, bodyB.call}, diff);
    }
    for (const auto& [path, bodyA] : bodiesA) {
        if (findIn(bodiesB, path) == nullptr) {
            diffNodes(bodyA.graph.get(), nullptr, {path, bodyA.call, graph::kNoNode}, diff);
        }
    }
}

} // namespace

std::string_view nodeChangeKindName(NodeChangeKind k)
{
    switch (k) {
    case NodeChangeKind::Changed: return "changed";
    case NodeChangeKind::Added: return "added";
    case NodeChangeKind::Removed: return "removed";
    }
    return "?";
}

std::size_t GraphDiff::count(NodeChangeKind k) const
{
    return static_cast<std::size_t>(
        std::count_if(nodes.begin(), nodes.end(), [k](const auto& n) { return n.change == k; }));
}

std::string GraphDiff::summary() const
{
    if (!parsed) {
        return lineDiff.empty() ? std::string("graph code identical")
                                : "graph code differs in " + std::to_string(lineDiff.size()) +
                                      (lineDiff.size() == 1 ? " line" : " lines");
    }
    if (nodes.empty()) {
        return "no node changed";
    }
    std::vector<std::string> parts;
    const std::size_t changed = count(NodeChangeKind::Changed);
    const std::size_t added = count(NodeChangeKind::Added);
    const std::size_t removed = count(NodeChangeKind::Removed);
    if (changed > 0) {
        parts.push_back(std::to_string(changed) + (changed == 1 ? " node changed" : " nodes changed"));
    }
    if (added > 0) {
        parts.push_back(std::to_string(added) + " added");
    }
    if (removed > 0) {
        parts.push_back(std::to_string(removed) + " removed");
    }
    return join(parts, ", ") + " (of " + std::to_string(nodesA) + " \u2192 " +
           std::to_string(nodesB) + " nodes)";
}

std::string GraphDiff::changeText(std::size_t maxNodes) const
{
    if (!parsed || nodes.empty() || nodes.size() > maxNodes) {
        return {};
    }
    // The output node follows the nodes it returns: named only when nothing else changed.
    const auto isOutput = [](const NodeChange& c) {
        return (c.opB.empty() ? c.opA : c.opB) == "output";
    };
    const bool onlyOutput = std::all_of(nodes.begin(), nodes.end(), isOutput);
    std::vector<std::string> parts;
    for (const NodeChange& c : nodes) {
        if (onlyOutput || !isOutput(c)) {
            parts.push_back(nodeChangeText(c));
        }
    }
    return join(parts, "; ");
}

GraphDiff diffGraphs(const graph::GraphPtr& a, const graph::GraphPtr& b)
{
    GraphDiff diff;
    if (!a || !b) {
        return diff;
    }
    diff.parsed = true;
    diff.graphA = a;
    diff.graphB = b;
    diff.nodesA = a->size();
    diff.nodesB = b->size();
    diffNodes(a.get(), b.get(), {}, diff);
    diffBodies(*a, *b, diff);
    return diff;
}

GraphDiff diffGraphCode(std::string_view a, std::string_view b)
{
    const auto ra = io::parseGraphCode(a, "A:gm", 1, false);
    const auto rb = io::parseGraphCode(b, "B:gm", 1, false);
    if (cleanParse(ra) && cleanParse(rb)) {
        return diffGraphs(ra.graph, rb.graph);
    }
    GraphDiff diff;
    diff.lineDiff = diffLines(a, b);
    diff.graphA = ra.graph;
    diff.graphB = rb.graph;
    diff.nodesA = ra.graph ? ra.graph->size() : 0;
    diff.nodesB = rb.graph ? rb.graph->size() : 0;
    return diff;
}

} // namespace fxs::explain
