// The record layer of a TORCH_TRACE log: glog prefixes, line iteration and the JSON envelope
// of each record (kind, compile ids, rank, has_payload and the little metadata fxscope uses).
// Internal to core/io (the torch_trace_reader uses it); not an API for other importers.
#pragma once

#include "core/model/compile_id.h"
#include "core/util/digest.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace fxs::io::detail {

// Length of a glog prefix "<L><MMDD> <HH:MM:SS.micro> <thread> <path>:<line>] " at the start of
// line, or 0 when the line does not start with one. L is one of V I W E C.
std::size_t glogPrefixLength(std::string_view line);

// Walks a buffer line by line with memchr; no allocation. Lines exclude their '\n' and a '\r'
// before it (or before the end of the data).
class LineCursor {
public:
    explicit LineCursor(std::string_view data) : m_data(data) {}
    bool atEnd() const { return m_pos >= m_data.size(); }
    // The next line without consuming it; valid only when !atEnd().
    std::string_view peek() const;
    // Consumes and returns the next line; lineNumber() then names it (1-based).
    std::string_view next() { return advance(peek()); }
    // Consumes the line peek() just returned, without scanning for its end again.
    std::string_view advance(std::string_view peeked);
    int lineNumber() const { return m_line; }
    std::size_t offset() const { return m_pos; }
    std::string_view data() const { return m_data; }
    // True when the last line returned by next() was cut off (no '\n' at the end of data).
    bool lastLineUnterminated() const { return m_unterminated; }

private:
    std::string_view m_data;
    std::size_t m_pos = 0;
    int m_line = 0;
    bool m_unterminated = false;
};

// What fxscope reads from one envelope. Reused between lines, so its strings keep capacity.
struct Envelope {
    std::string kind;            // the one non-id key: "dynamo_output_graph", "artifact", ...
    model::CompileId compileId;  // valid when frame_id and frame_compile_id were present
    int rank = -1;
    bool hasPayload = false;
    std::string payloadHex;      // has_payload as written
    bool payloadMd5Valid = false; // payloadHex is 32 hex digits
    Md5 payloadMd5{};
    std::string artifactName;    // artifact: name
    std::string artifactEncoding; // artifact: encoding ("string", "json")
    std::string filename;        // inductor_output_code: filename
    std::string metadataJson;    // the kind's value as JSON text (keepsMetadataJson kinds only)
    std::string strValue;        // str: the interned string
    int strId = -1;              // str: its id
    int extraKinds = 0;          // further non-id keys (unexpected; first one wins)

    void clear();
};

// Compilation metrics kinds (compilation_metrics, bwd_compilation_metrics, *_runtime).
bool isMetricsKind(std::string_view kind);
// torch.export's records of what it could not keep general (propagate_real_tensors_provenance,
// missing_fake_kernel, mismatched_fake_kernel).
bool isExportIssueKind(std::string_view kind);
// Kinds whose value is kept as JSON text for the record sink: metrics and the Dynamo records
// (create_symbol, guard_added(_fast), describe_tensor/_source/_storage, dynamo_start), link and
// the export issue kinds.
bool keepsMetadataJson(std::string_view kind);

// Parses envelope JSON with simdjson On Demand. Holds the parser and a padded scratch buffer,
// so one instance per thread, reused for every line.
class EnvelopeParser {
public:
    EnvelopeParser();
    ~EnvelopeParser();
    EnvelopeParser(const EnvelopeParser&) = delete;
    EnvelopeParser& operator=(const EnvelopeParser&) = delete;

    // False with a short reason in error when json is not an envelope object.
    bool parse(std::string_view json, Envelope& out, std::string& error);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs::io::detail
