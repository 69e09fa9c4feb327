#include "core/io/trace_envelope.h"

#include <simdjson.h>

#include <cstring>

namespace fxs::io::detail {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Skips the run of characters accepted by pred starting at i; returns the new index.
template <class Pred>
std::size_t skipWhile(std::string_view s, std::size_t i, Pred pred)
{
    while (i < s.size() && pred(s[i])) {
        ++i;
    }
    return i;
}

} // namespace

std::size_t glogPrefixLength(std::string_view line)
{
    // "V1122 01:21:31.065000 434 torch/_dynamo/output_graph.py:2423] "
    if (line.size() < 8 || std::strchr("VIWEC", line[0]) == nullptr || line[0] == '\0') {
        return 0;
    }
    std::size_t i = 1;
    const std::size_t dateEnd = skipWhile(line, i, isDigit);
    if (dateEnd - i != 4 || dateEnd >= line.size() || line[dateEnd] != ' ') {
        return 0;
    }
    i = dateEnd + 1;
    const std::size_t timeEnd =
        skipWhile(line, i, [](char c) { return isDigit(c) || c == ':' || c == '.'; });
    if (timeEnd == i || timeEnd >= line.size() || line[timeEnd] != ' ') {
        return 0;
    }
    i = skipWhile(line, timeEnd, [](char c) { return c == ' '; });
    const std::size_t threadEnd = skipWhile(line, i, isDigit);
    if (threadEnd == i || threadEnd >= line.size() || line[threadEnd] != ' ') {
        return 0;
    }
    // The source location "path:line" ends at the first "] ".
    const std::size_t close = line.find("] ", threadEnd + 1);
    if (close == std::string_view::npos || close == threadEnd + 1) {
        return 0;
    }
    return close + 2;
}

std::string_view LineCursor::peek() const
{
    const char* begin = m_data.data() + m_pos;
    const std::size_t left = m_data.size() - m_pos;
    const void* nl = std::memchr(begin, '\n', left);
    std::size_t length =
        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - begin) : left;
    // A log copied through Windows ends its lines with "\r\n": the '\r' is no part of the line
    // (tlparse reads lines the same way), so envelopes parse and payload MD5s match.
    if (length > 0 && begin[length - 1] == '\r') {
        --length;
    }
    return {begin, length};
}

std::string_view LineCursor::advance(std::string_view line)
{
    m_pos += line.size();
    if (m_pos < m_data.size() && m_data[m_pos] == '\r') {
        ++m_pos; // the '\r' peek() left out
    }
    m_unterminated = m_pos >= m_data.size();
    if (!m_unterminated) {
        ++m_pos; // the '\n'
    }
    ++m_line;
    return line;
}

void Envelope::clear()
{
    kind.clear();
    compileId = {};
    rank = -1;
    hasPayload = false;
    payloadHex.clear();
    payloadMd5Valid = false;
    artifactName.clear();
    artifactEncoding.clear();
    filename.clear();
    metadataJson.clear();
    strValue.clear();
    strId = -1;
    extraKinds = 0;
}

bool isMetricsKind(std::string_view kind)
{
    return kind == "compilation_metrics" || kind == "bwd_compilation_metrics" ||
           (kind.size() > 8 && kind.substr(kind.size() - 8) == "_runtime");
}

bool isExportIssueKind(std::string_view kind)
{
    return kind == "propagate_real_tensors_provenance" || kind == "missing_fake_kernel" ||
           kind == "mismatched_fake_kernel";
}

bool keepsMetadataJson(std::string_view kind)
{
    return isMetricsKind(kind) || kind == "create_symbol" || kind == "guard_added_fast" ||
           kind == "guard_added" || kind == "describe_tensor" || kind == "describe_source" ||
           kind == "dynamo_start" || kind == "describe_storage" || kind == "link" ||
           isExportIssueKind(kind);
}

namespace {

using simdjson::ondemand::value;

bool readInt(value v, int& out)
{
    std::int64_t i = 0;
    if (v.get_int64().get(i) != simdjson::SUCCESS || i < INT32_MIN || i > INT32_MAX) {
        return false;
    }
    out = static_cast<int>(i);
    return true;
}

void readString(value v, std::string& out)
{
    std::string_view s;
    if (v.get_string().get(s) == simdjson::SUCCESS) {
        out.assign(s);
    }
}

// artifact: {"name": ..., "encoding": ...}; inductor_output_code: {"filename": ...}.
bool readKindObject(value v, Envelope& env)
{
    simdjson::ondemand::object obj;
    if (v.get_object().get(obj) != simdjson::SUCCESS) {
        return false;
    }
    for (auto field : obj) {
        std::string_view key;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS) {
            return false;
        }
        if (key == "name") {
            readString(field.value(), env.artifactName);
        } else if (key == "encoding") {
            readString(field.value(), env.artifactEncoding);
        } else if (key == "filename") {
            readString(field.value(), env.filename);
        }
    }
    return true;
}

// str: ["path", id]
bool readStr(value v, Envelope& env)
{
    simdjson::ondemand::array arr;
    if (v.get_array().get(arr) != simdjson::SUCCESS) {
        return false;
    }
    int index = 0;
    for (auto element : arr) {
        value item;
        if (element.get(item) != simdjson::SUCCESS) {
            return false;
        }
        if (index == 0) {
            readString(item, env.strValue);
        } else if (index == 1 && !readInt(item, env.strId)) {
            return false;
        }
        ++index;
    }
    return true;
}

bool readKindValue(value v, Envelope& env)
{
    if (env.kind == "artifact" || env.kind == "inductor_output_code") {
        return readKindObject(v, env);
    }
    if (env.kind == "str") {
        return readStr(v, env);
    }
    if (keepsMetadataJson(env.kind)) {
        std::string_view raw;
        simdjson::ondemand::object obj;
        if (v.get_object().get(obj) == simdjson::SUCCESS &&
            obj.raw_json().get(raw) == simdjson::SUCCESS) {
            env.metadataJson.assign(raw);
        }
    }
    return true; // other kinds' metadata is skipped unread
}

} // namespace

struct EnvelopeParser::Impl {
    simdjson::ondemand::parser parser;
    std::string scratch;
};

EnvelopeParser::EnvelopeParser() : m_impl(std::make_unique<Impl>()) {}
EnvelopeParser::~EnvelopeParser() = default;

namespace {

bool readField(std::string_view key, value v, Envelope& env)
{
    int id = 0;
    if (key == "frame_id") {
        return readInt(v, env.compileId.frameId);
    }
    if (key == "frame_compile_id") {
        return readInt(v, env.compileId.frameCompileId);
    }
    if (key == "attempt") {
        return readInt(v, env.compileId.attempt);
    }
    if (key == "compiled_autograd_id") {
        bool isNull = false;
        if (v.is_null().get(isNull) == simdjson::SUCCESS && isNull) {
            return true;
        }
        if (!readInt(v, id)) {
            return false;
        }
        env.compileId.compiledAutogradId = id;
        return true;
    }
    if (key == "rank") {
        return readInt(v, env.rank);
    }
    if (key == "has_payload") {
        readString(v, env.payloadHex);
        env.hasPayload = true;
        env.payloadMd5Valid = parseMd5Hex(env.payloadHex, env.payloadMd5);
        return true;
    }
    if (!env.kind.empty()) {
        ++env.extraKinds;
        return true;
    }
    env.kind.assign(key);
    return readKindValue(v, env);
}

} // namespace

bool EnvelopeParser::parse(std::string_view json, Envelope& out, std::string& error)
{
    out.clear();
    // simdjson reads up to SIMDJSON_PADDING bytes past the end: copy into a padded buffer.
    std::string& buf = m_impl->scratch;
    buf.assign(json);
    buf.reserve(json.size() + simdjson::SIMDJSON_PADDING);
    simdjson::ondemand::document doc;
    simdjson::ondemand::object obj;
    if (m_impl->parser.iterate(buf.data(), buf.size(), buf.capacity()).get(doc) !=
            simdjson::SUCCESS ||
        doc.get_object().get(obj) != simdjson::SUCCESS) {
        error = "not a JSON object";
        return false;
    }
    for (auto field : obj) {
        std::string_view key;
        value v;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS ||
            field.value().get(v) != simdjson::SUCCESS) {
            error = "malformed JSON";
            return false;
        }
        if (!readField(key, v, out)) {
            error = "unexpected value for \"" + std::string(key) + "\"";
            return false;
        }
    }
    const char* trailing = nullptr;
    if (doc.current_location().get(trailing) == simdjson::SUCCESS) { // not at the end
        error = "text after the JSON object";
        return false;
    }
    if (out.kind.empty()) {
        error = "no kind key";
        return false;
    }
    if (out.compileId.frameId < 0 || out.compileId.frameCompileId < 0) {
        out.compileId.frameId = out.compileId.frameCompileId = -1;
    }
    return true;
}

} // namespace fxs::io::detail
