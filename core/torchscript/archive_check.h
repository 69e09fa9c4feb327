// What importTorchScriptBytes checks in a TorchScript archive before torch::jit::load sees it:
// inputs that LibTorch 1.13 does not survive or that make it allocate far more than the file
// holds. Code entries are checked for bracket nesting (code_nesting.h), pickles for the lengths,
// stack and memo use that LibTorch's unpickler does not check (pickle_scan.h). Not a validator
// of what LibTorch reports well itself. The pickle scanner and the declared-size check are
// the ones the torch.save gate uses (util/torch_save_archive.h).
#pragma once

#include "core/util/result.h"

#include <string>
#include <string_view>

namespace fxs::torchscript {

// Scans the archive held in memory (read without a copy; each entry capped in size): every
// `*/code/*.py` and every pickle (`*.pkl`: data, constants; not the debug_pkl entries, which
// hideDebugInfo keeps from LibTorch). Errors (where = "path!entry", its message naming the
// entry too): Parse when code nests past kMaxBracketDepth or assigns an untyped class constant
// (with the line) or a pickle has a fault (findPickleFault, with the offset); Unsupported
// when an entry is too large to scan, or any entry declares more than the file cap (2 GiB),
// alone or with the others (ZipArchive::checkDeclaredSizes: LibTorch would allocate it);
// Parse for a declared size its stored data cannot hold; the entry's read error when it is
// damaged; Parse when libzip cannot open an archive that has an end-of-central-directory
// record (LibTorch's reader is more lenient: it would read entries this check cannot see).
// Bytes without that record
// pass: torch::jit::load rejects them in its own words. Throws only std::bad_alloc
// (importTorchScriptBytes turns it into an error).
Status checkArchive(std::string_view archive, const std::string& path);

} // namespace fxs::torchscript
