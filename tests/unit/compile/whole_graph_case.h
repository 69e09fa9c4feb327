// A graph-code snippet parsed as one region of every call it makes, with its placeholders as the
// values an eager run keeps (the region's inputs): the cases of the fusion tests
// (tst_cat_fusion, tst_column_reductions, tst_view_fusion). Test code only.
#pragma once

#include "core/graph/graph.h"
#include "core/io/graph_code_parser.h"

#include <QtGlobal>

#include <string>
#include <vector>

namespace fxs::test {

struct WholeGraphCase {
    graph::GraphPtr graph;
    std::vector<graph::NodeId> region; // every call of the graph
    std::vector<std::string> keep;     // its inputs, by name
};

// The graph code of a forward taking `params` and running `body` (indented lines, a return).
inline std::string graphCode(const std::string& params, const std::string& body)
{
    return "def forward(self, " + params + "):\n" + body;
}

inline WholeGraphCase parseWholeGraphCase(const std::string& code)
{
    auto parsed = io::parseGraphCode(code, "case.txt");
    WholeGraphCase c;
    c.graph = parsed.graph;
    if (!c.graph) {
        qFatal("cannot parse a case");
    }
    for (const auto& n : c.graph->nodes()) {
        if (n.op == graph::OpKind::CallFunction) {
            c.region.push_back(n.id);
        } else if (n.op == graph::OpKind::Placeholder) {
            c.keep.push_back(n.name);
        }
    }
    return c;
}

} // namespace fxs::test
