#include "core/structure/module_path.h"

#include <vector>

namespace fxs::structure {
namespace {

bool isIdentChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool isIdentifier(std::string_view s)
{
    if (s.empty()) {
        return false;
    }
    for (char c : s) {
        if (!isIdentChar(c)) {
            return false;
        }
    }
    return true;
}

// Splits "a_modules_b_modules_c" at each "_modules_" ("a", "b", "c"); false when a part is
// empty ("a_modules__modules_b").
bool splitModules(std::string_view s, std::vector<std::string_view>& parts)
{
    constexpr std::string_view kSep = "_modules_";
    for (;;) {
        const auto at = s.find(kSep);
        const std::string_view part = s.substr(0, at);
        if (part.empty()) {
            return false;
        }
        parts.push_back(part);
        if (at == std::string_view::npos) {
            return true;
        }
        s.remove_prefix(at + kSep.size());
    }
}

} // namespace

std::string ParamPath::path() const
{
    return module.empty() ? attr : module + "." + attr;
}

std::optional<ParamPath> parseDynamoName(std::string_view name)
{
    if (name.size() < 4 || !(name[0] == 'L' || name[0] == 'l' || name[0] == 'G' || name[0] == 'g') ||
        name[1] != '_' || name.back() != '_' || !isIdentifier(name)) {
        return std::nullopt;
    }
    std::string_view body = name.substr(2, name.size() - 3); // without "L_" and the trailing '_'
    ParamPath out;
    // The first "_parameters_"/"_buffers_" after the last "_modules_" separates the module
    // chain from the attribute (attribute names may contain those words; see the header).
    const auto lastModule = body.rfind("_modules_");
    const std::size_t from = lastModule == std::string_view::npos ? 0 : lastModule + 1;
    const auto param = body.find("_parameters_", from);
    const auto buffer = body.find("_buffers_", from);
    if (param == std::string_view::npos && buffer == std::string_view::npos) {
        return std::nullopt;
    }
    const bool isParam = param < buffer; // npos is the largest value
    const std::size_t at = isParam ? param : buffer;
    const std::size_t sepLen = isParam ? std::string_view("_parameters_").size()
                                       : std::string_view("_buffers_").size();
    out.kind = isParam ? AttrKind::Parameter : AttrKind::Buffer;
    const std::string_view attr = body.substr(at + sepLen);
    std::vector<std::string_view> parts;
    if (attr.empty() || attr.find("_modules_") != std::string_view::npos ||
        !splitModules(body.substr(0, at), parts)) {
        return std::nullopt;
    }
    out.attr = std::string(attr);
    for (std::size_t k = parts[0] == "self" ? 1 : 0; k < parts.size(); ++k) {
        out.module += out.module.empty() ? "" : ".";
        out.module += parts[k];
    }
    return out;
}

std::optional<std::string> modulePathOfTarget(std::string_view target)
{
    if (target.empty()) {
        return std::nullopt;
    }
    std::string_view rest = target;
    for (;;) {
        const auto dot = rest.find('.');
        if (!isIdentifier(rest.substr(0, dot))) {
            return std::nullopt;
        }
        if (dot == std::string_view::npos) {
            return std::string(target);
        }
        rest.remove_prefix(dot + 1);
    }
}

std::optional<ParamPath> parseDottedTarget(std::string_view target)
{
    const auto dot = target.rfind('.');
    if (dot == std::string_view::npos || !modulePathOfTarget(target)) {
        return std::nullopt;
    }
    ParamPath out;
    out.module = std::string(target.substr(0, dot));
    out.attr = std::string(target.substr(dot + 1));
    out.kind = AttrKind::Attribute;
    return out;
}

std::string_view parentPath(std::string_view path)
{
    const auto dot = path.rfind('.');
    return dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
}

} // namespace fxs::structure
