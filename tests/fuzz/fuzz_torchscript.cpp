// libFuzzer target for the TorchScript importer (importTorchScriptBytes: fxscope's nesting check,
// torch::jit::load, the conversion to the graph IR): any archive must import or fail with an
// error, never crash, abort or hang. Built in the LibTorch fuzz sub-build (FXSCOPE_FUZZ_TORCH).
// Seeds: tests/fuzz/seeds/fuzz_torchscript (small traced and scripted modules, every entry
// stored); dictionary: fuzz_torchscript.dict.
//
// Both readers check each entry's CRC-32 (libzip in the nesting check, miniz in LibTorch), so the
// mutator keeps stored entries' CRCs right (zip_crc_mutator.h): the fuzzer reaches TorchScript's
// parser and unpickler.
#include "core/torchscript/torchscript_importer.h"
#include "tests/fuzz/zip_crc_mutator.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t maxSize, unsigned int seed)
{
    return fxs::fuzz::mutateKeepingCrcs(data, size, maxSize, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::string bytes(reinterpret_cast<const char*>(data), size);
    const auto result = fxs::torchscript::importTorchScriptBytes(std::move(bytes), "fuzz.pt");
    if (result.ok()) {
        if (!result->graph || !result->attributes ||
            result->graph->outputNode() == fxs::graph::kNoNode) {
            std::abort(); // an imported module always has a graph that ends in its output
        }
    } else if (result.error().message.empty()) {
        std::abort(); // every error says what went wrong
    }
    return 0;
}
