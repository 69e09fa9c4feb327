// Reading a call's arguments the way PyTorch binds them: by keyword, else by position. For the
// code that interprets operator arguments (codegen's lowerings, compile's output checks).
#pragma once

#include "core/graph/node.h"

#include <cstddef>
#include <string_view>

namespace fxs::graph {

// The argument given by keyword `key`, else at `position`; null when neither is there.
inline const Argument* argumentOf(const Node& n, std::size_t position, std::string_view key)
{
    if (const Argument* k = n.kwarg(key)) {
        return k;
    }
    return position < n.args.size() ? &n.args[position] : nullptr;
}

} // namespace fxs::graph
