#include "core/io/export_graph_reader.h"

#include "core/graph/graph_builder.h"
#include "core/io/export_meta.h"
#include "core/io/graph_code_lowering.h"
#include "core/util/json_text.h"
#include "core/util/strings.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace fxs::io::detail {

void ExportReadContext::problem(std::string message, std::string expected, std::string found)
{
    if (++problems <= kMaxProblems) {
        diagnostics.error(where, 0, std::move(message), std::move(expected), std::move(found));
    }
}

void ExportReadContext::finish()
{
    if (problems > kMaxProblems) {
        diagnostics.error(where, 0,
                          "and " + std::to_string(problems - kMaxProblems) + " more problems");
    }
}

namespace {

using graph::Argument;
using graph::NodeId;

// "torch.ops.aten.add.Tensor" -> "aten::add.Tensor"; "torch.ops.higher_order.cond" ->
// "higher_order.cond"; "_operator.getitem" -> "operator.getitem"; others unchanged.
std::string irTarget(const std::string& serialized)
{
    if (startsWith(serialized, "torch.ops.")) {
        std::string t = opsTarget(std::string_view(serialized).substr(10));
        return t.empty() ? serialized : t;
    }
    if (startsWith(serialized, "_operator.")) {
        return "operator." + serialized.substr(10);
    }
    return serialized;
}

// The name of a node's only value when the node is that value (PyTorch's deserializer names such
// nodes after it); "" when its result is unpacked by getitem nodes or it returns nothing.
std::string singleOutputName(const JsonValue& n, const JsonValue& outputs)
{
    if (outputs.size() != 1) {
        return {};
    }
    const std::string_view kind = outputs.front().unionKind();
    if (kind.empty()) {
        return {};
    }
    const JsonValue v = outputs.front().unionValue();
    if (kind == "as_tensor") {
        const JsonValue single = n["is_hop_single_tensor_return"];
        const bool hop = startsWith(n["target"].stringView(), "torch.ops.higher_order.");
        if (hop && single.isBool() && !single.toBool()) {
            return {}; // a HOP returning a one-element tuple
        }
        return stringMember(v, "name");
    }
    if (kind == "as_sym_int" || kind == "as_sym_bool" || kind == "as_sym_float") {
        return stringMember(v, "as_name");
    }
    return {};
}

class GraphReader {
public:
    GraphReader(const std::string& name, ExportReadContext& ctx, int depth)
        : m_builder(name), m_ctx(ctx), m_depth(depth), m_graphName(name)
    {
    }

    graph::GraphPtr read(const JsonValue& g, const std::vector<std::string>& inputNames)
    {
        g["tensor_values"].forEachMember(
            [&](std::string_view name, const JsonValue& meta) { readTensorMeta(name, meta); });
        for (const char* key : {"sym_int_values", "sym_bool_values", "sym_float_values"}) {
            readSymValues(g[key]);
        }
        readInputs(g["inputs"], inputNames);
        if (const JsonValue nodes = g["nodes"]; nodes.isArray()) {
            nodes.forEach([&](const JsonValue& n) { readNode(n); });
        } else {
            noNodes();
        }
        readOutputs(g["outputs"]);
        return build();
    }

    // The same, parsing one piece at a time into one parser (its buffers are reused).
    graph::GraphPtr read(const ExportGraphText& g, const std::vector<std::string>& inputNames,
                         std::string& pieceError);

private:
    void problem(std::string message, std::string expected = {}, std::string found = {})
    {
        const std::string in = m_depth == 0 ? std::string() : " (in body " + m_graphName + ")";
        m_ctx.problem(std::move(message) + in, std::move(expected), std::move(found));
    }

    graph::GraphPtr build()
    {
        // The graph indexes the names again: ours go first (a million of them is ~70 MB).
        m_names = {};
        m_nextSuffix = {};
        m_pendingByName = {};
        m_builder.setSource(m_ctx.where, 0);
        auto built = m_builder.build();
        if (!built.ok()) {
            problem(built.error().message);
            return nullptr;
        }
        return *built;
    }

    void noNodes() { problem("the graph has no node list", "\"nodes\": [...]", "none"); }

    void readTensorMeta(std::string_view name, const JsonValue& meta)
    {
        if (auto t = tensorMetaOf(meta, m_ctx.hints)) {
            graph::ValueMeta& m = m_metas[std::string(name)];
            m.kind = graph::ValueMeta::Kind::Tensor;
            m.tensor = std::move(*t);
            m.text = m.tensor.toString();
        } else {
            problem("tensor meta of '" + std::string(name) + "' is not readable",
                    "dtype, sizes, strides, device", abbreviate(meta.text()));
        }
    }

    void readSymValues(const JsonValue& values)
    {
        values.forEachMember([&](std::string_view name, const JsonValue& value) {
            graph::ValueMeta& m = m_metas[std::string(name)];
            m.kind = graph::ValueMeta::Kind::Sym;
            m.text = "Sym(" + symValueText(value) + ")";
        });
    }

    // wanted, else the first of wanted_1, wanted_2, ... not taken. Each base name keeps the
    // suffix it tried last: names are only ever added, so the ones below it stay taken, and n
    // nodes of one name cost n lookups, not n^2 / 2.
    std::string uniqueName(std::string wanted)
    {
        if (wanted.empty()) {
            wanted = "node";
        }
        if (m_names.count(wanted) == 0) {
            return wanted;
        }
        std::uint64_t& next = m_nextSuffix[wanted];
        std::string name;
        do {
            name = wanted + "_" + std::to_string(++next);
        } while (m_names.count(name) != 0);
        return name;
    }

    NodeId add(graph::Node n)
    {
        n.name = uniqueName(n.name);
        if (const auto it = m_metas.find(n.name); it != m_metas.end() && n.meta.kind ==
                                                       graph::ValueMeta::Kind::None) {
            n.meta = std::move(it->second); // names are unique: no other node asks for it
            m_metas.erase(it);
        } else if (n.meta.kind == graph::ValueMeta::Kind::None && m_pending != nullptr) {
            takePendingMeta(n);
        }
        const std::string name = n.name;
        const NodeId id = m_builder.add(std::move(n));
        m_names.emplace(name, id);
        return id;
    }

    void readInputs(const JsonValue& inputs, const std::vector<std::string>& inputNames)
    {
        if (!inputs.isArray()) {
            problem("the graph has no input list", "\"inputs\": [...]", "none");
            return;
        }
        std::size_t i = 0;
        inputs.forEach([&](const JsonValue& in) { readInput(in, i++, inputNames); });
    }

    void readInput(const JsonValue& in, std::size_t i, const std::vector<std::string>& inputNames)
    {
        std::string name = valueName(in);
        if (name.empty()) {
            name = i < inputNames.size() ? inputNames[i] : "arg" + std::to_string(i);
        }
        if (m_names.count(name) != 0) {
            problem("two graph inputs are named '" + name + "'");
        }
        graph::Node n;
        n.op = graph::OpKind::Placeholder;
        n.name = name;
        n.target = name;
        add(std::move(n));
    }

    // The name a value-carrying argument defines or refers to: as_tensor.name,
    // as_sym_int.as_name, as_custom_obj.name, ...; "" for literals.
    static std::string valueName(const JsonValue& arg)
    {
        const JsonValue v = arg.unionValue();
        if (const std::string n = stringMember(v, "name"); !n.empty()) {
            return n;
        }
        return stringMember(v, "as_name");
    }

    Argument refTo(const std::string& name, const std::string& node)
    {
        if (const auto it = m_names.find(name); it != m_names.end()) {
            return Argument::ref(it->second);
        }
        problem("node '" + node + "' uses '" + name + "', which no earlier node defines",
                "a graph input or an earlier node's output", name);
        return Argument::expr(name);
    }

    Argument argument(const JsonValue& arg, const std::string& node);
    Argument listArgument(std::string_view kind, const JsonValue& v, const std::string& node);
    Argument bodyArgument(const JsonValue& v, const std::string& node);
    void readNode(const JsonValue& n);
    void readOutputs(const JsonValue& outputs);
    void addMultiOutputs(NodeId parent, const JsonValue& outputs, const graph::Node& proto);
    void addItems(NodeId parent, const JsonValue& list, bool tensorList, const graph::Node& proto);

    graph::GraphBuilder m_builder;
    ExportReadContext& m_ctx;
    int m_depth;
    std::string m_graphName;
    std::unordered_map<std::string, NodeId> m_names;
    std::unordered_map<std::string, std::uint64_t> m_nextSuffix; // uniqueName's, per base name
    std::unordered_map<std::string, graph::ValueMeta> m_metas;
    // The piecewise read's tensor metas, parsed when their node is added (a million ValueMetas
    // are not held twice): indices into m_pending sorted by name, and which were taken.
    const ExportGraphText* m_pending = nullptr;
    std::vector<std::uint32_t> m_pendingByName;
    std::vector<bool> m_pendingTaken;
    std::size_t m_pendingNext = 0; // the meta after the one taken last
    simdjson::dom::parser m_metaParser; // not the node's: its DOM is in use while a node is added
    std::string m_pieceError;

    void indexPendingMetas(const ExportGraphText& g);
    void takePendingMeta(graph::Node& n);
    void readPendingMeta(std::size_t i, graph::Node* into);
    std::set<std::string> m_bodies; // submodules registered so far
};

Argument GraphReader::bodyArgument(const JsonValue& v, const std::string& node)
{
    std::string body = stringMember(v, "name");
    const JsonValue g = v["graph"];
    if (body.empty() || !g.present()) {
        problem("node '" + node + "' has a graph argument without name or graph",
                "{\"name\": ..., \"graph\": {...}}", abbreviate(v.text()));
        return Argument::none();
    }
    if (m_depth + 1 > kMaxBodyDepth) {
        problem("higher-order bodies nested deeper than " + std::to_string(kMaxBodyDepth) +
                " are not read", {}, body);
    } else if (m_bodies.insert(body).second) {
        if (auto sub = readExportGraph(g, body, {}, m_ctx, m_depth + 1)) {
            m_builder.addSubmodule(std::move(sub));
        }
    }
    graph::Node attr; // `body = self.body`, as PyTorch's deserializer makes it
    attr.op = graph::OpKind::GetAttr;
    attr.name = body;
    attr.target = body;
    return Argument::ref(add(std::move(attr)));
}

Argument GraphReader::listArgument(std::string_view kind, const JsonValue& v,
                                   const std::string& node)
{
    std::vector<Argument> items;
    items.reserve(v.size());
    v.forEach([&](const JsonValue& item) {
        if (kind == "as_tensors") {
            items.push_back(refTo(stringMember(item, "name"), node));
        } else if (kind == "as_ints" && item.isInteger()) {
            items.push_back(Argument::integer(item.toInt()));
        } else if (kind == "as_floats" && item.isNumber()) {
            items.push_back(Argument::real(item.toDouble()));
        } else if (kind == "as_bools" && item.isBool()) {
            items.push_back(Argument::boolean(item.toBool()));
        } else if (kind == "as_strings" && item.isString()) {
            items.push_back(Argument::string(item.str()));
        } else if (kind == "as_int_lists" || kind == "as_nested_tensors") {
            items.push_back(listArgument(kind == "as_int_lists" ? "as_ints" : "as_tensors", item,
                                         node));
        } else if (item.isObject()) { // as_sym_ints, as_optional_tensors, ...: unions
            items.push_back(argument(item, node));
        } else {
            problem("node '" + node + "' has a malformed " + std::string(kind) + " item",
                    std::string(kind) + " items", abbreviate(item.text()));
            items.push_back(Argument::expr(item.text()));
        }
    });
    return Argument::list(std::move(items));
}

Argument GraphReader::argument(const JsonValue& arg, const std::string& node)
{
    const std::string_view kind = arg.unionKind();
    if (kind.empty()) {
        problem("node '" + node + "' has an argument that is not a one-key union",
                "{\"as_<kind>\": value}", abbreviate(arg.text()));
        return Argument::expr(arg.text());
    }
    const JsonValue v = arg.unionValue();
    if (kind == "as_none") {
        return Argument::none();
    }
    if (kind == "as_tensor") {
        return refTo(stringMember(v, "name"), node);
    }
    if (kind == "as_name" && v.isString()) { // inside as_sym_int and friends
        return refTo(v.str(), node);
    }
    if (kind == "as_int" && v.isInteger()) {
        return Argument::integer(v.toInt());
    }
    if (kind == "as_float" && (v.isNumber() || v.isString())) {
        return Argument::real(floatOf(v));
    }
    if (kind == "as_bool" && v.isBool()) {
        return Argument::boolean(v.toBool());
    }
    if (kind == "as_string" && v.isString()) {
        return Argument::string(v.str());
    }
    if ((kind == "as_sym_int" || kind == "as_sym_bool" || kind == "as_sym_float" ||
         kind == "as_optional_tensor") && v.isObject()) {
        return argument(v, node);
    }
    if (kind == "as_custom_obj") {
        const std::string name = stringMember(v, "name");
        return m_names.count(name) != 0 ? refTo(name, node) : Argument::expr(name);
    }
    if (kind == "as_graph") {
        return bodyArgument(v, node);
    }
    if (kind == "as_string_to_argument" && v.isObject()) { // kept as (key, value) pairs
        std::vector<std::pair<std::string, Argument>> byKey;
        v.forEachMember([&](std::string_view key, const JsonValue& value) {
            byKey.emplace_back(std::string(key), argument(value, node));
        });
        std::stable_sort(byKey.begin(), byKey.end(), // by key, as before (a sorted JSON DOM)
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<Argument> pairs;
        for (auto& [key, value] : byKey) {
            pairs.push_back(Argument::tuple({Argument::string(key), std::move(value)}));
        }
        return Argument::list(std::move(pairs));
    }
    if (v.isArray()) {
        return listArgument(kind, v, node);
    }
    if (auto constant = constantArgument(kind, v)) {
        return *constant;
    }
    problem("node '" + node + "' has an argument of unsupported kind '" + std::string(kind) +
                "'",
            "one of the schema's Argument kinds", abbreviate(arg.text()));
    return Argument::expr("<" + std::string(kind) + ">");
}

void GraphReader::readNode(const JsonValue& n)
{
    graph::Node node;
    node.op = graph::OpKind::CallFunction;
    const std::string serialized = stringMember(n, "target");
    node.target = irTarget(serialized);
    node.name = stringMember(n, "name");
    const JsonValue outputs = n["outputs"];
    const bool hasOutputs = outputs.isArray() && !outputs.empty();
    const std::string single = hasOutputs ? singleOutputName(n, outputs) : std::string();
    if (!single.empty()) {
        node.name = single; // a one-value node is named after its value
    }
    if (node.name.empty()) {
        node.name = std::string(graph::opBaseName(node.target));
    }
    if (serialized.empty()) {
        problem("a node has no target", "\"target\": \"torch.ops.<ns>.<op>.<overload>\"",
                abbreviate(n.text()));
    }
    applyMetadata(n["metadata"], node);
    if (const JsonValue inputs = n["inputs"]; inputs.isArray()) {
        const bool hop = startsWith(node.target, "higher_order.");
        inputs.forEach([&](const JsonValue& in) {
            Argument a = argument(in["arg"], node.name);
            const std::string key = stringMember(in, "name");
            const JsonValue kind = in["kind"];
            const bool keyword = kind.isInteger() ? kind.toInt() == 2
                                                  : (hop ? !key.empty() : false);
            if (keyword) {
                node.kwargs.emplace_back(key, std::move(a));
            } else {
                node.args.push_back(std::move(a));
            }
        });
    }
    const bool multi = hasOutputs && single.empty();
    graph::Node proto; // getitems share the producer's source and modules
    if (multi) {
        proto.source = node.source;
        proto.moduleStack = node.moduleStack;
    }
    const NodeId id = add(std::move(node));
    if (multi) {
        addMultiOutputs(id, outputs, proto);
    }
}

void GraphReader::addMultiOutputs(NodeId parent, const JsonValue& outputs,
                                  const graph::Node& proto)
{
    const bool tensorList = outputs.size() == 1 && outputs.front().unionKind() == "as_tensors";
    // a Tensor[] result: its items are plain {"name": ...}
    addItems(parent, tensorList ? outputs.front().unionValue() : outputs, tensorList, proto);
}

void GraphReader::addItems(NodeId parent, const JsonValue& list, bool tensorList,
                           const graph::Node& proto)
{
    int index = 0;
    list.forEach([&](const JsonValue& out) {
        const std::string_view kind = tensorList ? std::string_view("as_tensor")
                                                 : out.unionKind();
        const std::string name = tensorList ? stringMember(out, "name") : valueName(out);
        if (kind == "as_none" || (name.empty() && kind != "as_tensors")) {
            ++index; // a None result: nothing to unpack
            return;
        }
        graph::Node item;
        item.name = name.empty() ? std::string("getitem") : name;
        item.target = "operator.getitem";
        item.args = {Argument::ref(parent), Argument::integer(index++)};
        item.source = proto.source;
        item.moduleStack = proto.moduleStack;
        const NodeId id = add(std::move(item));
        if (kind == "as_tensors") { // a list result inside a tuple: unpacked once more
            addItems(id, out.unionValue(), true, proto);
        }
    });
}

void GraphReader::readOutputs(const JsonValue& outputs)
{
    std::vector<Argument> returned;
    if (outputs.isArray()) {
        outputs.forEach([&](const JsonValue& out) { returned.push_back(argument(out, "output")); });
    } else {
        problem("the graph has no output list", "\"outputs\": [...]", "none");
    }
    m_builder.output(std::move(returned));
}

graph::GraphPtr GraphReader::read(const ExportGraphText& g,
                                  const std::vector<std::string>& inputNames,
                                  std::string& pieceError)
{
    simdjson::dom::parser parser;
    // Each piece parsed into the one parser; false (and pieceError) when it is not JSON.
    const auto parse = [&](std::string_view text, auto&& use) {
        if (text.empty()) {
            use(JsonValue());
            return true;
        }
        ParsedJson p = parsePiece(parser, text, g.paddedAfter);
        if (!p.error.empty()) {
            pieceError = p.error;
            return false;
        }
        use(p.value);
        return true;
    };
    indexPendingMetas(g);
    for (const auto& [key, text] : g.symValues) {
        if (!parse(text, [&](const JsonValue& values) { readSymValues(values); })) {
            return nullptr;
        }
    }
    if (!parse(g.inputs, [&](const JsonValue& in) { readInputs(in, inputNames); })) {
        return nullptr;
    }
    if (!g.hasNodes) {
        noNodes();
    }
    m_names.reserve(g.nodes.size() + 1);
    m_builder.reserve(g.nodes.size() + 2); // + inputs' placeholders below, + output (a guess)
    for (const std::string_view text : g.nodes) {
        if (!parse(text, [&](const JsonValue& n) { readNode(n); })) {
            return nullptr;
        }
    }
    if (!parse(g.outputs, [&](const JsonValue& out) { readOutputs(out); })) {
        return nullptr;
    }
    for (std::size_t i = 0; i < m_pendingTaken.size(); ++i) {
        if (!m_pendingTaken[i]) { // metas no node took: their problems and size hints
            readPendingMeta(i, nullptr);
        }
    }
    if (!m_pieceError.empty()) {
        pieceError = m_pieceError;
        return nullptr;
    }
    return build();
}

void GraphReader::indexPendingMetas(const ExportGraphText& g)
{
    m_pending = &g;
    m_pendingByName.resize(g.tensorValues.size());
    for (std::size_t i = 0; i < m_pendingByName.size(); ++i) {
        m_pendingByName[i] = static_cast<std::uint32_t>(i);
    }
    // by name, the first of duplicate names first (a DOM kept one of them)
    std::stable_sort(m_pendingByName.begin(), m_pendingByName.end(),
                     [&](std::uint32_t a, std::uint32_t b) {
                         return g.tensorValues[a].first < g.tensorValues[b].first;
                     });
    m_pendingTaken.assign(g.tensorValues.size(), false);
}

void GraphReader::takePendingMeta(graph::Node& n)
{
    const auto& values = m_pending->tensorValues;
    // torch.export writes the metas in graph order: try the one after the last taken first
    if (m_pendingNext < values.size() && values[m_pendingNext].first == n.name &&
        !m_pendingTaken[m_pendingNext]) {
        readPendingMeta(m_pendingNext++, &n);
        return;
    }
    const auto it = std::lower_bound(
        m_pendingByName.begin(), m_pendingByName.end(), n.name,
        [&](std::uint32_t i, const std::string& name) { return values[i].first < name; });
    if (it != m_pendingByName.end() && values[*it].first == n.name && !m_pendingTaken[*it]) {
        m_pendingNext = *it + 1;
        readPendingMeta(*it, &n);
    }
}

void GraphReader::readPendingMeta(std::size_t i, graph::Node* into)
{
    m_pendingTaken[i] = true;
    const auto& [name, text] = m_pending->tensorValues[i];
    ParsedJson p = parsePiece(m_metaParser, text, m_pending->paddedAfter);
    if (!p.error.empty()) {
        m_pieceError = p.error;
        return;
    }
    if (auto t = tensorMetaOf(p.value, m_ctx.hints)) {
        graph::ValueMeta m;
        m.kind = graph::ValueMeta::Kind::Tensor;
        m.tensor = std::move(*t);
        m.text = m.tensor.toString();
        if (into != nullptr) {
            into->meta = std::move(m);
        }
    } else {
        problem("tensor meta of '" + name + "' is not readable", "dtype, sizes, strides, device",
                abbreviate(p.value.text()));
    }
}

} // namespace

graph::GraphPtr readExportGraph(const JsonValue& graph, const std::string& name,
                                const std::vector<std::string>& inputNames,
                                ExportReadContext& ctx, int depth)
{
    if (!graph.isObject()) {
        ctx.problem("the graph of '" + name + "' is not an object", "a serialized Graph",
                    abbreviate(graph.text()));
        return nullptr;
    }
    return GraphReader(name, ctx, depth).read(graph, inputNames);
}

graph::GraphPtr readExportGraphText(const ExportGraphText& graph, const std::string& name,
                                    const std::vector<std::string>& inputNames,
                                    ExportReadContext& ctx, std::string& pieceError)
{
    if (!graph.isObject) {
        ctx.problem("the graph of '" + name + "' is not an object", "a serialized Graph",
                    abbreviate(graph.whole));
        return nullptr;
    }
    return GraphReader(name, ctx, 0).read(graph, inputNames, pieceError);
}

} // namespace fxs::io::detail
