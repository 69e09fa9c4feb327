#include "core/graph/node.h"

namespace fxs::graph {

std::string_view opKindName(OpKind op)
{
    switch (op) {
    case OpKind::Placeholder: return "placeholder";
    case OpKind::CallFunction: return "call_function";
    case OpKind::CallMethod: return "call_method";
    case OpKind::CallModule: return "call_module";
    case OpKind::GetAttr: return "get_attr";
    case OpKind::Output: return "output";
    }
    return "?";
}

const std::string* Annotation::get(std::string_view key) const
{
    for (const auto& [k, v] : entries) {
        if (k == key) {
            return &v;
        }
    }
    return nullptr;
}

const Argument* Node::kwarg(std::string_view key) const
{
    for (const auto& [k, v] : kwargs) {
        if (k == key) {
            return &v;
        }
    }
    return nullptr;
}

std::string_view opBaseName(std::string_view target)
{
    auto ns = target.find("::");
    if (ns != std::string_view::npos) {
        target.remove_prefix(ns + 2);
        return target.substr(0, target.find('.'));
    }
    const auto dot = target.rfind('.');
    return dot == std::string_view::npos ? target : target.substr(dot + 1);
}

std::string_view opOverload(std::string_view target)
{
    const auto ns = target.find("::");
    if (ns == std::string_view::npos) {
        return {};
    }
    const auto dot = target.find('.', ns + 2);
    return dot == std::string_view::npos ? std::string_view() : target.substr(dot + 1);
}

} // namespace fxs::graph
