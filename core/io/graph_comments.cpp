#include "core/io/graph_comments.h"

#include "core/util/strings.h"

#include <cctype>

namespace fxs::io::detail {

namespace {

constexpr std::string_view kFile = "File: ";
constexpr std::string_view kAnnotation = "Annotation: ";

// "path:line in fn, code: src" (the part after "File: ").
graph::SourceLoc parseFileClause(std::string_view s)
{
    graph::SourceLoc loc;
    const auto codeAt = s.find(", code: ");
    std::string_view head = codeAt == std::string_view::npos ? s : s.substr(0, codeAt);
    if (codeAt != std::string_view::npos) {
        loc.code = std::string(s.substr(codeAt + 8));
    }
    const auto inAt = head.rfind(" in ");
    if (inAt != std::string_view::npos) {
        loc.function = std::string(trim(head.substr(inAt + 4)));
        head = head.substr(0, inAt);
    }
    const auto colon = head.rfind(':');
    const auto line = colon == std::string_view::npos ? std::nullopt : parseInt(head.substr(colon + 1));
    if (line) {
        loc.line = static_cast<int>(*line);
        head = head.substr(0, colon);
    }
    loc.file = std::string(trim(head));
    return loc;
}

// Length of the quoted string at the start of s (quotes included); 0 when unterminated.
std::size_t balancedQuoteEnd(std::string_view s)
{
    for (std::size_t i = 1; i < s.size(); ++i) {
        if (s[i] == '\\') {
            ++i;
        } else if (s[i] == s[0]) {
            return i + 1;
        }
    }
    return 0;
}

std::string_view unquoteKey(std::string_view k)
{
    k = trim(k);
    if (k.size() >= 2 && (k.front() == '\'' || k.front() == '"') && k.back() == k.front()) {
        return k.substr(1, k.size() - 2);
    }
    return {};
}

} // namespace

std::size_t balancedLength(std::string_view text)
{
    int depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\'' || c == '"') {
            for (++i; i < text.size() && text[i] != c; ++i) {
                i += text[i] == '\\' ? 1 : 0;
            }
            if (i >= text.size()) {
                return std::string_view::npos;
            }
        } else if (c == '{' || c == '(' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ')' || c == ']') {
            if (--depth == 0) {
                return i + 1;
            }
        }
    }
    return std::string_view::npos;
}

bool parseDictEntries(std::string_view dict, std::vector<std::pair<std::string, std::string>>& out)
{
    dict = trim(dict);
    if (dict.size() < 2 || dict.front() != '{' || dict.back() != '}') {
        return false;
    }
    std::string_view body = dict.substr(1, dict.size() - 2);
    // Split at top-level commas; each piece is `'key': value`.
    std::size_t start = 0;
    int depth = 0;
    for (std::size_t i = 0; i <= body.size(); ++i) {
        const char c = i < body.size() ? body[i] : ',';
        if (c == '\'' || c == '"') {
            for (++i; i < body.size() && body[i] != c; ++i) {
                i += body[i] == '\\' ? 1 : 0;
            }
            continue;
        }
        depth += (c == '{' || c == '(' || c == '[') ? 1 : (c == '}' || c == ')' || c == ']') ? -1 : 0;
        if (c != ',' || depth != 0) {
            continue;
        }
        const std::string_view piece = trim(body.substr(start, i - start));
        start = i + 1;
        if (piece.empty()) {
            continue;
        }
        const std::size_t keyLen = (piece[0] == '\'' || piece[0] == '"') ? balancedQuoteEnd(piece) : 0;
        const std::string_view key = unquoteKey(piece.substr(0, keyLen));
        const std::string_view rest = trimLeft(piece.substr(keyLen));
        if (keyLen == 0 || rest.empty() || rest[0] != ':') {
            return false;
        }
        out.emplace_back(std::string(key), std::string(trim(rest.substr(1))));
    }
    return true;
}

SourceComment parseSourceComment(std::string_view text)
{
    SourceComment out;
    text = trim(text);
    if (startsWith(text, "No stacktrace found")) {
        out.kind = CommentKind::NoStacktrace;
        return out;
    }
    if (startsWith(text, kAnnotation)) {
        std::string_view rest = trimLeft(text.substr(kAnnotation.size()));
        const std::size_t len = rest.empty() || rest[0] != '{' ? std::string_view::npos
                                                               : balancedLength(rest);
        if (len == std::string_view::npos) {
            return out; // not an annotation we understand: an ordinary comment
        }
        graph::Annotation a;
        a.text = std::string(rest.substr(0, len));
        if (!parseDictEntries(a.text, a.entries)) {
            a.entries.clear();
        }
        out.annotation = std::move(a);
        out.kind = CommentKind::Source;
        text = trimLeft(rest.substr(len));
        if (text.empty()) {
            return out;
        }
    }
    if (startsWith(text, kFile)) {
        out.kind = CommentKind::Source;
        out.source = parseFileClause(text.substr(kFile.size()));
    }
    return out;
}

std::optional<graph::AotTag> parseAotTag(std::string_view text)
{
    text = trim(text);
    const auto paren = text.find('(');
    if (paren == 0 || paren == std::string_view::npos || text.back() != ')') {
        return std::nullopt;
    }
    graph::AotTag tag;
    for (char c : text.substr(0, paren)) {
        const bool ident = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '_' || c == '.';
        if (!ident) {
            return std::nullopt;
        }
    }
    tag.kind = std::string(text.substr(0, paren));
    tag.text = std::string(text);
    // The shallowest `idx=N`: TangentAOTInput(output=PlainAOTOutput(idx=0)) has idx 0.
    int depth = 0;
    int bestDepth = 1 << 30;
    for (std::size_t i = 0; i < text.size(); ++i) {
        depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
        const bool wordStart = i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
                                           text[i - 1] == '_');
        if (!wordStart || text.substr(i, 4) != "idx=" || depth >= bestDepth) {
            continue;
        }
        std::size_t k = i + 4;
        while (k < text.size() && text[k] >= '0' && text[k] <= '9') {
            ++k;
        }
        if (const auto v = parseInt(text.substr(i + 4, k - i - 4)); v && *v <= 1 << 30) {
            tag.idx = static_cast<int>(*v);
            bestDepth = depth;
        }
    }
    return tag;
}

} // namespace fxs::io::detail
