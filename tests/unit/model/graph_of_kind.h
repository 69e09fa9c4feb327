// Test helper: the index into run.graphs of the ordinal-th graph of a kind (any compile id), or
// -1. Shared by the lookup-graphs and workspace tests. Test code only.
#pragma once

#include "core/model/run.h"

#include <string_view>

namespace fxs::test {

inline int graphOfKind(const model::Run& run, std::string_view kind, int ordinal = 0)
{
    for (std::size_t i = 0; i < run.graphs.size(); ++i) {
        if (run.graphs[i].kind == kind && ordinal-- == 0) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

} // namespace fxs::test
