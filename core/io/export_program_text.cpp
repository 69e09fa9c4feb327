#include "core/io/export_program_text.h"

#include <simdjson.h>

namespace fxs::io::detail {
namespace {

namespace od = simdjson::ondemand;
using simdjson::SUCCESS;

// Thrown inside this file only, to leave the walk at the first error (caught in
// splitProgramText): every simdjson call below returns an error code.
struct WalkError {
    simdjson::error_code code;
};

void check(simdjson::error_code code)
{
    if (code != SUCCESS) {
        throw WalkError{code};
    }
}

std::string_view trimRight(std::string_view s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' ||
                          s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

// The whole text of a value (skipping it): objects and arrays from their brackets, scalars
// as their token.
std::string_view rawOf(od::value v)
{
    od::json_type type;
    check(v.type().get(type));
    std::string_view raw;
    if (type == od::json_type::object) {
        od::object o;
        check(v.get_object().get(o));
        check(o.raw_json().get(raw));
    } else if (type == od::json_type::array) {
        od::array a;
        check(v.get_array().get(a));
        check(a.raw_json().get(raw));
    } else {
        raw = v.raw_json_token();
    }
    return trimRight(raw);
}

bool isObject(od::value v)
{
    od::json_type type;
    check(v.type().get(type));
    return type == od::json_type::object;
}

// Calls fn(key, value) per member of o.
template <class Fn>
void forEachField(od::object o, Fn&& fn)
{
    for (auto result : o) {
        od::field f;
        check(std::move(result).get(f));
        std::string_view key;
        check(f.unescaped_key().get(key));
        fn(std::string(key), f.value());
    }
}

void put(std::vector<std::pair<std::string, std::string_view>>& members, std::string key,
         std::string_view raw)
{
    for (auto& [k, v] : members) {
        if (k == key) {
            v = raw; // the last of duplicate keys wins, as in a DOM
            return;
        }
    }
    members.emplace_back(std::move(key), raw);
}

void splitGraph(od::value v, ExportGraphText& g)
{
    if (!isObject(v)) {
        g.whole = rawOf(v);
        return;
    }
    g.isObject = true;
    od::object o;
    check(v.get_object().get(o));
    forEachField(o, [&](std::string key, od::value member) {
        od::json_type type;
        check(member.type().get(type));
        if (key == "nodes" && type == od::json_type::array) {
            od::array a;
            check(member.get_array().get(a));
            g.nodes.clear();
            g.hasNodes = true;
            for (auto item : a) {
                od::value n;
                check(std::move(item).get(n));
                g.nodes.push_back(rawOf(n));
            }
        } else if (key == "tensor_values" && type == od::json_type::object) {
            od::object values;
            check(member.get_object().get(values));
            g.tensorValues.clear();
            forEachField(values, [&](std::string name, od::value meta) {
                g.tensorValues.emplace_back(std::move(name), rawOf(meta));
            });
        } else if (key == "nodes") {
            g.nodes.clear();
            g.hasNodes = false;
            rawOf(member);
        } else if (key == "tensor_values") {
            g.tensorValues.clear();
            rawOf(member);
        } else if (key == "inputs") {
            g.inputs = rawOf(member);
        } else if (key == "outputs") {
            g.outputs = rawOf(member);
        } else if (key == "sym_int_values" || key == "sym_bool_values" ||
                   key == "sym_float_values") {
            put(g.symValues, std::move(key), rawOf(member));
        } else {
            rawOf(member); // other members: checked to be JSON, not read
        }
    });
}

void splitGraphModule(od::value v, ExportProgramText& p)
{
    p.hasGraphModule = true;
    if (!isObject(v)) {
        put(p.root, "graph_module", rawOf(v));
        return;
    }
    od::object o;
    check(v.get_object().get(o));
    forEachField(o, [&](std::string key, od::value member) {
        if (key == "graph") {
            p.hasGraph = true;
            p.graph = ExportGraphText{};
            splitGraph(member, p.graph);
        } else {
            put(p.graphModule, std::move(key), rawOf(member));
        }
    });
}

} // namespace

SplitResult splitProgramText(std::string_view text, std::size_t capacity)
{
    SplitResult out;
    try {
        od::parser parser;
        od::document doc;
        check(parser.iterate(text.data(), text.size(), capacity).get(doc));
        od::json_type type;
        check(doc.type().get(type));
        if (type != od::json_type::object) {
            std::string_view raw;
            check(doc.raw_json().get(raw)); // the rest must still be JSON
            return out;
        }
        out.program.isObject = true;
        od::object root;
        check(doc.get_object().get(root));
        forEachField(root, [&](std::string key, od::value member) {
            if (key == "graph_module") {
                splitGraphModule(member, out.program);
            } else {
                put(out.program.root, std::move(key), rawOf(member));
            }
        });
        if (const char* at = nullptr; doc.current_location().get(at) == SUCCESS) {
            return {ExportProgramText{}, "more text after the program's JSON object"};
        }
    } catch (const WalkError& e) {
        return {ExportProgramText{}, simdjson::error_message(e.code)};
    }
    out.program.graph.paddedAfter = true;
    return out;
}

} // namespace fxs::io::detail
