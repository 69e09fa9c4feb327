#include "core/torchscript/class_constants.h"

#include <cctype>

namespace fxs::torchscript {
namespace {

// Class-body lists LibTorch's importer reads itself (import_source.cpp, importClass).
bool isSpecialName(std::string_view name)
{
    return name == "__parameters__" || name == "__buffers__" || name == "__annotations__" ||
           name == "__forward_pre_hooks__" || name == "__forward_hooks__";
}

bool isIdentifierChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The name of `name = value` (not `==`) at the start of `statement`; empty for anything else.
std::string_view assignedName(std::string_view statement)
{
    std::size_t end = 0;
    while (end < statement.size() && isIdentifierChar(statement[end])) {
        ++end;
    }
    if (end == 0 || std::isdigit(static_cast<unsigned char>(statement[0])) != 0) {
        return {};
    }
    std::size_t eq = statement.find_first_not_of(' ', end);
    const bool assigns = eq != std::string_view::npos && statement[eq] == '=' &&
                         (eq + 1 == statement.size() || statement[eq + 1] != '=');
    return assigns ? statement.substr(0, end) : std::string_view{};
}

struct ClassBody {
    bool open = false;      // inside a class body
    bool checked = false;   // not an Enum
    bool namedTuple = false; // no special names there
    std::size_t indent = std::string_view::npos; // the body's, from its first line
};

} // namespace

std::optional<UntypedConstant> findUntypedClassConstant(std::string_view source)
{
    ClassBody body;
    int line = 0;
    for (std::size_t pos = 0; pos < source.size();) {
        const std::size_t end = std::min(source.find('\n', pos), source.size());
        const std::string_view text = source.substr(pos, end - pos);
        pos = end + 1;
        ++line;
        const std::size_t indent = text.find_first_not_of(' ');
        if (indent == std::string_view::npos || text[indent] == '#' || text[indent] == '\r') {
            continue;
        }
        if (indent == 0) {
            body = {};
            if (text.rfind("class ", 0) == 0) {
                body.open = true;
                body.checked = text.find("(Enum)") == std::string_view::npos;
                body.namedTuple = text.find("(NamedTuple)") != std::string_view::npos;
            }
            continue;
        }
        if (!body.open) {
            continue;
        }
        body.indent = body.indent == std::string_view::npos ? indent : body.indent;
        const auto name = indent == body.indent && body.checked
                              ? assignedName(text.substr(indent))
                              : std::string_view{};
        if (!name.empty() && (body.namedTuple || !isSpecialName(name))) {
            return UntypedConstant{line, std::string(name)};
        }
    }
    return std::nullopt;
}

} // namespace fxs::torchscript
