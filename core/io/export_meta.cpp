#include "core/io/export_meta.h"

#include "core/io/sympy_text.h"
#include "core/util/diagnostics.h"
#include "core/util/json_parse.h"
#include "core/util/json_text.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <array>
#include <limits>

namespace fxs::io::detail {

using Json = nlohmann::json;

namespace {

std::optional<std::int64_t> intOf(const JsonValue& j)
{
    if (!j.isInteger()) {
        return std::nullopt;
    }
    return j.toInt();
}

std::optional<graph::SymInt> symIntOf(const JsonValue& j,
                                      std::map<std::string, std::int64_t>& hints)
{
    if (const auto v = intOf(j["as_int"])) {
        return graph::SymInt::of(*v);
    }
    const JsonValue e = j["as_expr"];
    const JsonValue text = e["expr_str"];
    if (!text.isString()) {
        return std::nullopt;
    }
    std::string expr = sympyToInfix(text.str());
    if (const auto h = intOf(e["hint"]["as_int"]);
        h && !expr.empty() && expr.find_first_of(" *+-/()") == std::string::npos) {
        hints.emplace(expr, *h); // a bare symbol: its traced value
    }
    return graph::SymInt::symbol(std::move(expr));
}

std::optional<std::vector<graph::SymInt>> symIntsOf(const JsonValue& list,
                                                    std::map<std::string, std::int64_t>& hints)
{
    if (!list.isArray()) {
        return std::nullopt;
    }
    std::vector<graph::SymInt> out;
    out.reserve(list.size());
    bool ok = true;
    list.forEach([&](const JsonValue& item) {
        auto s = ok ? symIntOf(item, hints) : std::nullopt;
        if (!s) {
            ok = false;
            return;
        }
        out.push_back(std::move(*s));
    });
    if (!ok) {
        return std::nullopt;
    }
    return out;
}

std::optional<graph::Device> deviceOf(const JsonValue& j)
{
    const JsonValue type = j["type"];
    if (!type.isString()) {
        return std::nullopt;
    }
    graph::Device d;
    d.type = type.str();
    d.index = static_cast<int>(intOf(j["index"]).value_or(-1));
    return d;
}

// Python's repr of a JSON value, for annotation texts: 'text', 3, True, None, {...}.
std::string pythonRepr(const Json& v)
{
    if (v.is_string()) {
        return "'" + v.get<std::string>() + "'";
    }
    if (v.is_boolean()) {
        return v.get<bool>() ? "True" : "False";
    }
    if (v.is_null()) {
        return "None";
    }
    return dumpJson(v);
}

} // namespace

std::optional<graph::DType> dtypeOfScalarType(std::int64_t scalarType)
{
    using graph::DType;
    static constexpr std::array<std::pair<int, DType>, 17> kTypes{{
        {1, DType::UInt8}, {2, DType::Int8}, {3, DType::Int16}, {4, DType::Int32},
        {5, DType::Int64}, {6, DType::Float16}, {7, DType::Float32}, {8, DType::Float64},
        {9, DType::Complex32}, {10, DType::Complex64}, {11, DType::Complex128},
        {12, DType::Bool}, {13, DType::BFloat16}, {29, DType::Float8E4M3FN},
        {30, DType::Float8E5M2}, {31, DType::Float8E4M3FNUZ}, {32, DType::Float8E5M2FNUZ},
    }};
    for (const auto& [number, type] : kTypes) {
        if (number == scalarType) {
            return type;
        }
    }
    return std::nullopt;
}

std::optional<graph::TensorMeta> tensorMetaOf(const JsonValue& meta,
                                              std::map<std::string, std::int64_t>& hints)
{
    const auto dtype = intOf(meta["dtype"]);
    auto sizes = symIntsOf(meta["sizes"], hints);
    if (!dtype || !sizes) {
        return std::nullopt;
    }
    graph::TensorMeta t;
    t.dtype = dtypeOfScalarType(*dtype).value_or(graph::DType::Unknown);
    t.sizes = std::move(*sizes);
    t.strides = symIntsOf(meta["strides"], hints);
    if (const JsonValue device = meta["device"]; device.present()) {
        t.device = deviceOf(device);
    }
    return t;
}

std::string symValueText(const JsonValue& value)
{
    std::map<std::string, std::int64_t> ignored;
    if (const JsonValue b = value["as_bool"]; b.isBool()) {
        return b.toBool() ? "True" : "False";
    }
    if (const JsonValue f = value["as_float"]; f.isNumber()) {
        return formatDouble(f.toDouble());
    }
    const auto s = symIntOf(value, ignored);
    return s ? s->toString() : abbreviate(value.text());
}

double floatOf(const JsonValue& value)
{
    if (value.isNumber()) {
        return value.toDouble();
    }
    if (value.isString()) {
        const std::string s = value.str();
        if (s == "Infinity" || s == "inf") {
            return std::numeric_limits<double>::infinity();
        }
        if (s == "-Infinity" || s == "-inf") {
            return -std::numeric_limits<double>::infinity();
        }
        return parseDouble(s).value_or(std::numeric_limits<double>::quiet_NaN());
    }
    return std::numeric_limits<double>::quiet_NaN();
}

std::optional<graph::Argument> constantArgument(std::string_view kind, const JsonValue& value)
{
    using graph::Argument;
    static constexpr std::array<std::string_view, 8> kLayouts{
        "", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn",
        "strided"};
    static constexpr std::array<std::string_view, 5> kFormats{
        "", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"};
    const std::int64_t number = value.toInt(-1);
    if (kind == "as_scalar_type") {
        if (auto t = dtypeOfScalarType(number)) {
            return Argument::ofDtype(*t);
        }
    } else if (kind == "as_layout" && number > 0 && number < 8) {
        return Argument::layout(std::string(kLayouts[static_cast<std::size_t>(number)]));
    } else if (kind == "as_memory_format" && number > 0 && number < 5) {
        return Argument::memoryFormat(std::string(kFormats[static_cast<std::size_t>(number)]));
    } else if (kind == "as_device") {
        if (auto d = deviceOf(value)) {
            return Argument::ofDevice(*d);
        }
    } else if (kind == "as_complex" && value.isObject()) {
        const JsonValue re = value["real"];
        const JsonValue im = value["imag"];
        if (re.present() && im.present()) {
            return Argument::expr("complex(" + formatDouble(floatOf(re)) + ", " +
                                  formatDouble(floatOf(im)) + ")");
        }
    } else if (kind == "as_operator" && value.isString()) {
        return Argument::expr(value.str());
    }
    return std::nullopt;
}

std::vector<graph::ModuleFrame> parseModuleStack(std::string_view text)
{
    std::vector<graph::ModuleFrame> frames;
    for (std::string_view item : split(text, ';')) {
        std::vector<std::string> parts(1);
        int depth = 0;
        for (const char c : item) {
            depth += (c == '(' || c == '[') ? 1 : (c == ')' || c == ']') ? -1 : 0;
            if (c == ',' && depth == 0) {
                parts.emplace_back();
            } else {
                parts.back() += c;
            }
        }
        if (parts.size() == 3) {
            frames.push_back({std::move(parts[0]), std::move(parts[1]), std::move(parts[2])});
        }
    }
    return frames;
}

graph::SourceLoc innermostFrame(std::string_view stackTrace)
{
    graph::SourceLoc loc;
    const auto at = stackTrace.rfind("File \"");
    if (at == std::string_view::npos) {
        return loc;
    }
    std::string_view rest = stackTrace.substr(at + 6);
    const auto quote = rest.find('"');
    if (quote == std::string_view::npos) {
        return loc;
    }
    loc.file = std::string(rest.substr(0, quote));
    rest = rest.substr(quote + 1);
    if (startsWith(rest, ", line ")) {
        rest = rest.substr(7);
        const auto comma = rest.find(',');
        loc.line = static_cast<int>(parseInt(rest.substr(0, comma)).value_or(0));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma);
    }
    if (startsWith(rest, ", in ")) {
        rest = rest.substr(5);
        const auto eol = rest.find('\n');
        loc.function = std::string(trim(rest.substr(0, eol)));
        if (eol != std::string_view::npos) {
            const std::string_view code = rest.substr(eol + 1);
            loc.code = std::string(trim(code.substr(0, code.find('\n'))));
        }
    }
    return loc;
}

void applyMetadata(const JsonValue& metadata, graph::Node& node)
{
    if (!metadata.isObject()) {
        return;
    }
    node.source = innermostFrame(metadata["stack_trace"].stringView());
    node.moduleStack = parseModuleStack(metadata["nn_module_stack"].stringView());
    const std::string_view customText = metadata["custom"].stringView();
    if (customText.empty()) {
        return; // most nodes: no annotation (parsing "" would throw and catch, per node)
    }
    const Json custom = parseJsonOrDiscarded(customText);
    if (custom.is_object() && !custom.empty()) {
        graph::Annotation a;
        for (const auto& [key, value] : custom.items()) {
            a.entries.emplace_back(key, pythonRepr(value));
            a.text += (a.text.empty() ? "{" : ", ") + pythonRepr(Json(key)) + ": " +
                      pythonRepr(value);
        }
        a.text += "}";
        node.annotation = std::move(a);
    }
}

} // namespace fxs::io::detail
