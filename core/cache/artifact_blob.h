// INTERNAL to core/cache: the byte layout of an artifact in the store's blob column. Format 2
// lists the files by kind and size ("fxscope-artifact-2\n<n>\n<kind> <size>\n..." then the bytes
// in order); format 1 (a shared object and its C++ source) is still read. Not the store.
#pragma once

#include "core/cache/cache_store.h"

#include <string>

namespace fxs::cache::detail {

std::string packArtifact(const Artifact& artifact);
// False when the blob has neither layout or its sizes do not add up.
bool unpackArtifact(const std::string& blob, Artifact& out);

} // namespace fxs::cache::detail
