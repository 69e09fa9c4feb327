// Test helper: a load result holding one run with one graph whose deferred parse yields no
// graph and the given problems, plus one problem from the load itself (line 1).
#pragma once

#include "core/io/loader.h"
#include "core/model/run.h"

#include <memory>
#include <string>

namespace fxs::test {

inline io::LoadResult runWithDeferredGraph(const std::string& path, Diagnostics parseProblems)
{
    model::Run run;
    run.path = path;
    model::GraphArtifact g;
    g.kind = "aot_backward_graph";
    g.payloadLines = 3;
    g.deferred = std::make_shared<const model::DeferredGraph>([parseProblems] {
        model::DeferredGraph::Parsed p;
        p.diagnostics = parseProblems;
        return p;
    });
    run.graphs.push_back(std::move(g));
    io::LoadResult result;
    result.runs.push_back(std::move(run));
    result.diagnostics.warning(path, 1, "from the load");
    return result;
}

} // namespace fxs::test
