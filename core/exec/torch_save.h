// INTERNAL to core (torch-linked .cpp files only): the one door to LibTorch's unpickler for
// torch.save zip files, from a path (`--inputs` files) or from bytes (a `.pt2`'s sample inputs
// and pickled weights). Each file passes the gate first: util/torch_save_archive.h checks the
// zip, the declared sizes and the pickle's opcodes before LibTorch reads it; afterwards every
// tensor it built is checked against the storage record it views (declared storage bytes
// within the record, offset + the farthest element the sizes and strides reach within the
// storage, its own byte size under the cap; all in checked arithmetic) before anyone touches
// its data. Works around what LibTorch 1.13's unpickler lacks (one-entry dicts and lists).
// Never throws.
#pragma once

#include "core/util/result.h"
#include "core/util/torch_save_archive.h"

#include <ATen/core/ivalue.h>

#include <string>

namespace fxs::exec::detail {

// The pickled object of a torch.save zip file; tensors come back on the CPU. Errors: the
// gate's (TorchSaveArchive::open), Parse for a tensor that reaches past its storage or a
// storage past its record (naming the record, declared vs held), Unsupported for a tensor
// larger than limits.maxTotalBytes or not a dense one, Parse with LibTorch's message when its
// unpickler refuses the pickle.
Result<c10::IValue> readTorchSave(const std::string& path, const TorchSaveLimits& limits = {});
Result<c10::IValue> readTorchSaveBytes(std::string bytes, const std::string& label,
                                       const TorchSaveLimits& limits = {});

// Every tensor reachable from root (a module LibTorch loaded itself, whose storages hold what
// their records held) checked the same way: offset + the farthest element within the storage's
// bytes, each tensor and all of them together under maxTotalBytes. Errors: Parse, Unsupported
// (as above); where names the file.
Status checkLoadedTensors(const c10::IValue& root, const std::string& where,
                          std::uint64_t maxTotalBytes);

} // namespace fxs::exec::detail
