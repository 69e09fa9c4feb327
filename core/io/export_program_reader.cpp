#include "core/io/export_program_reader.h"

#include "core/io/export_graph_reader.h"
#include "core/io/export_program_text.h"
#include "core/util/json_parse.h"
#include "core/util/strings.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <exception>
#include <memory>

namespace fxs::io {

using detail::JsonValue;
using detail::member;
using detail::stringMember;

static_assert(kProgramJsonPadding >= simdjson::SIMDJSON_PADDING);

namespace {

std::optional<std::int64_t> intMember(const JsonValue& j, const char* key)
{
    const JsonValue m = j[key];
    if (!m.isInteger()) {
        return std::nullopt;
    }
    return m.toInt();
}

// Members of the root or of graph_module, each parsed into a DOM of its own (all of them, so
// that the whole text is checked to be JSON; they are small: the nodes are not among them).
class Members {
public:
    // False, with simdjson's message in error, when a member is not JSON after all.
    bool parse(const std::vector<std::pair<std::string, std::string_view>>& members,
               std::string& error)
    {
        for (const auto& [key, text] : members) {
            auto parser = std::make_unique<simdjson::dom::parser>();
            detail::ParsedJson p = detail::parsePiece(*parser, text, true);
            if (!p.error.empty()) {
                error = p.error;
                return false;
            }
            m_members.push_back({key, std::move(parser), p.value});
        }
        return true;
    }

    JsonValue operator[](std::string_view key) const
    {
        for (const auto& m : m_members) {
            if (m.key == key) {
                return m.value;
            }
        }
        return {};
    }

private:
    struct Member {
        std::string key;
        std::unique_ptr<simdjson::dom::parser> parser; // owns value's DOM
        JsonValue value;
    };
    std::vector<Member> m_members;
};

void readVersion(const JsonValue& v, model::ExportedProgram& p, detail::ExportReadContext& ctx)
{
    const std::int64_t major = intMember(v, "major").value_or(-1);
    const std::int64_t minor = intMember(v, "minor").value_or(-1);
    const std::string expected = "schema version " + std::to_string(kExportSchemaMajor) +
                                 ".x (PyTorch 2.6–2.11)";
    if (major < 0 || minor < 0) {
        ctx.problem("the program has no schema version", expected,
                    v.present() ? abbreviate(v.text()) : "none");
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

void readRanges(const JsonValue& ranges, model::ExportedProgram& p)
{
    ranges.forEachMember([&](std::string_view symbol, const JsonValue& r) {
        p.ranges.push_back({std::string(symbol), intMember(r, "min_val"), intMember(r, "max_val")});
    });
    // by symbol, as before (a sorted JSON DOM); the first of duplicate symbols first
    std::stable_sort(p.ranges.begin(), p.ranges.end(),
                     [](const auto& a, const auto& b) { return a.symbol < b.symbol; });
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
std::string specArgName(const JsonValue& spec)
{
    const JsonValue arg = spec["arg"];
    if (!arg.present()) {
        return stringMember(spec, "name"); // constant_input
    }
    if (std::string n = stringMember(arg, "name"); !n.empty()) {
        return n;
    }
    const JsonValue v = arg.unionValue();
    return stringMember(v, "name").empty() ? stringMember(v, "as_name") : stringMember(v, "name");
}

template <std::size_t N>
const SpecKind* specKind(const JsonValue& spec, const std::array<SpecKind, N>& kinds)
{
    const std::string_view key = spec.unionKind();
    for (const auto& k : kinds) {
        if (!key.empty() && key == k.key) {
            return &k;
        }
    }
    return nullptr;
}

void readInputSpec(const JsonValue& spec, model::ExportedProgram& p,
                   detail::ExportReadContext& ctx)
{
    const SpecKind* k = specKind(spec, kInputKinds);
    if (k == nullptr) {
        ctx.problem("unsupported input spec", "one of user_input, parameter, buffer, ...",
                    abbreviate(spec.text()));
        return;
    }
    const JsonValue body = spec.unionValue();
    model::ExportInputSpec in;
    in.kind = static_cast<model::ExportInputKind>(k->kind);
    in.name = specArgName(body);
    in.target = *k->target != '\0' ? stringMember(body, k->target) : std::string();
    if (const JsonValue persistent = body["persistent"]; persistent.isBool()) {
        in.persistent = persistent.toBool();
    }
    if (const JsonValue value = body["value"]; value.present()) {
        in.value = value.text();
    }
    p.inputs.push_back(std::move(in));
}

void readSignature(const JsonValue& sig, model::ExportedProgram& p,
                   detail::ExportReadContext& ctx)
{
    const JsonValue inputs = sig["input_specs"];
    const JsonValue outputs = sig["output_specs"];
    if (!inputs.isArray() || !outputs.isArray()) {
        ctx.problem("the program has no graph signature", "input_specs and output_specs",
                    sig.present() ? abbreviate(sig.text()) : "none");
        return;
    }
    inputs.forEach([&](const JsonValue& spec) { readInputSpec(spec, p, ctx); });
    outputs.forEach([&](const JsonValue& spec) {
        const SpecKind* k = specKind(spec, kOutputKinds);
        if (k == nullptr) {
            ctx.problem("unsupported output spec", "one of user_output, buffer_mutation, ...",
                        abbreviate(spec.text()));
            return;
        }
        const JsonValue body = spec.unionValue();
        p.outputs.push_back({static_cast<model::ExportOutputKind>(k->kind), specArgName(body),
                             *k->target != '\0' ? stringMember(body, k->target) : std::string()});
    });
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

// Reads the program from its pieces; false (pieceError set) when a piece is not JSON.
bool readProgram(const detail::ExportProgramText& text, ExportJsonResult& out,
                 detail::ExportReadContext& ctx, std::string& pieceError)
{
    Members root;
    Members gm;
    if (!root.parse(text.root, pieceError) || !gm.parse(text.graphModule, pieceError)) {
        return false;
    }
    model::ExportedProgram& p = out.program;
    readVersion(root["schema_version"], p, ctx);
    p.torchVersion = root["torch_version"].str();
    root["verifiers"].forEach([&](const JsonValue& name) {
        if (name.isString()) {
            p.verifiers.push_back(name.str());
        }
    });
    readRanges(root["range_constraints"], p);
    if (!text.hasGraph) {
        ctx.problem("the program has no graph", "graph_module.graph", "none");
        return true;
    }
    readSignature(gm["signature"], p, ctx);
    std::vector<std::string> names;
    for (const auto& in : p.inputs) {
        names.push_back(in.name);
    }
    out.graph = detail::readExportGraphText(text.graph, "GraphModule", names, ctx, pieceError);
    if (!pieceError.empty()) {
        return false;
    }
    if (out.graph) {
        checkSignature(*out.graph, p, ctx);
    }
    p.symbolHints = ctx.hints;
    return true;
}

// The text is not a serialized program's JSON object: say why, with where when nlohmann's
// validating parser finds it (simdjson, which cut the text, does not say where).
void reportUnreadable(std::string_view json, const std::string& simdjsonError,
                      detail::ExportReadContext& ctx)
{
    if (auto valid = validateJson(json); !valid.ok()) {
        ctx.problem(valid.error().message, "a serialized ExportedProgram", valid.error().found);
    } else if (!simdjsonError.empty()) {
        ctx.problem("not valid JSON", "a serialized ExportedProgram", simdjsonError);
    } else {
        ctx.problem("the program is not a JSON object", "a serialized ExportedProgram",
                    abbreviate(json));
    }
}

} // namespace

ExportJsonResult readPaddedProgramJson(std::string_view json, std::size_t capacity,
                                       const std::string& where)
{
    ExportJsonResult out;
    detail::ExportReadContext ctx{out.diagnostics, where, {}, 0};
    try {
        if (auto nesting = checkJsonNesting(json); !nesting.ok()) {
            ctx.problem(nesting.error().message, "a serialized ExportedProgram",
                        nesting.error().found);
            ctx.finish();
            return out;
        }
        auto split = detail::splitProgramText(json, capacity);
        std::string error = split.error;
        if (error.empty() && split.program.isObject &&
            readProgram(split.program, out, ctx, error)) {
            ctx.finish();
            return out;
        }
        // Not JSON after all (found by a piece): nothing of what was read is kept.
        ExportJsonResult failed;
        detail::ExportReadContext failedCtx{failed.diagnostics, where, {}, 0};
        reportUnreadable(json, error, failedCtx);
        failedCtx.finish();
        return failed;
    } catch (const std::exception& e) {
        ctx.problem(std::string("malformed program: ") + e.what(), "a serialized ExportedProgram");
    }
    ctx.finish();
    return out;
}

ExportJsonResult readExportedProgramJson(std::string_view json, const std::string& where)
{
    std::string padded;
    padded.reserve(json.size() + kProgramJsonPadding);
    padded.assign(json);
    return readPaddedProgramJson(padded, padded.capacity(), where);
}

} // namespace fxs::io
