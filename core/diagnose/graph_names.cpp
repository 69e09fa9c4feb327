#include "core/diagnose/graph_names.h"

#include "core/util/strings.h"

#include <cctype>
#include <unordered_map>

namespace fxs::diagnose {

namespace {

bool identStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool identChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::string_view identAt(std::string_view s, std::size_t i)
{
    std::size_t j = i;
    while (j < s.size() && identChar(s[j])) {
        ++j;
    }
    return s.substr(i, j - i);
}

// forward's parameters: "def forward(self, a, b: "f32[2]", *args):".
void collectParameters(std::string_view line, std::vector<std::string>& names)
{
    const auto open = line.find('(');
    const auto close = line.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
        return;
    }
    for (std::string_view p : split(line.substr(open + 1, close - open - 1), ',')) {
        p = trim(p);
        while (!p.empty() && p.front() == '*') {
            p.remove_prefix(1);
        }
        const std::string_view name = identAt(p, 0);
        if (!name.empty() && name != "self") {
            names.emplace_back(name);
        }
    }
}

// "name = ..." or "name: "f32[2]" = ...": the assigned name, else empty.
std::string_view assignedName(std::string_view line)
{
    line = trimLeft(line);
    if (line.empty() || !identStart(line.front())) {
        return {};
    }
    const std::string_view name = identAt(line, 0);
    const std::string_view rest = trimLeft(line.substr(name.size()));
    if (startsWith(rest, "= ") || startsWith(rest, ":")) {
        return name;
    }
    return {};
}

// Replaces identifiers that are defined names (not attribute names after '.', not inside
// string literals) with their canonical name.
std::string renameLine(std::string_view line, const std::unordered_map<std::string, std::string>& map)
{
    std::string out;
    out.reserve(line.size());
    char quote = 0;
    std::size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (quote) {
            out += c;
            quote = c == quote ? 0 : quote;
            ++i;
        } else if (c == '"' || c == '\'') {
            quote = c;
            out += c;
            ++i;
        } else if (identStart(c) && (i == 0 || !identChar(line[i - 1]))) {
            const std::string_view id = identAt(line, i);
            const auto it = (i > 0 && line[i - 1] == '.') ? map.end() : map.find(std::string(id));
            out += it == map.end() ? std::string(id) : it->second;
            i += id.size();
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

} // namespace

CanonicalGraph canonicalGraphCode(std::string_view code)
{
    CanonicalGraph g;
    const auto lines = split(code, '\n');
    for (std::string_view line : lines) {
        if (startsWith(trimLeft(line), "def forward")) {
            collectParameters(line, g.names);
        } else if (const auto name = assignedName(line); !name.empty()) {
            g.names.emplace_back(name);
        }
    }
    std::unordered_map<std::string, std::string> map;
    for (const auto& n : g.names) {
        map.emplace(n, "v" + std::to_string(map.size()));
    }
    for (std::string_view line : lines) {
        g.text += renameLine(line, map);
        g.text += '\n';
    }
    return g;
}

std::optional<std::pair<std::string, std::string>> firstRename(const CanonicalGraph& a,
                                                               const CanonicalGraph& b)
{
    for (std::size_t i = 0; i < a.names.size() && i < b.names.size(); ++i) {
        if (a.names[i] != b.names[i]) {
            return std::make_pair(a.names[i], b.names[i]);
        }
    }
    return std::nullopt;
}

} // namespace fxs::diagnose
