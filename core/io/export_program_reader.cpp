#include "core/io/export_program_reader.h"

#include "core/io/export_graph_reader.h"
#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <array>
#include <exception>

namespace fxs::io {

using detail::Json;
using detail::member;
using detail::stringMember;

namespace {

std::optional<std::int64_t> intMember(const Json& j, const char* key)
{
    const Json* m = member(j, key);
    if (m == nullptr || !m->is_number_integer()) {
        return std::nullopt;
    }
    return m->get<std::int64_t>();
}

void readVersion(const Json& root, model::ExportedProgram& p, detail::ExportReadContext& ctx)
{
    const Json* v = member(root, "schema_version");
    const std::int64_t major = v != nullptr ? intMember(*v, "major").value_or(-1) : -1;
    const std::int64_t minor = v != nullptr ? intMember(*v, "minor").value_or(-1) : -1;
    const std::string expected = "schema version " + std::to_string(kExportSchemaMajor) +
                                 ".x (PyTorch 2.6–2.11)";
    if (major < 0 || minor < 0) {
        ctx.problem("the program has no schema version", expected,
                    v != nullptr ? abbreviate(dumpJson(*v)) : "none");
        return;
    }
    p.schemaMajor = static_cast<int>(major);
    p.schemaMinor = static_cast<int>(minor);
    const std::string found = std::to_string(major) + "." + std::to_string(minor);
    if (major != kExportSchemaMajor) {
        ctx.problem("unsupported export schema version " + found +
                        "; what could be read is kept",
                    expected, found);
    } else if (minor > kExportSchemaNewestMinor) {
        ctx.diagnostics.warning(ctx.where, 0,
                                "export schema " + found + " is newer than " +
                                    std::to_string(kExportSchemaMajor) + "." +
                                    std::to_string(kExportSchemaNewestMinor) +
                                    ": fields fxscope does not know are ignored");
    }
}

void readRanges(const Json& root, model::ExportedProgram& p)
{
    const Json* ranges = member(root, "range_constraints");
    if (ranges == nullptr || !ranges->is_object()) {
        return;
    }
    for (const auto& [symbol, r] : ranges->items()) {
        p.ranges.push_back({symbol, intMember(r, "min_val"), intMember(r, "max_val")});
    }
}

struct SpecKind {
    const char* key;      // the union member
    const char* target;   // the member naming the state-dict entry ("" when none)
    int kind;             // ExportInputKind / ExportOutputKind
};

constexpr std::array<SpecKind, 7> kInputKinds{{
    {"user_input", "", int(model::ExportInputKind::UserInput)},
    {"parameter", "parameter_name", int(model::ExportInputKind::Parameter)},
    {"buffer", "buffer_name", int(model::ExportInputKind::Buffer)},
    {"tensor_constant", "tensor_constant_name", int(model::ExportInputKind::TensorConstant)},
    {"custom_obj", "custom_obj_name", int(model::ExportInputKind::CustomObj)},
    {"token", "", int(model::ExportInputKind::Token)},
    {"constant_input", "", int(model::ExportInputKind::ConstantInput)},
}};

constexpr std::array<SpecKind, 8> kOutputKinds{{
    {"user_output", "", int(model::ExportOutputKind::UserOutput)},
    {"loss_output", "", int(model::ExportOutputKind::LossOutput)},
    {"buffer_mutation", "buffer_name", int(model::ExportOutputKind::BufferMutation)},
    {"gradient_to_parameter", "parameter_name",
     int(model::ExportOutputKind::GradientToParameter)},
    {"gradient_to_user_input", "user_input_name",
     int(model::ExportOutputKind::GradientToUserInput)},
    {"user_input_mutation", "user_input_name", int(model::ExportOutputKind::UserInputMutation)},
    {"token", "", int(model::ExportOutputKind::Token)},
    {"parameter_mutation", "parameter_name", int(model::ExportOutputKind::ParameterMutation)},
}};

// The name a spec's `arg` carries: {"name"} (TensorArgument) or a one-key union of one.
std::string specArgName(const Json& spec)
{
    const Json* arg = member(spec, "arg");
    if (arg == nullptr) {
        return stringMember(spec, "name"); // constant_input
    }
    if (std::string n = stringMember(*arg, "name"); !n.empty()) {
        return n;
    }
    if (arg->is_object() && arg->size() == 1) {
        const Json& v = arg->begin().value();
        return v.is_object() ? (stringMember(v, "name").empty() ? stringMember(v, "as_name")
                                                                : stringMember(v, "name"))
                             : std::string();
    }
    return {};
}

template <std::size_t N>
const SpecKind* specKind(const Json& spec, const std::array<SpecKind, N>& kinds)
{
    if (!spec.is_object() || spec.size() != 1) {
        return nullptr;
    }
    for (const auto& k : kinds) {
        if (spec.begin().key() == k.key) {
            return &k;
        }
    }
    return nullptr;
}

void readSignature(const Json& gm, model::ExportedProgram& p, detail::ExportReadContext& ctx)
{
    const Json* sig = member(gm, "signature");
    const Json* inputs = sig != nullptr ? member(*sig, "input_specs") : nullptr;
    const Json* outputs = sig != nullptr ? member(*sig, "output_specs") : nullptr;
    if (inputs == nullptr || outputs == nullptr || !inputs->is_array() || !outputs->is_array()) {
        ctx.problem("the program has no graph signature", "input_specs and output_specs",
                    sig != nullptr ? abbreviate(dumpJson(*sig)) : "none");
        return;
    }
    for (const Json& spec : *inputs) {
        const SpecKind* k = specKind(spec, kInputKinds);
        if (k == nullptr) {
            ctx.problem("unsupported input spec", "one of user_input, parameter, buffer, ...",
                        abbreviate(dumpJson(spec)));
            continue;
        }
        const Json& body = spec.begin().value();
        model::ExportInputSpec in;
        in.kind = static_cast<model::ExportInputKind>(k->kind);
        in.name = specArgName(body);
        in.target = *k->target != '\0' ? stringMember(body, k->target) : std::string();
        if (const Json* persistent = member(body, "persistent"); persistent != nullptr &&
                                                                 persistent->is_boolean()) {
            in.persistent = persistent->get<bool>();
        }
        if (const Json* value = member(body, "value"); value != nullptr) {
            in.value = dumpJson(*value);
        }
        p.inputs.push_back(std::move(in));
    }
    for (const Json& spec : *outputs) {
        const SpecKind* k = specKind(spec, kOutputKinds);
        if (k == nullptr) {
            ctx.problem("unsupported output spec", "one of user_output, buffer_mutation, ...",
                        abbreviate(dumpJson(spec)));
            continue;
        }
        const Json& body = spec.begin().value();
        p.outputs.push_back({static_cast<model::ExportOutputKind>(k->kind), specArgName(body),
                             *k->target != '\0' ? stringMember(body, k->target) : std::string()});
    }
}

// Placeholders the signature does not describe, or the other way round.
void checkSignature(const graph::Graph& g, const model::ExportedProgram& p,
                    detail::ExportReadContext& ctx)
{
    if (p.inputs.empty() && p.outputs.empty()) {
        return;
    }
    const auto& ph = g.placeholders();
    if (ph.size() != p.inputs.size()) {
        ctx.problem("the signature describes " + std::to_string(p.inputs.size()) +
                        " inputs, the graph has " + std::to_string(ph.size()) + " placeholders",
                    "one input spec per placeholder", std::to_string(p.inputs.size()));
        return;
    }
    for (std::size_t i = 0; i < ph.size(); ++i) {
        const std::string& name = g.node(ph[i]).name;
        if (!p.inputs[i].name.empty() && p.inputs[i].name != name) {
            ctx.problem("input spec " + std::to_string(i) + " names '" + p.inputs[i].name +
                            "', the placeholder is '" + name + "'",
                        name, p.inputs[i].name);
        }
    }
}

void readProgram(const Json& root, ExportJsonResult& out, detail::ExportReadContext& ctx)
{
    model::ExportedProgram& p = out.program;
    readVersion(root, p, ctx);
    p.torchVersion = stringMember(root, "torch_version");
    if (const Json* v = member(root, "verifiers"); v != nullptr && v->is_array()) {
        for (const Json& name : *v) {
            if (name.is_string()) {
                p.verifiers.push_back(name.get<std::string>());
            }
        }
    }
    readRanges(root, p);
    const Json* gm = member(root, "graph_module");
    const Json* graph = gm != nullptr ? member(*gm, "graph") : nullptr;
    if (graph == nullptr) {
        ctx.problem("the program has no graph", "graph_module.graph", "none");
        return;
    }
    readSignature(*gm, p, ctx);
    std::vector<std::string> names;
    for (const auto& in : p.inputs) {
        names.push_back(in.name);
    }
    out.graph = detail::readExportGraph(*graph, "GraphModule", names, ctx);
    if (out.graph) {
        checkSignature(*out.graph, p, ctx);
    }
    p.symbolHints = ctx.hints;
}

} // namespace

ExportJsonResult readExportedProgramJson(std::string_view json, const std::string& where)
{
    ExportJsonResult out;
    detail::ExportReadContext ctx{out.diagnostics, where, {}, 0};
    try {
        const auto root = parseJson(json);
        if (!root.ok()) {
            ctx.problem(root.error().message, "a serialized ExportedProgram", root.error().found);
        } else if (!root->is_object()) {
            ctx.problem("the program is not a JSON object", "a serialized ExportedProgram",
                        abbreviate(json));
        } else {
            readProgram(*root, out, ctx);
        }
    } catch (const std::exception& e) {
        ctx.problem(std::string("malformed program: ") + e.what(), "a serialized ExportedProgram");
    }
    ctx.finish();
    return out;
}

} // namespace fxs::io
