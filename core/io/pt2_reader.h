// Opens a torch.export `.pt2` archive (torch.export.save; PyTorch 2.6–2.11) without LibTorch:
// finds the serialized program (`<root>/models/<name>.json`, or `serialized_exported_program
// .json` of archives before 2.8), reads it (export_program_reader) and indexes the weights and
// constants (raw byte files with a config, or torch.save pickles) without reading them:
// exec/export_weights loads them when a graph runs. Missing or damaged pieces are errors that
// name the entry; the graph is kept whenever it could be read.
#pragma once

#include "core/graph/graph.h"
#include "core/model/exported_program.h"
#include "core/util/diagnostics.h"
#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <string>

namespace fxs::io {

inline constexpr std::uint64_t kMaxProgramJsonBytes = 1ull << 30; // 1 GiB

struct Pt2ReadResult {
    graph::GraphPtr graph; // null when the program could not be read at all
    std::shared_ptr<const model::ExportedProgram> program;
    Diagnostics diagnostics; // where = "archive!entry"
    std::string programText; // the program's JSON as stored (what projects and plans digest)
};

// True when path is a zip that holds a torch.export program (or is named *.pt2 and starts
// like a zip, so that a damaged archive is still reported as one). Cheap; never throws.
bool looksLikePt2(const std::string& path);

// Errors: Io (unreadable file), Parse (not a zip or a damaged one; no program in it).
// Everything else (unknown schema version, unreadable nodes, missing weight entries) is in
// the result's diagnostics. Never throws.
Result<Pt2ReadResult> readPt2(const std::string& path);
// The same for an archive in memory (tests); label stands for its path.
Result<Pt2ReadResult> readPt2Bytes(std::string bytes, const std::string& label);

} // namespace fxs::io
