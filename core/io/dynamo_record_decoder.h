// Decodes the TORCH_TRACE records that say what Dynamo did besides graphs and cache lookups:
// create_symbol, guard_added(_fast), describe_tensor/describe_source and dynamo_start
// (JSON in the envelope), recompile_reasons and dynamo_graph_break_reason (payload text).
// Internal to core/io; the record sink fills the records' origins (file, line, ids).
#pragma once

#include "core/io/payload_decoder.h"
#include "core/model/dynamo_records.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::io::detail {

// A log's interned strings ("str" records): stack frames name their file by id.
using InternedStrings = std::map<int, std::string>;

class DynamoRecordDecoder {
public:
    DynamoRecordDecoder();
    ~DynamoRecordDecoder();
    DynamoRecordDecoder(const DynamoRecordDecoder&) = delete;
    DynamoRecordDecoder& operator=(const DynamoRecordDecoder&) = delete;

    // Each takes the kind's JSON object as written in the envelope. False (with a problem)
    // when it is not an object; fields of the wrong type are problems and stay empty.
    bool decodeSymbol(std::string_view json, const InternedStrings& strings,
                      model::SymbolRecord& out, std::vector<DecodeProblem>& problems);
    bool decodeShapeGuard(std::string_view json, const InternedStrings& strings,
                          model::ShapeGuardRecord& out, std::vector<DecodeProblem>& problems);
    bool decodeTensor(std::string_view json, model::TensorRecord& out,
                      std::vector<DecodeProblem>& problems);
    // describe_source: {"describer_id", "id", "source"}.
    bool decodeTensorSource(std::string_view json, int& describerId, int& id,
                            std::string& source, std::vector<DecodeProblem>& problems);
    // describe_storage: {"id", "describer_id", "size"} (bytes).
    bool decodeStorage(std::string_view json, int& describerId, int& id, std::int64_t& size,
                       std::vector<DecodeProblem>& problems);
    // propagate_real_tensors_provenance, missing_fake_kernel, mismatched_fake_kernel.
    bool decodeExportIssue(std::string_view json, const InternedStrings& strings,
                           model::ExportIssueRecord& out, std::vector<DecodeProblem>& problems);
    // link: {"name", "url"}.
    bool decodeLink(std::string_view json, std::string& name, std::string& url,
                    std::vector<DecodeProblem>& problems);
    bool decodeDynamoStart(std::string_view json, const InternedStrings& strings,
                           model::DynamoStartRecord& out, std::vector<DecodeProblem>& problems);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// recompile_reasons payload: a JSON list of strings, or (PyTorch 2.11 with one reason) the
// reason as plain text. Blank lines are dropped.
std::vector<std::string> parseRecompileReasons(std::string_view payload);

// dynamo_graph_break_reason payload: fills out's text, reason, explanation, hints, atFile/atLine
// and userStack from the text PyTorch writes ("Graph break in user code at F:L", "Graph Break
// Reason: ...", "User code traceback:" with `File "F", line L, in fn` + code lines).
void parseGraphBreakReason(std::string_view payload, model::GraphBreakRecord& out);

} // namespace fxs::io::detail
