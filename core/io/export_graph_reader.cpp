#include "core/io/export_graph_reader.h"

#include "core/graph/graph_builder.h"
#include "core/io/export_meta.h"
#include "core/io/graph_code_lowering.h"
#include "core/util/json_text.h"
#include "core/util/strings.h"

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

const Json* member(const Json& j, const char* key)
{
    if (!j.is_object()) {
        return nullptr;
    }
    const auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
}

std::string stringMember(const Json& j, const char* key)
{
    const Json* m = member(j, key);
    return m != nullptr && m->is_string() ? m->get<std::string>() : std::string();
}

namespace {

using graph::Argument;
using graph::NodeId;

// The only key of a serialized union ({"as_tensor": {...}}), or "".
std::string unionKind(const Json& j)
{
    return j.is_object() && j.size() == 1 ? j.begin().key() : std::string();
}

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
std::string singleOutputName(const Json& n, const Json& outputs)
{
    if (outputs.size() != 1) {
        return {};
    }
    const std::string kind = unionKind(outputs[0]);
    if (kind.empty()) {
        return {};
    }
    const Json& v = outputs[0].begin().value();
    if (kind == "as_tensor") {
        const Json* single = member(n, "is_hop_single_tensor_return");
        const bool hop = startsWith(stringMember(n, "target"), "torch.ops.higher_order.");
        if (hop && single != nullptr && single->is_boolean() && !single->get<bool>()) {
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

    graph::GraphPtr read(const Json& g, const std::vector<std::string>& inputNames)
    {
        readMetas(g);
        readInputs(g, inputNames);
        if (const Json* nodes = member(g, "nodes"); nodes != nullptr && nodes->is_array()) {
            for (const Json& n : *nodes) {
                readNode(n);
            }
        } else {
            problem("the graph has no node list", "\"nodes\": [...]", "none");
        }
        readOutputs(g);
        m_builder.setSource(m_ctx.where, 0);
        auto built = m_builder.build();
        if (!built.ok()) {
            problem(built.error().message);
            return nullptr;
        }
        return *built;
    }

private:
    void problem(std::string message, std::string expected = {}, std::string found = {})
    {
        const std::string in = m_depth == 0 ? std::string() : " (in body " + m_graphName + ")";
        m_ctx.problem(std::move(message) + in, std::move(expected), std::move(found));
    }

    void readMetas(const Json& g)
    {
        if (const Json* tv = member(g, "tensor_values"); tv != nullptr && tv->is_object()) {
            m_metas.reserve(tv->size());
            for (const auto& [name, meta] : tv->items()) {
                if (auto t = tensorMetaOf(meta, m_ctx.hints)) {
                    graph::ValueMeta& m = m_metas[name];
                    m.kind = graph::ValueMeta::Kind::Tensor;
                    m.tensor = std::move(*t);
                    m.text = m.tensor.toString();
                } else {
                    problem("tensor meta of '" + name + "' is not readable",
                            "dtype, sizes, strides, device", abbreviate(dumpJson(meta)));
                }
            }
        }
        for (const char* key : {"sym_int_values", "sym_bool_values", "sym_float_values"}) {
            if (const Json* sv = member(g, key); sv != nullptr && sv->is_object()) {
                for (const auto& [name, value] : sv->items()) {
                    graph::ValueMeta& m = m_metas[name];
                    m.kind = graph::ValueMeta::Kind::Sym;
                    m.text = "Sym(" + symValueText(value) + ")";
                }
            }
        }
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
        }
        const std::string name = n.name;
        const NodeId id = m_builder.add(std::move(n));
        m_names.emplace(name, id);
        return id;
    }

    void readInputs(const Json& g, const std::vector<std::string>& inputNames)
    {
        const Json* inputs = member(g, "inputs");
        if (inputs == nullptr || !inputs->is_array()) {
            problem("the graph has no input list", "\"inputs\": [...]", "none");
            return;
        }
        for (std::size_t i = 0; i < inputs->size(); ++i) {
            const Json& in = (*inputs)[i];
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
    }

    // The name a value-carrying argument defines or refers to: as_tensor.name,
    // as_sym_int.as_name, as_custom_obj.name, ...; "" for literals.
    static std::string valueName(const Json& arg)
    {
        const std::string kind = unionKind(arg);
        if (kind.empty()) {
            return {};
        }
        const Json& v = arg.begin().value();
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

    Argument argument(const Json& arg, const std::string& node);
    Argument listArgument(const std::string& kind, const Json& v, const std::string& node);
    Argument bodyArgument(const Json& v, const std::string& node);
    void readNode(const Json& n);
    void readOutputs(const Json& g);
    void addMultiOutputs(NodeId parent, const Json& outputs, const graph::Node& proto);

    graph::GraphBuilder m_builder;
    ExportReadContext& m_ctx;
    int m_depth;
    std::string m_graphName;
    std::unordered_map<std::string, NodeId> m_names;
    std::unordered_map<std::string, std::uint64_t> m_nextSuffix; // uniqueName's, per base name
    std::unordered_map<std::string, graph::ValueMeta> m_metas;
    std::set<std::string> m_bodies; // submodules registered so far
};

Argument GraphReader::bodyArgument(const Json& v, const std::string& node)
{
    std::string body = stringMember(v, "name");
    const Json* g = member(v, "graph");
    if (body.empty() || g == nullptr) {
        problem("node '" + node + "' has a graph argument without name or graph",
                "{\"name\": ..., \"graph\": {...}}", abbreviate(dumpJson(v)));
        return Argument::none();
    }
    if (m_depth + 1 > kMaxBodyDepth) {
        problem("higher-order bodies nested deeper than " + std::to_string(kMaxBodyDepth) +
                " are not read", {}, body);
    } else if (m_bodies.insert(body).second) {
        if (auto sub = readExportGraph(*g, body, {}, m_ctx, m_depth + 1)) {
            m_builder.addSubmodule(std::move(sub));
        }
    }
    graph::Node attr; // `body = self.body`, as PyTorch's deserializer makes it
    attr.op = graph::OpKind::GetAttr;
    attr.name = body;
    attr.target = body;
    return Argument::ref(add(std::move(attr)));
}

Argument GraphReader::listArgument(const std::string& kind, const Json& v,
                                   const std::string& node)
{
    std::vector<Argument> items;
    for (const Json& item : v) {
        if (kind == "as_tensors") {
            items.push_back(refTo(stringMember(item, "name"), node));
        } else if (kind == "as_ints" && item.is_number_integer()) {
            items.push_back(Argument::integer(item.get<std::int64_t>()));
        } else if (kind == "as_floats" && item.is_number()) {
            items.push_back(Argument::real(item.get<double>()));
        } else if (kind == "as_bools" && item.is_boolean()) {
            items.push_back(Argument::boolean(item.get<bool>()));
        } else if (kind == "as_strings" && item.is_string()) {
            items.push_back(Argument::string(item.get<std::string>()));
        } else if (kind == "as_int_lists" || kind == "as_nested_tensors") {
            items.push_back(listArgument(kind == "as_int_lists" ? "as_ints" : "as_tensors", item,
                                         node));
        } else if (item.is_object()) { // as_sym_ints, as_optional_tensors, ...: unions
            items.push_back(argument(item, node));
        } else {
            problem("node '" + node + "' has a malformed " + kind + " item", kind + " items",
                    abbreviate(dumpJson(item)));
            items.push_back(Argument::expr(dumpJson(item)));
        }
    }
    return Argument::list(std::move(items));
}

Argument GraphReader::argument(const Json& arg, const std::string& node)
{
    const std::string kind = unionKind(arg);
    if (kind.empty()) {
        problem("node '" + node + "' has an argument that is not a one-key union",
                "{\"as_<kind>\": value}", abbreviate(dumpJson(arg)));
        return Argument::expr(dumpJson(arg));
    }
    const Json& v = arg.begin().value();
    if (kind == "as_none") {
        return Argument::none();
    }
    if (kind == "as_tensor") {
        return refTo(stringMember(v, "name"), node);
    }
    if (kind == "as_name" && v.is_string()) { // inside as_sym_int and friends
        return refTo(v.get<std::string>(), node);
    }
    if (kind == "as_int" && v.is_number_integer()) {
        return Argument::integer(v.get<std::int64_t>());
    }
    if (kind == "as_float" && (v.is_number() || v.is_string())) {
        return Argument::real(floatOf(v));
    }
    if (kind == "as_bool" && v.is_boolean()) {
        return Argument::boolean(v.get<bool>());
    }
    if (kind == "as_string" && v.is_string()) {
        return Argument::string(v.get<std::string>());
    }
    if ((kind == "as_sym_int" || kind == "as_sym_bool" || kind == "as_sym_float" ||
         kind == "as_optional_tensor") && v.is_object()) {
        return argument(v, node);
    }
    if (kind == "as_custom_obj") {
        const std::string name = stringMember(v, "name");
        return m_names.count(name) != 0 ? refTo(name, node) : Argument::expr(name);
    }
    if (kind == "as_graph") {
        return bodyArgument(v, node);
    }
    if (kind == "as_string_to_argument" && v.is_object()) { // kept as (key, value) pairs
        std::vector<Argument> pairs;
        for (const auto& [key, value] : v.items()) {
            pairs.push_back(Argument::tuple({Argument::string(key), argument(value, node)}));
        }
        return Argument::list(std::move(pairs));
    }
    if (v.is_array()) {
        return listArgument(kind, v, node);
    }
    if (auto constant = constantArgument(kind, v)) {
        return *constant;
    }
    problem("node '" + node + "' has an argument of unsupported kind '" + kind + "'",
            "one of the schema's Argument kinds", abbreviate(dumpJson(arg)));
    return Argument::expr("<" + kind + ">");
}

void GraphReader::readNode(const Json& n)
{
    graph::Node node;
    node.op = graph::OpKind::CallFunction;
    const std::string serialized = stringMember(n, "target");
    node.target = irTarget(serialized);
    node.name = stringMember(n, "name");
    const Json* outputs = member(n, "outputs");
    const bool hasOutputs = outputs != nullptr && outputs->is_array() && !outputs->empty();
    const std::string single = hasOutputs ? singleOutputName(n, *outputs) : std::string();
    if (!single.empty()) {
        node.name = single; // a one-value node is named after its value
    }
    if (node.name.empty()) {
        node.name = std::string(graph::opBaseName(node.target));
    }
    if (serialized.empty()) {
        problem("a node has no target", "\"target\": \"torch.ops.<ns>.<op>.<overload>\"",
                abbreviate(dumpJson(n)));
    }
    applyMetadata(member(n, "metadata"), node);
    if (const Json* inputs = member(n, "inputs"); inputs != nullptr && inputs->is_array()) {
        const bool hop = startsWith(node.target, "higher_order.");
        for (const Json& in : *inputs) {
            Argument a = argument(member(in, "arg") != nullptr ? *member(in, "arg") : Json(),
                                  node.name);
            const std::string key = stringMember(in, "name");
            const Json* kind = member(in, "kind");
            const bool keyword = kind != nullptr && kind->is_number_integer()
                                     ? kind->get<int>() == 2
                                     : (hop ? !key.empty() : false);
            if (keyword) {
                node.kwargs.emplace_back(key, std::move(a));
            } else {
                node.args.push_back(std::move(a));
            }
        }
    }
    const graph::Node proto = node; // getitems share the producer's source and modules
    const NodeId id = add(std::move(node));
    if (hasOutputs && single.empty()) {
        addMultiOutputs(id, *outputs, proto);
    }
}

void GraphReader::addMultiOutputs(NodeId parent, const Json& outputs, const graph::Node& proto)
{
    const Json* list = &outputs;
    const bool tensorList = outputs.size() == 1 && unionKind(outputs[0]) == "as_tensors";
    if (tensorList) { // a Tensor[] result: its items are plain {"name": ...}
        list = &outputs[0].begin().value();
    }
    int index = 0;
    for (const Json& out : *list) {
        const std::string kind = tensorList ? std::string("as_tensor") : unionKind(out);
        const std::string name = tensorList ? stringMember(out, "name") : valueName(out);
        if (kind == "as_none" || (name.empty() && kind != "as_tensors")) {
            ++index; // a None result: nothing to unpack
            continue;
        }
        graph::Node item;
        item.name = name.empty() ? std::string("getitem") : name;
        item.target = "operator.getitem";
        item.args = {Argument::ref(parent), Argument::integer(index++)};
        item.source = proto.source;
        item.moduleStack = proto.moduleStack;
        const NodeId id = add(std::move(item));
        if (kind == "as_tensors") { // a list result inside a tuple: unpacked once more
            addMultiOutputs(id, Json::array({out}), proto);
        }
    }
}

void GraphReader::readOutputs(const Json& g)
{
    std::vector<Argument> returned;
    if (const Json* outputs = member(g, "outputs"); outputs != nullptr && outputs->is_array()) {
        for (const Json& out : *outputs) {
            returned.push_back(argument(out, "output"));
        }
    } else {
        problem("the graph has no output list", "\"outputs\": [...]", "none");
    }
    m_builder.output(std::move(returned));
}

} // namespace

graph::GraphPtr readExportGraph(const Json& graph, const std::string& name,
                                const std::vector<std::string>& inputNames,
                                ExportReadContext& ctx, int depth)
{
    if (!graph.is_object()) {
        ctx.problem("the graph of '" + name + "' is not an object", "a serialized Graph",
                    abbreviate(dumpJson(graph)));
        return nullptr;
    }
    return GraphReader(name, ctx, depth).read(graph, inputNames);
}

} // namespace fxs::io::detail
