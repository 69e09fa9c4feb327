// Template body of argumentToString; included from argument.h only.
#pragma once

#include "core/util/strings.h"

namespace fxs::graph {

template <class NameOf>
std::string argumentToString(const Argument& a, NameOf&& nameOf)
{
    switch (a.kind) {
    case ArgKind::None: return "None";
    case ArgKind::Bool: return a.b ? "True" : "False";
    case ArgKind::Int: return std::to_string(a.i);
    case ArgKind::Float: return formatDouble(a.f);
    case ArgKind::String: {
        std::string s = "'";
        for (char c : a.text) {
            if (c == '\'' || c == '\\') {
                s += '\\';
            }
            s += c;
        }
        return s + "'";
    }
    case ArgKind::Node: return std::string(nameOf(a.node));
    case ArgKind::List:
    case ArgKind::Tuple: {
        std::string s = a.kind == ArgKind::List ? "[" : "(";
        for (std::size_t k = 0; k < a.items.size(); ++k) {
            if (k > 0) {
                s += ", ";
            }
            s += argumentToString(a.items[k], nameOf);
        }
        if (a.kind == ArgKind::Tuple && a.items.size() == 1) {
            s += ",";
        }
        return s + (a.kind == ArgKind::List ? "]" : ")");
    }
    case ArgKind::Dtype: return "torch." + std::string(dtypeTorchName(a.dtype));
    case ArgKind::Device:
        return a.device.index >= 0 ? "device(type='" + a.device.type +
                                         "', index=" + std::to_string(a.device.index) + ")"
                                   : "device(type='" + a.device.type + "')";
    case ArgKind::Layout:
    case ArgKind::MemoryFormat: return "torch." + a.text;
    case ArgKind::Expr: return a.text;
    }
    return "?";
}

} // namespace fxs::graph
