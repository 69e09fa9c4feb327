// libFuzzer target for the `.pt2` archive reader (core/io/pt2_reader: the zip container, the
// program entry it finds, the weights' and constants' configs and the index of their entries;
// the program's JSON itself is fuzz_export_json's): any bytes must read without crashing,
// throwing, hanging or growing without bound; a graph that comes back ends with its output
// node and its program is there. Seeds: tests/fuzz/seeds/fuzz_pt2 (two recorded archives,
// entries stored uncompressed); the mutator keeps stored entries' CRCs right
// (zip_crc_mutator.h), so mutations reach the configs and the program as well as the zip's
// records; tests/fuzz/fuzz_pt2.dict holds the zip signatures and the entry names the reader
// looks for.
#include "core/io/pt2_reader.h"
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
    const auto result = fxs::io::readPt2Bytes(std::move(bytes), "fuzz.pt2");
    if (result && result->graph) {
        if (result->graph->outputNode() == fxs::graph::kNoNode || !result->program) {
            std::abort();
        }
    }
    return 0;
}
