// Test helper: find a graph of a TORCH_TRACE run by its kind.
#pragma once

#include "core/model/run.h"

#include <string>

namespace fxs::testdata {

// Index of the first graph of `kind` ("aot_forward_graph") in the run; run.graphs.size() if none.
inline std::size_t graphIndex(const model::Run& run, const std::string& kind)
{
    for (std::size_t k = 0; k < run.graphs.size(); ++k) {
        if (run.graphs[k].kind == kind) {
            return k;
        }
    }
    return run.graphs.size();
}

} // namespace fxs::testdata
