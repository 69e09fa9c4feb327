#include "core/io/export_json.h"

#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

#include <limits>

namespace fxs::io::detail {

std::string_view JsonValue::stringView() const
{
    std::string_view s;
    if (!m_present || m_el.get_string().get(s) != simdjson::SUCCESS) {
        return {};
    }
    return s;
}

std::int64_t JsonValue::toInt(std::int64_t otherwise) const
{
    std::int64_t i = 0;
    if (!m_present || m_el.get_int64().get(i) != simdjson::SUCCESS) {
        return otherwise;
    }
    return i;
}

double JsonValue::toDouble() const
{
    double d = 0;
    if (!m_present || m_el.get_double().get(d) != simdjson::SUCCESS) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return d;
}

bool JsonValue::toBool() const
{
    bool b = false;
    return m_present && m_el.get_bool().get(b) == simdjson::SUCCESS && b;
}

JsonValue JsonValue::operator[](std::string_view key) const
{
    simdjson::dom::object members;
    if (!m_present || m_el.get_object().get(members) != simdjson::SUCCESS) {
        return {};
    }
    simdjson::dom::element found;
    if (members.at_key(key).get(found) != simdjson::SUCCESS) {
        return {};
    }
    return JsonValue(found);
}

std::size_t JsonValue::size() const
{
    // simdjson keeps counts up to 0xFFFFFF on the tape and counts larger containers again.
    if (simdjson::dom::array items; m_present && m_el.get_array().get(items) ==
                                                     simdjson::SUCCESS) {
        return items.size();
    }
    if (simdjson::dom::object members; m_present && m_el.get_object().get(members) ==
                                                        simdjson::SUCCESS) {
        return members.size();
    }
    return 0;
}

JsonValue JsonValue::front() const
{
    simdjson::dom::array items;
    if (!m_present || m_el.get_array().get(items) != simdjson::SUCCESS) {
        return {};
    }
    for (simdjson::dom::element e : items) {
        return JsonValue(e);
    }
    return {};
}

std::string_view JsonValue::unionKind() const
{
    simdjson::dom::object members;
    if (!m_present || m_el.get_object().get(members) != simdjson::SUCCESS ||
        members.size() != 1) {
        return {};
    }
    return (*members.begin()).key;
}

JsonValue JsonValue::unionValue() const
{
    simdjson::dom::object members;
    if (!m_present || m_el.get_object().get(members) != simdjson::SUCCESS ||
        members.size() != 1) {
        return {};
    }
    return JsonValue((*members.begin()).value);
}

std::string JsonValue::text() const
{
    return m_present ? simdjson::minify(m_el) : std::string("null");
}

ParsedJson parsePiece(simdjson::dom::parser& parser, std::string_view text, bool paddedAfter)
{
    simdjson::dom::element root;
    auto code = parser.parse(text.data(), text.size(), !paddedAfter).get(root);
    if (code == simdjson::NUMBER_ERROR || code == simdjson::NUMBER_OUT_OF_RANGE) {
        // Integers past 64 bits are JSON all the same: as nlohmann reads them (doubles), then
        // parsed again. The DOM owns its strings, so the rewritten text may go.
        if (auto lenient = parseJson(text); lenient.ok()) {
            const std::string rewritten = dumpJson(*lenient);
            code = parser.parse(rewritten).get(root);
        }
    }
    if (code != simdjson::SUCCESS) {
        return {{}, simdjson::error_message(code)};
    }
    return {JsonValue(root), {}};
}

} // namespace fxs::io::detail
