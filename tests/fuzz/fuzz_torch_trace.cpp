// libFuzzer target for the TORCH_TRACE importer: any bytes must import without crashing,
// hanging or leaking, with consistent payload counters. Seeds: tests/fuzz/seeds/fuzz_torch_trace.
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
    return 0;
}
