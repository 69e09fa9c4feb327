// The weights of a torch.export `.pt2` archive as engine inputs: every parameter, buffer and
// tensor constant the signature names, read from the archive when a graph is to run (raw bytes
// shaped by their tensor meta, or torch.save pickles), keyed by the placeholder that takes it
// ("p_fc1_weight"). Pass the store as RunOptions::inputs. Torch-free header; never throws.
#pragma once

#include "core/exec/tensor_handle.h"
#include "core/model/exported_program.h"
#include "core/util/result.h"

#include <memory>

namespace fxs::exported {

// Errors (each naming the archive entry): Io/Parse (archive unreadable or damaged, a bad
// CRC), Invalid (a weight the signature needs is not in the archive), Unsupported (a dtype
// this LibTorch lacks; weights that declare more than 16 GiB together, refused before any is
// read), Parse (raw bytes that do not fit the meta: a view past the file, a negative or
// overflowing offset, size or stride; a pickle the torch.save gate refuses).
Result<std::shared_ptr<exec::ValueStore>> loadExportWeights(const model::ExportedProgram& program);

// The example inputs the program was exported with, keyed by user-input placeholder: args then
// kwargs, tensors in pytree order, matched to the signature's user inputs in order. Errors:
// Invalid when the archive has none or their count differs from the user inputs; Unsupported
// when the entry declares more than 2 GiB (the file cap; refused before it is read); the
// torch.save gate's errors for its pickle (naming the entry).
Result<std::shared_ptr<exec::ValueStore>> loadExportSampleInputs(const model::ExportedProgram& program);

} // namespace fxs::exported
