// libFuzzer target for the printed-graph-code importer: parseGraphCode must never crash, hang or
// throw on any input, and a cleanly parsed graph must survive print -> parse with the same
// number of nodes. Also feeds the start of the input to parseValueMeta, and every symbolic size
// of the graph to the checked evaluator (core/util/int_expr.h) with each symbol 8 and then
// INT64_MAX: it must give a value or an error, never trap or overflow (UBSan).
#include "core/graph/graph_printer.h"
#include "core/io/graph_code_parser.h"
#include "core/util/int_expr.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

std::size_t totalNodes(const fxs::graph::Graph& g)
{
    std::size_t n = g.size();
    for (const auto& sub : g.submodules()) {
        n += totalNodes(*sub);
    }
    return n;
}

void evaluateSizes(const fxs::graph::Graph& g)
{
    for (const auto& node : g.nodes()) {
        const auto* meta = node.tensorMeta();
        if (meta == nullptr) {
            continue;
        }
        for (const auto& dim : meta->sizes) {
            if (!dim.isSymbolic()) {
                continue;
            }
            for (const std::int64_t value : {std::int64_t(8), INT64_MAX}) {
                (void)fxs::evalIntExpr(dim.expr, [value](std::string_view) {
                    return std::optional<std::int64_t>(value);
                });
            }
        }
    }
    for (const auto& sub : g.submodules()) {
        evaluateSizes(*sub);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)fxs::io::parseValueMeta(text.substr(0, 256));
    const auto first = fxs::io::parseGraphCode(text, "fuzz.py", 1, false);
    if (!first.graph) {
        return 0;
    }
    evaluateSizes(*first.graph);
    const std::string printed = fxs::graph::printGraphCode(*first.graph);
    const auto second = fxs::io::parseGraphCode(printed, "printed.py", 1, false);
    if (first.diagnostics.empty() &&
        (!second.graph || totalNodes(*second.graph) != totalNodes(*first.graph))) {
        std::abort(); // a clean graph must round-trip through the printer
    }
    return 0;
}
