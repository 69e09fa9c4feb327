// Turns one TORCH_TRACE record (envelope + verified payload) into model::Run data: graph
// artifacts, cache lookups, text artifacts, chromium events, metrics, counts. Internal to
// core/io; the line-level work (splitting, MD5) is torch_trace_reader's.
#pragma once

#include "core/io/dynamo_record_decoder.h"
#include "core/io/payload_decoder.h"
#include "core/io/payload_reader.h"
#include "core/io/torch_trace_reader.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace fxs::io::detail {

struct Record {
    const Envelope& env;
    const Payload& payload;
    int line = 0;          // the envelope's line
    bool checksumOk = true; // the payload matched has_payload (or was not checked)
};

class RecordSink {
public:
    // source: the buffer the records' payloads lie in, shared with graphs kept for parsing on
    // demand; null when the caller's data is not owned (such graphs then copy their payload).
    RecordSink(const std::string& file, const TraceReadOptions& options, model::Run& run,
               Diagnostics& diagnostics, std::shared_ptr<const std::string> source = {});
    // payloadBuffer: the PayloadReader buffer behind record.payload (padded for simdjson).
    void add(const Record& record, const std::string& payloadBuffer);
    // Call once after the last record of the file.
    void finish();
    // The torch._dynamo.reset() session of the records that follow: given to the compile ids
    // read from payloads (metrics, chromium events, cache events), as the reader gives it to
    // the envelopes' ids.
    // The chromium events logged since the last other record that name `started` (PyTorch
    // opens a compile's "dynamo" event just before its dynamo_start) move to the new session.
    void setSession(int session, const model::CompileId& started);

private:
    void addGraph(const Record& r, const std::string& kind);
    void addText(const Record& r, const std::string& kind);
    void addArtifact(const Record& r, const std::string& buffer);
    void addCacheLookup(const Record& r, const std::string& buffer);
    void addChromiumEvent(const Record& r, const std::string& buffer);
    void addMetrics(const Record& r);
    bool addDynamoRecord(const Record& r);
    void addTensorSource(const Record& r);
    void addLink(const Record& r);
    void addRecompileReasons(const Record& r);
    void addGraphBreak(const Record& r);
    model::RecordOrigin originOf(const Record& r) const;
    model::PayloadRef payloadRef(const Record& r) const;
    void addDisabledFromEvent(const Record& r, const model::ChromiumEvent& event);
    void report(int line, const std::vector<DecodeProblem>& problems);

    const std::string& m_file;
    const TraceReadOptions& m_options;
    model::Run& m_run;
    Diagnostics& m_diagnostics;
    std::shared_ptr<const std::string> m_source;
    PayloadDecoder m_decoder;
    DynamoRecordDecoder m_dynamo;
    bool m_sawDisabledArtifact = false;
    int m_session = 0;
    int m_lastOtherLine = 0; // the line of the last record that was not a chromium event
    std::map<std::pair<int, int>, std::int64_t> m_storageBytes; // (describer, storage) -> bytes
};

// Graph code sniffing shared with the loader: "class X(torch.nn.Module):", "def forward",
// "GraphModule()" at the start (after blank lines).
bool looksLikeGraphCode(std::string_view text);

} // namespace fxs::io::detail
