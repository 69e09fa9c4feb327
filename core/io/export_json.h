// INTERNAL to fxscope_io: the JSON values the torch.export readers walk — a read-only handle on
// a simdjson DOM element (tape-based: a node's DOM is a few small arrays, no allocation per
// value) with an "absent" state, so that `member(j, "key")` chains need no null checks. For
// export_program_reader, export_graph_reader, export_meta and the pt2 payload configs; not a
// general JSON API (the rest of fxscope reads JSON through util/json_parse).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace fxs::io::detail {

class JsonValue {
public:
    JsonValue() = default; // absent
    explicit JsonValue(simdjson::dom::element e) : m_el(e), m_present(true) {}

    bool present() const { return m_present; }
    bool isObject() const { return m_present && m_el.is_object(); }
    bool isArray() const { return m_present && m_el.is_array(); }
    bool isString() const { return m_present && m_el.is_string(); }
    bool isBool() const { return m_present && m_el.is_bool(); }
    bool isNull() const { return m_present && m_el.is_null(); }
    bool isInteger() const { return m_present && m_el.is_int64(); }
    bool isNumber() const { return m_present && m_el.is_number(); }

    // The value, or the default when it is of another kind or absent.
    std::string_view stringView() const;
    std::string str() const { return std::string(stringView()); }
    std::int64_t toInt(std::int64_t otherwise = 0) const;
    double toDouble() const; // integers too; NaN otherwise
    bool toBool() const;

    // The member `key` of an object (the first one of that name); absent otherwise.
    JsonValue operator[](std::string_view key) const;
    // Elements of an array or members of an object; 0 for anything else.
    std::size_t size() const;
    bool empty() const { return size() == 0; }
    // The first element of an array (absent when there is none or it is not an array).
    JsonValue front() const;

    // A serialized union ({"as_tensor": {...}}): its only key and value; "" / absent when
    // the value is not an object of exactly one member.
    std::string_view unionKind() const;
    JsonValue unionValue() const;

    // fn(JsonValue) per array element / fn(std::string_view key, JsonValue) per member.
    template <class Fn>
    void forEach(Fn&& fn) const
    {
        simdjson::dom::array items;
        if (m_present && m_el.get_array().get(items) == simdjson::SUCCESS) {
            for (simdjson::dom::element e : items) {
                fn(JsonValue(e));
            }
        }
    }
    template <class Fn>
    void forEachMember(Fn&& fn) const
    {
        simdjson::dom::object members;
        if (m_present && m_el.get_object().get(members) == simdjson::SUCCESS) {
            for (simdjson::dom::key_value_pair kv : members) {
                fn(kv.key, JsonValue(kv.value));
            }
        }
    }

    // Compact JSON text (members in document order); "null" when absent.
    std::string text() const;

private:
    simdjson::dom::element m_el;
    bool m_present = false;
};

// The member `key` (absent when j is not an object or has no such member).
inline JsonValue member(const JsonValue& j, const char* key)
{
    return j[key];
}
// The string value of member `key`, or "" when absent or not a string.
inline std::string stringMember(const JsonValue& j, const char* key)
{
    return j[key].str();
}

// Parses one piece of JSON text (a node, a tensor meta, a config) into parser, whose DOM the
// returned value points into until the parser parses again. paddedAfter: the
// simdjson::SIMDJSON_PADDING bytes after the text are readable (a piece of a padded document);
// otherwise simdjson parses a padded copy. Errors: simdjson's message.
struct ParsedJson {
    JsonValue value;
    std::string error; // "" when value is the document's root
};
ParsedJson parsePiece(simdjson::dom::parser& parser, std::string_view text, bool paddedAfter);

} // namespace fxs::io::detail
