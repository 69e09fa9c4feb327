// The torch-free half of the one gate that every torch.save file passes before LibTorch's
// unpickler sees it (`run --inputs`, a `.pt2`'s sample inputs and pickled weights; the other
// half, exec/torch_save.h, checks the tensors it built): the zip opened by libzip (regular
// files only, nothing that could block), every entry's declared size and their sum under a cap
// before anything is read, data.pkl scanned for the faults LibTorch's unpickler does not
// survive (pickle_scan.h), storage records read on demand against the same running total.
// Not an unpickler. TorchScript archives (.pt modules) have their own check
// (torchscript/archive_check.h), which scans their pickles with the same scanner.
#pragma once

#include "core/util/file_reader.h"
#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <string>

namespace fxs {

struct TorchSaveLimits {
    // What all of an archive's entries may declare together, and what its records may take
    // once read (a record read twice counts twice). `run --inputs` and sample inputs use the
    // file cap (2 GiB); a `.pt2`'s pickled weights their own (export_weights.cpp).
    std::uint64_t maxTotalBytes = kDefaultMaxFileBytes;
};

class TorchSaveArchive {
public:
    // Errors (where = path, or "path!entry"): Io (unreadable, not a regular file: a FIFO is
    // refused by name at once), Parse (not a zip, no `<root>/data.pkl`, an unreadable version
    // record, a pickle fault: findPickleFault's description with its byte offset),
    // Unsupported (an entry, or all of them together, declare more than
    // limits.maxTotalBytes: named with its declared size and the cap, before anything is
    // allocated).
    static Result<TorchSaveArchive> open(const std::string& path, TorchSaveLimits limits = {});
    // The same for an archive in memory (an entry of a `.pt2`); label stands for its path.
    static Result<TorchSaveArchive> fromBytes(std::string bytes, std::string label,
                                              TorchSaveLimits limits = {});

    TorchSaveArchive(TorchSaveArchive&&) noexcept;
    TorchSaveArchive& operator=(TorchSaveArchive&&) noexcept;
    ~TorchSaveArchive();

    const std::string& label() const;
    // The pickle (data.pkl), already scanned.
    const std::string& pickle() const;
    // The archive's format version (the `version` record).
    std::uint64_t version() const;
    const TorchSaveLimits& limits() const;
    // Storage record `key` (`<root>/data/<key>`). Errors: Invalid when the archive has no
    // such record (the pickle names a storage that is not there), Unsupported when reading it
    // would take what was read past limits.maxTotalBytes, the entry's read errors.
    Result<std::string> readRecord(const std::string& key);

private:
    struct Impl;
    explicit TorchSaveArchive(std::unique_ptr<Impl> impl);
    static Result<TorchSaveArchive> check(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs
