#include "core/partition/python_literal.h"

#include "core/util/strings.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace fxs::partition {

namespace {

using nlohmann::json;

class LiteralParser {
public:
    explicit LiteralParser(std::string_view text) : m_s(text) {}

    std::optional<json> parseAll()
    {
        auto v = value();
        skipSpace();
        if (!v || m_pos != m_s.size()) {
            return std::nullopt;
        }
        return v;
    }

private:
    std::string_view m_s;
    std::size_t m_pos = 0;
    int m_depth = 0;

    void skipSpace()
    {
        while (m_pos < m_s.size() && (m_s[m_pos] == ' ' || m_s[m_pos] == '\t' ||
                                      m_s[m_pos] == '\n' || m_s[m_pos] == '\r')) {
            ++m_pos;
        }
    }
    bool eat(char c)
    {
        skipSpace();
        if (m_pos < m_s.size() && m_s[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }

    std::optional<json> value()
    {
        skipSpace();
        if (m_pos >= m_s.size() || ++m_depth > 64) {
            return std::nullopt;
        }
        std::optional<json> v;
        const char c = m_s[m_pos];
        if (c == '{') {
            v = dict();
        } else if (c == '[' || c == '(') {
            v = sequence(c == '[' ? ']' : ')');
        } else if (c == '\'' || c == '"') {
            v = string();
        } else {
            v = atom();
        }
        --m_depth;
        return v;
    }

    std::optional<json> dict()
    {
        ++m_pos;
        json obj = json::object();
        if (eat('}')) {
            return obj;
        }
        do {
            auto key = value();
            if (!key || !eat(':')) {
                return std::nullopt;
            }
            auto val = value();
            if (!val) {
                return std::nullopt;
            }
            obj[key->is_string() ? key->get<std::string>() : dumpJson(*key)] = std::move(*val);
        } while (eat(',') && !peek('}'));
        return eat('}') ? std::optional<json>(std::move(obj)) : std::nullopt;
    }

    std::optional<json> sequence(char close)
    {
        ++m_pos;
        json arr = json::array();
        if (eat(close)) {
            return arr;
        }
        do {
            auto item = value();
            if (!item) {
                return std::nullopt;
            }
            arr.push_back(std::move(*item));
        } while (eat(',') && !peek(close));
        return eat(close) ? std::optional<json>(std::move(arr)) : std::nullopt;
    }

    bool peek(char c)
    {
        skipSpace();
        return m_pos < m_s.size() && m_s[m_pos] == c;
    }

    std::optional<json> string()
    {
        const char quote = m_s[m_pos++];
        std::string out;
        while (m_pos < m_s.size() && m_s[m_pos] != quote) {
            char c = m_s[m_pos++];
            if (c == '\\' && m_pos < m_s.size()) {
                const char e = m_s[m_pos++];
                c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
            }
            out += c;
        }
        if (m_pos >= m_s.size()) {
            return std::nullopt;
        }
        ++m_pos;
        return json(std::move(out));
    }

    std::optional<json> atom()
    {
        const std::size_t begin = m_pos;
        while (m_pos < m_s.size() && std::string_view(",:)]} \t\n").find(m_s[m_pos]) ==
                                         std::string_view::npos) {
            ++m_pos;
        }
        const std::string_view word = m_s.substr(begin, m_pos - begin);
        if (word == "True" || word == "False") {
            return json(word == "True");
        }
        if (word == "None") {
            return json(nullptr);
        }
        if (const auto i = parseInt(word)) {
            return json(*i);
        }
        const auto d = parseDouble(word);
        if (d && std::isfinite(*d)) {
            return json(*d);
        }
        return std::nullopt;
    }
};

} // namespace

std::optional<std::string> pythonLiteralToJson(std::string_view text)
{
    auto v = LiteralParser(text).parseAll();
    if (!v) {
        return std::nullopt;
    }
    return dumpJson(*v);
}

namespace {

// The annotation's entries as one JSON object; when the reader kept only the text, the text.
json annotationObject(const graph::Annotation& annotation)
{
    if (annotation.entries.empty()) {
        auto whole = LiteralParser(annotation.text).parseAll();
        return whole && whole->is_object() ? std::move(*whole) : json::object();
    }
    json obj = json::object();
    for (const auto& [key, text] : annotation.entries) {
        auto v = LiteralParser(text).parseAll();
        obj[key] = v ? std::move(*v) : json(text);
    }
    return obj;
}

} // namespace

std::string annotationToJson(const graph::Annotation& annotation)
{
    return dumpJson(annotationObject(annotation));
}

std::optional<std::string> annotationValueJson(const graph::Annotation& annotation,
                                               std::string_view key)
{
    const json obj = annotationObject(annotation);
    const auto it = obj.find(std::string(key));
    if (it == obj.end()) {
        return std::nullopt;
    }
    return dumpJson(*it);
}

} // namespace fxs::partition
