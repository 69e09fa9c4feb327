// libFuzzer target for the torch.export program reader (the JSON of a `.pt2` archive): any
// bytes must read without crashing, hanging or leaking; a graph that comes back is
// consistent (every placeholder is described by at most one input spec, bodies are bounded).
// Seeds: tests/fuzz/seeds/fuzz_export_json (small programs of the recorded archives).
#include "core/graph/subgraphs.h"
#include "core/io/export_program_reader.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto result = fxs::io::readExportedProgramJson(text, "fuzz.json");
    if (result.graph) {
        if (result.graph->outputNode() == fxs::graph::kNoNode) {
            std::abort(); // the reader always ends a graph with its output node
        }
        for (const auto& s : fxs::graph::listSubgraphs(*result.graph)) {
            if (!s.graph) {
                std::abort();
            }
        }
    }
    return 0;
}
