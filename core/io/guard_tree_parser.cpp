#include "core/io/guard_tree_parser.h"

#include "core/util/strings.h"

#include <cctype>

namespace fxs::io {

namespace {

constexpr std::string_view kComment = "  # ";

// "ome/user/demo/record.py:71 in fn (user code shown is ...)" → file, line, function.
void parseLocation(std::string_view text, model::GuardEntry& g)
{
    text = trim(text);
    if (startsWith(text, "(")) {
        text.remove_prefix(1); // "(_inductor/codegen/simd.py:1877 in can_use_32bit_indexing)"
    }
    const auto in = text.find(" in ");
    const std::string_view where = text.substr(0, in);
    const auto colon = where.rfind(':');
    if (colon == std::string_view::npos) {
        return;
    }
    const auto number = parseInt(where.substr(colon + 1));
    if (!number) {
        return;
    }
    g.file.assign(where.substr(0, colon));
    g.line = static_cast<int>(*number);
    if (in != std::string_view::npos) {
        std::string_view fn = text.substr(in + 4);
        const auto end = fn.find_first_of(" )");
        g.function.assign(fn.substr(0, end));
    }
}

// The comment after a guard: "user code  # file:line in fn", or just "file:line in fn".
void parseComment(std::string_view comment, model::GuardEntry& g)
{
    const auto sep = comment.find(kComment);
    if (sep == std::string_view::npos) {
        parseLocation(comment, g);
        return;
    }
    g.userCode.assign(trim(comment.substr(0, sep)));
    parseLocation(comment.substr(sep + kComment.size()), g);
}

// "source=L['x'], accessed_by=..." → "L['x']".
std::string managerSource(std::string_view expr)
{
    static constexpr std::string_view kSource = "source=";
    const auto at = expr.find(kSource);
    if (at == std::string_view::npos) {
        return {};
    }
    std::string_view rest = expr.substr(at + kSource.size());
    // Sources contain brackets and quotes but no ", " outside them; cut at ", accessed_by".
    const auto end = rest.find(", accessed_by=");
    return std::string(trim(rest.substr(0, end)));
}

bool isKindChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

} // namespace

std::vector<model::GuardEntry> parseGuardTree(std::string_view text)
{
    std::vector<model::GuardEntry> out;
    std::vector<std::string> sources; // enclosing managers' sources by depth
    int lineNo = 0;
    for (std::string_view line : split(text, '\n')) {
        ++lineNo;
        std::size_t i = 0;
        int depth = 0;
        while (i + 1 < line.size() && line[i] == '|' && line[i + 1] == ' ') {
            i += 2;
            ++depth;
        }
        if (line.substr(i, 3) != "+- ") {
            continue;
        }
        std::string_view body = line.substr(i + 3);
        model::GuardEntry g;
        g.depth = depth;
        g.textLine = lineNo;
        std::size_t k = 0;
        while (k < body.size() && isKindChar(body[k])) {
            ++k;
        }
        g.kind.assign(body.substr(0, k));
        std::string_view rest = body.substr(k);
        if (startsWith(rest, ":")) {
            rest.remove_prefix(1);
        }
        const auto comment = rest.find(kComment);
        g.expr.assign(trim(rest.substr(0, comment)));
        if (comment != std::string_view::npos) {
            parseComment(rest.substr(comment + kComment.size()), g);
        }
        g.manager = endsWith(g.kind, "GuardManager");
        sources.resize(static_cast<std::size_t>(depth) + 1);
        if (g.manager) {
            sources[static_cast<std::size_t>(depth)] = managerSource(g.expr);
            g.source = sources[static_cast<std::size_t>(depth)];
        } else {
            for (std::size_t d = static_cast<std::size_t>(depth); d-- > 0;) {
                if (!sources[d].empty()) {
                    g.source = sources[d];
                    break;
                }
            }
        }
        out.push_back(std::move(g));
    }
    return out;
}

} // namespace fxs::io
