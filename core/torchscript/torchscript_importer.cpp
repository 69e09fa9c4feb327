// TorchScript -> graph IR. Values of the TorchScript graph map to IR arguments: constants and
// list/tuple constructions fold into literal arguments, module attribute chains become
// get_attr nodes (target "fc1.weight"), operators become call_function nodes with their
// schema's overload ("aten::linear.default"), kwarg-only parameters as keyword arguments, and
// multi-output operators get getitem nodes.
#include "core/torchscript/torchscript_importer.h"

#include "core/exec/torch_bridge.h"
#include "core/exec/torch_save.h"
#include "core/graph/graph_builder.h"
#include "core/io/graph_file_loaders.h"
#include "core/torchscript/archive_check.h"
#include "core/torchscript/debug_info.h"
#include "core/util/file_reader.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/serialization/import.h>

#include <cstdio>
#include <new>
#include <sstream>
#include <set>
#include <unordered_map>

namespace fxs::torchscript {
namespace {

using graph::Argument;
namespace jit = torch::jit;

class Converter {
public:
    Converter(const jit::Module& module, std::string path, TorchScriptModule& out)
        : m_module(module), m_path(std::move(path)), m_out(out)
    {
    }

    Status run(jit::Graph& g);

private:
    std::string uniqueName(std::string base);
    std::optional<Argument> literal(const c10::IValue& v, const std::string& hint);
    Argument argOf(const jit::Value* v);
    void convertNode(const jit::Node* n);
    void indexLines(const std::string& text);
    void placeAt(graph::NodeId id, const jit::Node* n);
    void convertGetAttr(const jit::Node* n);
    void convertUnpack(const jit::Node* n);
    void convertOperator(const jit::Node* n);
    graph::NodeId getAttrNode(const std::string& path, const at::Tensor& value);

    const jit::Module& m_module;
    std::string m_path; // for diagnostics
    TorchScriptModule& m_out;
    graph::GraphBuilder m_builder;
    std::unordered_map<const jit::Value*, Argument> m_env;
    std::unordered_map<const jit::Value*, std::string> m_paths; // module-typed values
    std::unordered_map<const jit::Value*, c10::IValue> m_objects; // their module objects
    std::set<std::string> m_names;
    std::unordered_map<std::string, graph::NodeId> m_attrNodes;
    int m_constants = 0;
    // The inlined graph as printed (the code panel's text): line of each top-level value.
    std::string m_text;
    std::vector<std::string_view> m_textLines; // views into m_text
    std::unordered_map<std::string, int> m_lines; // debug name -> 1-based line
};

// TorchScript debug names carry a ".N" suffix to tell values apart ("x.1"); the IR keeps the
// Python name ("x") and makes names unique itself.
std::string sanitize(std::string debugName)
{
    const auto dot = debugName.rfind('.');
    if (dot != std::string::npos && dot + 1 < debugName.size() &&
        debugName.find_first_not_of("0123456789", dot + 1) == std::string::npos) {
        debugName.resize(dot);
    }
    std::string s;
    for (char c : debugName) {
        s += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    }
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) {
        s = "v" + s;
    }
    return s;
}

std::string Converter::uniqueName(std::string base)
{
    std::string name = base;
    for (int i = 1; m_names.count(name); ++i) {
        name = base + "_" + std::to_string(i);
    }
    m_names.insert(name);
    return name;
}

graph::NodeId Converter::getAttrNode(const std::string& path, const at::Tensor& value)
{
    if (auto it = m_attrNodes.find(path); it != m_attrNodes.end()) {
        return it->second;
    }
    graph::Node node;
    node.op = graph::OpKind::GetAttr;
    node.name = uniqueName(sanitize(path));
    node.target = path;
    node.meta.kind = graph::ValueMeta::Kind::Tensor;
    node.meta.tensor.dtype = exec::fromScalarType(value.scalar_type());
    for (auto s : value.sizes()) {
        node.meta.tensor.sizes.push_back(graph::SymInt::of(s));
    }
    node.meta.text = node.meta.tensor.toString();
    const auto id = m_builder.add(std::move(node));
    m_out.attributes->set(path, exec::makeHandle(value));
    m_attrNodes[path] = id;
    return id;
}

std::optional<Argument> Converter::literal(const c10::IValue& v, const std::string& hint)
{
    if (v.isNone()) {
        return Argument::none();
    }
    if (v.isBool()) {
        return Argument::boolean(v.toBool());
    }
    if (v.isInt()) {
        return Argument::integer(v.toInt());
    }
    if (v.isDouble()) {
        return Argument::real(v.toDouble());
    }
    if (v.isString()) {
        return Argument::string(v.toStringRef());
    }
    if (v.isDevice()) {
        auto d = graph::Device::parse(v.toDevice().str());
        return d ? std::optional(Argument::ofDevice(*d)) : std::nullopt;
    }
    if (v.isTensor()) {
        return Argument::ref(getAttrNode(hint, v.toTensor()));
    }
    if (v.isList() || v.isTuple()) {
        std::vector<Argument> items;
        const auto elems = v.isList() ? v.toList().vec() : v.toTupleRef().elements().vec();
        for (const auto& e : elems) {
            auto a = literal(e, hint + "_" + std::to_string(items.size()));
            if (!a) {
                return std::nullopt;
            }
            items.push_back(std::move(*a));
        }
        return v.isList() ? Argument::list(std::move(items)) : Argument::tuple(std::move(items));
    }
    return std::nullopt;
}

Argument Converter::argOf(const jit::Value* v)
{
    if (auto it = m_env.find(v); it != m_env.end()) {
        return it->second;
    }
    return Argument::expr("<unconverted " + v->debugName() + ">");
}

void Converter::convertGetAttr(const jit::Node* n)
{
    const auto* in = n->input(0);
    const std::string name = n->s(c10::Symbol::attr("name"));
    const std::string base = m_paths.count(in) ? m_paths[in] : "";
    const std::string path = base.empty() ? name : base + "." + name;
    const c10::IValue obj = m_objects[in].toObject()->getAttr(name);
    if (obj.isObject()) {
        m_paths[n->output()] = path;
        m_objects[n->output()] = obj;
    } else if (obj.isTensor()) {
        const auto id = getAttrNode(path, obj.toTensor());
        placeAt(id, n);
        m_env[n->output()] = Argument::ref(id);
    } else if (auto lit = literal(obj, path)) {
        m_env[n->output()] = *lit;
    }
}

void Converter::convertUnpack(const jit::Node* n)
{
    const Argument parent = argOf(n->input(0));
    for (std::size_t i = 0; i < n->outputs().size(); ++i) {
        if (parent.isSequence() && i < parent.items.size()) {
            m_env[n->output(i)] = parent.items[i];
        } else if (parent.isNode()) {
            const auto id = m_builder.getitem(uniqueName(sanitize(n->output(i)->debugName())),
                                              parent.node, static_cast<int>(i));
            m_env[n->output(i)] = Argument::ref(id);
        }
    }
}

void Converter::convertOperator(const jit::Node* n)
{
    const auto* schema = n->maybeSchema();
    std::string target = n->kind().toQualString();
    std::string overload = schema ? schema->overload_name() : "";
    target += "." + (overload.empty() ? std::string("default") : overload);
    std::vector<Argument> args;
    std::vector<std::pair<std::string, Argument>> kwargs;
    for (std::size_t i = 0; i < n->inputs().size(); ++i) {
        Argument a = argOf(n->input(i));
        if (schema && i < schema->arguments().size() && schema->arguments()[i].kwarg_only()) {
            kwargs.emplace_back(schema->arguments()[i].name(), std::move(a));
        } else {
            args.push_back(std::move(a));
        }
    }
    if (!schema) {
        m_out.diagnostics.warning(m_path, 0, "no schema for TorchScript node " + target +
                                             "; it will be reported as unsupported");
    }
    // Traced values are mostly unnamed ("%13"): name those after the operator, as FX does.
    const auto* first = n->output(0);
    const auto name = uniqueName(sanitize(first->hasDebugName() ? first->debugName()
                                                                : n->kind().toUnqualString()));
    const auto id = m_builder.call(name, target, std::move(args), std::move(kwargs));
    placeAt(id, n);
    if (n->outputs().size() == 1) {
        m_env[n->output(0)] = Argument::ref(id);
        return;
    }
    for (std::size_t i = 0; i < n->outputs().size(); ++i) {
        const auto gi = m_builder.getitem(uniqueName(name + "_" + std::to_string(i)), id,
                                          static_cast<int>(i));
        m_env[n->output(i)] = Argument::ref(gi);
    }
}

void Converter::convertNode(const jit::Node* n)
{
    const auto kind = n->kind();
    if (kind == c10::prim::Constant) {
        auto v = jit::toIValue(n->output());
        auto lit =
            v ? literal(*v, "_tensor_constant" + std::to_string(m_constants++)) : std::nullopt;
        m_env[n->output()] = lit ? *lit : Argument::expr("<constant>");
    } else if (kind == c10::prim::GetAttr) {
        convertGetAttr(n);
    } else if (kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct) {
        std::vector<Argument> items;
        for (const auto* in : n->inputs()) {
            items.push_back(argOf(in));
        }
        m_env[n->output()] = kind == c10::prim::ListConstruct ? Argument::list(std::move(items))
                                                              : Argument::tuple(std::move(items));
    } else if (kind == c10::prim::TupleUnpack || kind == c10::prim::ListUnpack) {
        convertUnpack(n);
    } else if (kind == c10::prim::If || kind == c10::prim::Loop) {
        // Scripted (not traced) modules keep Python control flow; guessing a branch would
        // show a graph the module does not run, so the node is reported and left out.
        m_out.diagnostics.error(m_path, 0,
                                "scripted control flow is not converted (trace the module with "
                                "torch.jit.trace instead of scripting it)",
                                "straight-line code of a traced module", kind.toQualString());
    } else {
        convertOperator(n);
    }
}

// Top-level nodes print as "  %name : Type = kind(...)" (block bodies are indented further).
void Converter::indexLines(const std::string& text)
{
    m_textLines.clear();
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto end = std::min(text.find('\n', pos), text.size());
        const std::string_view line(text.data() + pos, end - pos);
        m_textLines.push_back(line);
        if (line.rfind("  %", 0) == 0) {
            const auto stop = line.find_first_of(" :,", 3);
            m_lines.emplace(std::string(line.substr(3, stop - 3)),
                            static_cast<int>(m_textLines.size()));
        }
        pos = end + 1;
    }
}

// Points a node at the line that printed its TorchScript node (code panel, inspector).
void Converter::placeAt(graph::NodeId id, const jit::Node* n)
{
    auto& node = m_builder.node(id);
    const auto it = n->outputs().empty() ? m_lines.end() : m_lines.find(n->output(0)->debugName());
    if (node.line == 0 && it != m_lines.end()) {
        node.line = it->second;
        node.statement = std::string(m_textLines[static_cast<std::size_t>(it->second - 1)]);
    }
}

Status Converter::run(jit::Graph& g)
{
    m_text = g.toString(false);
    indexLines(m_text);
    const auto inputs = g.inputs();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto* in = inputs[i];
        if (i == 0 && in->type()->kind() == c10::TypeKind::ClassType) {
            m_paths[in] = "";
            m_objects[in] = m_module._ivalue();
            continue;
        }
        const auto name = uniqueName(sanitize(in->debugName()));
        m_env[in] = Argument::ref(m_builder.placeholder(name));
    }
    for (const auto* n : g.nodes()) {
        convertNode(n);
    }
    std::vector<Argument> returned;
    for (const auto* out : g.outputs()) {
        Argument a = argOf(out);
        if (a.kind == graph::ArgKind::Tuple) {
            for (auto& item : a.items) {
                returned.push_back(std::move(item));
            }
        } else {
            returned.push_back(std::move(a));
        }
    }
    m_builder.output(std::move(returned));
    m_builder.setSource(m_path, 1, m_text);
    auto built = m_builder.build();
    if (!built.ok()) {
        return built.error();
    }
    m_out.graph = *built;
    return {};
}

// LibTorch's messages run over many lines (with C++ frames); the first says what happened.
// They may quote bytes of a corrupt archive: anything outside printable ASCII is escaped, so
// the message stays valid UTF-8 for JSON outputs.
std::string firstLine(std::string_view text)
{
    std::string out;
    for (char c : text.substr(0, text.find('\n'))) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace

bool looksLikeTorchScript(const std::string& path)
{
    return io::looksLikeTorchScriptArchive(path);
}

namespace {

// What a module's tensors may take together: a `.pt2`'s weights cap (the module file itself is
// under the file cap; views of its storages may count a storage more than once).
constexpr std::uint64_t kMaxModuleTensorBytes = 16ull << 30;

Status checkModuleTensors(const jit::Module& module, const std::string& path)
{
    return exec::detail::checkLoadedTensors(c10::IValue(module._ivalue()), path,
                                            kMaxModuleTensorBytes);
}

Status checkConstantTensors(const jit::Graph& g, const std::string& path)
{
    c10::impl::GenericList constants(c10::TensorType::get());
    for (const jit::Node* n : g.nodes()) {
        if (n->kind() != jit::prim::Constant || n->outputs().size() != 1 ||
            !n->output()->type()->isSubtypeOf(*c10::TensorType::get())) {
            continue;
        }
        if (auto v = jit::toIValue(n->output()); v && v->isTensor()) {
            constants.push_back(*v);
        }
    }
    return exec::detail::checkLoadedTensors(c10::IValue(constants), path, kMaxModuleTensorBytes);
}

} // namespace

Result<TorchScriptModule> importTorchScript(const std::string& path)
{
    auto bytes = readFile(path); // gzip'd archives are inflated; special files refused
    if (!bytes.ok()) {
        return bytes.error();
    }
    return importTorchScriptBytes(std::move(*bytes), path);
}

Result<TorchScriptModule> importTorchScriptBytes(std::string bytes, const std::string& path)
{
    TorchScriptModule out;
    out.attributes = std::make_shared<exec::ValueStore>();
    try {
        // LibTorch crashes on deeply nested code and allocates what a pickle's length fields
        // declare, however short the entry: refuse such archives first.
        if (auto checked = checkArchive(bytes, path); !checked.ok()) {
            return checked.error();
        }
        hideDebugInfo(bytes); // LibTorch would read them only to word an error, unchecked
        std::istringstream in(std::move(bytes));
        jit::Module module = jit::load(in);
        // Before any tensor is used: every view of the module's attributes and of the code's
        // constants lies inside its storage (LibTorch 1.13 sets views without checking).
        if (auto views = checkModuleTensors(module, path); !views.ok()) {
            return views.error();
        }
        module.eval();
        auto g = module.get_method("forward").graph()->copy();
        jit::Inline(*g);
        if (auto views = checkConstantTensors(*g, path); !views.ok()) {
            return views.error();
        }
        Converter converter(module, path, out);
        if (auto s = converter.run(*g); !s.ok()) {
            return s.error();
        }
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::Runtime, "out of memory while loading the TorchScript module",
                         path);
    } catch (const c10::Error& e) {
        Error err = makeError(ErrorCode::Parse, "not a loadable TorchScript module", path);
        err.expected = "a module saved by torch.jit.trace(...).save()";
        err.found = abbreviate(firstLine(e.what_without_backtrace()), 160);
        return err;
    } catch (const std::exception& e) {
        Error err = makeError(ErrorCode::Parse, "not a loadable TorchScript module", path);
        err.expected = "a module saved by torch.jit.trace(...).save()";
        err.found = abbreviate(firstLine(e.what()), 160);
        return err;
    }
    return out;
}

} // namespace fxs::torchscript
