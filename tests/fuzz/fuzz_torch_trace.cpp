// libFuzzer target for the TORCH_TRACE importer: any bytes must import without crashing,
// hanging or leaking, with consistent payload counters; the guard trees it keeps as text and the
// graphs it keeps for parsing on demand must read too. Seeds: tests/fuzz/seeds/fuzz_torch_trace.
#include "core/io/guard_tree_parser.h"
#include "core/io/torch_trace_reader.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)fxs::io::looksLikeTorchTrace(text);
    const auto result = fxs::io::readTorchTrace(text, "fuzz.log");
    const auto& run = result.run;
    if (run.payloadsVerified + run.payloadMismatches > run.payloads) {
        std::abort();
    }
    if (!result.readSomething && !run.kindCounts.empty()) {
        std::abort();
    }
    for (const auto& t : run.texts) {
        (void)fxs::io::parseGuardTree(t.text); // any text, not only dynamo_cpp_guards_str
    }
    fxs::io::TraceReadOptions lazy;
    lazy.parseGraphs = false;
    auto onDemand = fxs::io::readTorchTrace(text, "fuzz.log", lazy);
    for (auto& g : onDemand.run.graphs) {
        fxs::io::ensureGraph(g, onDemand.diagnostics);
    }
    if (onDemand.run.graphs.size() != run.graphs.size()) {
        std::abort(); // parsing on demand keeps the same graphs
    }
    return 0;
}
