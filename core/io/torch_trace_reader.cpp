#include "core/io/torch_trace_reader.h"

#include "core/io/graph_code_parser.h"
#include "core/io/payload_reader.h"
#include "core/io/trace_envelope.h"
#include "core/io/trace_record_sink.h"
#include "core/util/file_reader.h"
#include "core/util/gzip.h"

#include <algorithm>
#include <exception>

namespace fxs::io {

using detail::Envelope;
using detail::LineCursor;
using detail::Payload;

namespace {

// Above this many unreadable lines in one file, the rest are summarised in one diagnostic.
constexpr int kMaxBadLineDiagnostics = 20;

class FileReader {
public:
    FileReader(std::string_view data, const std::string& file, const TraceReadOptions& options,
               TraceReadResult& result, std::shared_ptr<const std::string> source)
        : m_cursor(data), m_file(file), m_options(options), m_result(result),
          m_sink(file, options, result.run, result.diagnostics, std::move(source))
    {
    }

    void read(const CancelToken& cancel);

private:
    void readRecord(std::string_view line);
    void checkPayload(const Payload& payload, int line, bool& checksumOk);
    void badLine(std::string message, std::string expected, std::string_view found);
    void skipPayload();

    LineCursor m_cursor;
    const std::string& m_file;
    const TraceReadOptions& m_options;
    TraceReadResult& m_result;
    detail::RecordSink m_sink;
    detail::EnvelopeParser m_parser;
    detail::PayloadReader m_payloads;
    Envelope m_env;
    std::string m_error;
    int m_badLines = 0;
};

void FileReader::read(const CancelToken& cancel)
{
    int records = 0;
    while (!m_cursor.atEnd()) {
        if ((++records & 255) == 0 && cancel.isCancelled()) {
            m_result.diagnostics.warning(m_file, m_cursor.lineNumber() + 1,
                                         "reading cancelled; the rest of the file was skipped");
            break;
        }
        const std::string_view line = m_cursor.next();
        if (!line.empty() && line[0] == '\t') {
            badLine("payload line without an envelope before it", "a glog line", line);
            skipPayload();
            continue;
        }
        readRecord(line);
    }
    if (m_cursor.lastLineUnterminated()) {
        m_result.diagnostics.warning(m_file, m_cursor.lineNumber(),
                                     "the file does not end with a newline (truncated?)");
    }
    if (m_badLines > kMaxBadLineDiagnostics) {
        m_result.diagnostics.error(m_file, 0,
                                   std::to_string(m_badLines - kMaxBadLineDiagnostics) +
                                       " further unreadable lines were not listed");
    }
    m_sink.finish();
}

void FileReader::badLine(std::string message, std::string expected, std::string_view found)
{
    if (++m_badLines <= kMaxBadLineDiagnostics) {
        m_result.diagnostics.error(m_file, m_cursor.lineNumber(), std::move(message),
                                   std::move(expected), abbreviate(found));
    }
}

void FileReader::skipPayload()
{
    while (!m_cursor.atEnd()) {
        const std::string_view next = m_cursor.peek();
        if (next.empty() || next[0] != '\t') {
            return;
        }
        m_cursor.next();
    }
}

void FileReader::readRecord(std::string_view line)
{
    const int lineNo = m_cursor.lineNumber();
    const std::size_t prefix = detail::glogPrefixLength(line);
    if (prefix == 0) {
        badLine(line.empty() ? "empty line" : "line is neither a log record nor a payload line",
                "\"<L><MMDD> <time> <thread> <file>:<line>] {...}\" or a TAB-indented payload",
                line);
        return;
    }
    std::string_view json = line.substr(prefix);
    if (!json.empty() && json.back() == '\r') {
        json.remove_suffix(1);
    }
    if (!m_parser.parse(json, m_env, m_error)) {
        badLine("envelope is not valid (" + m_error + ")", "a JSON object with one kind key",
                json);
        skipPayload(); // its payload cannot be interpreted without the envelope
        return;
    }
    const Payload payload = m_payloads.read(m_cursor);
    bool checksumOk = true;
    checkPayload(payload, lineNo, checksumOk);
    m_result.readSomething = true;
    m_sink.add({m_env, payload, lineNo, checksumOk}, m_payloads.buffer());
}

void FileReader::checkPayload(const Payload& payload, int line, bool& checksumOk)
{
    auto& run = m_result.run;
    auto& diags = m_result.diagnostics;
    if (payload.truncated) {
        diags.error(m_file, m_cursor.lineNumber(), "the file ends inside a payload (truncated?)",
                    "a payload line ending in a newline", "end of file");
    }
    if (!m_env.hasPayload) {
        if (payload.lineCount > 0) {
            diags.warning(m_file, payload.firstLine,
                          "payload lines after an envelope without has_payload; kept unchecked");
        }
        return;
    }
    ++run.payloads;
    if (!m_options.verifyPayloads) {
        return;
    }
    const auto check = detail::verifyPayload(m_env, payload.text);
    if (check.ok) {
        ++run.payloadsVerified;
        return;
    }
    checksumOk = false;
    ++run.payloadMismatches;
    const std::string what = payload.lineCount == 0 ? "payload is missing (MD5 of no text)"
                                                    : "payload MD5 does not match has_payload";
    diags.error(m_file, line, what + "; payload kept but flagged", m_env.payloadHex,
                check.foundHex);
}

void mergeRun(model::Run& into, model::Run&& from)
{
    auto move = [](auto& dst, auto& src) {
        dst.insert(dst.end(), std::make_move_iterator(src.begin()),
                   std::make_move_iterator(src.end()));
    };
    for (auto& l : from.lookups) {
        l.run = into.path;
    }
    move(into.files, from.files);
    move(into.graphs, from.graphs);
    move(into.lookups, from.lookups);
    move(into.texts, from.texts);
    move(into.events, from.events);
    move(into.metrics, from.metrics);
    move(into.recompileReasons, from.recompileReasons);
    move(into.graphBreaks, from.graphBreaks);
    move(into.symbols, from.symbols);
    move(into.shapeGuards, from.shapeGuards);
    move(into.tensors, from.tensors);
    move(into.dynamoStarts, from.dynamoStarts);
    for (const auto& [k, n] : from.kindCounts) {
        into.kindCounts[k] += n;
    }
    for (const auto& [k, n] : from.unknownKinds) {
        into.unknownKinds[k] += n;
    }
    for (const auto& [k, n] : from.artifactCounts) {
        into.artifactCounts[k] += n;
    }
    into.internedStrings.merge(from.internedStrings);
    into.payloads += from.payloads;
    into.payloadsVerified += from.payloadsVerified;
    into.payloadMismatches += from.payloadMismatches;
    into.bytes += from.bytes;
}

TraceReadResult readDirectory(const std::string& dir, const TraceReadOptions& options,
                              const CancelToken& cancel, const ProgressSink& progress)
{
    TraceReadResult result;
    result.run.path = dir;
    auto files = listFiles(dir);
    if (!files.ok()) {
        result.diagnostics.error(dir, 0, files.error().message, "a readable directory",
                                 files.error().found);
        return result;
    }
    if (files->empty()) {
        result.diagnostics.error(dir, 0, "the directory holds no log files",
                                 "one TORCH_TRACE log per rank", "no regular files");
        return result;
    }
    for (std::size_t i = 0; i < files->size() && !cancel.isCancelled(); ++i) {
        reportProgress(progress, double(i) / double(files->size()), "reading TORCH_TRACE logs");
        auto one = readTorchTracePath((*files)[i], options, cancel, {});
        result.diagnostics.append(one.diagnostics);
        result.readSomething = result.readSomething || one.readSomething;
        mergeRun(result.run, std::move(one.run));
    }
    reportProgress(progress, 1.0, "reading TORCH_TRACE logs");
    return result;
}

TraceReadResult readOne(std::string_view data, std::shared_ptr<const std::string> source,
                        const std::string& path, const TraceReadOptions& options,
                        const CancelToken& cancel)
{
    TraceReadResult result;
    result.run.path = path;
    result.run.files.push_back(path);
    result.run.bytes = data.size();
    try {
        if (data.empty()) {
            result.diagnostics.error(path, 0, "the file is empty", "TORCH_TRACE log lines",
                                     "0 bytes");
            return result;
        }
        FileReader(data, path, options, result, std::move(source)).read(cancel);
    } catch (const std::exception& e) {
        // Allocation failures and the like: keep what was read.
        result.diagnostics.error(path, 0, std::string("internal error while reading: ") + e.what());
    }
    return result;
}

} // namespace

TraceReadResult readTorchTrace(std::string_view data, const std::string& path,
                               const TraceReadOptions& options, const CancelToken& cancel)
{
    return readOne(data, nullptr, path, options, cancel);
}

TraceReadResult readTorchTrace(std::shared_ptr<const std::string> data, const std::string& path,
                               const TraceReadOptions& options, const CancelToken& cancel)
{
    const std::string_view view = data ? std::string_view(*data) : std::string_view();
    return readOne(view, std::move(data), path, options, cancel);
}

TraceReadResult readTorchTracePath(const std::string& path, const TraceReadOptions& options,
                                   const CancelToken& cancel, const ProgressSink& progress)
{
    if (isDirectory(path)) {
        return readDirectory(path, options, cancel, progress);
    }
    Diagnostics readProblems;
    auto data = readTraceFile(path, readProblems);
    if (!data) {
        TraceReadResult result;
        result.run.path = path;
        result.diagnostics = std::move(readProblems);
        return result;
    }
    reportProgress(progress, 0.0, "reading TORCH_TRACE log");
    auto result =
        readTorchTrace(std::make_shared<const std::string>(std::move(*data)), path, options, cancel);
    readProblems.append(result.diagnostics);
    result.diagnostics = std::move(readProblems);
    reportProgress(progress, 1.0, "reading TORCH_TRACE log");
    return result;
}

std::optional<std::string> readTraceFile(const std::string& path, Diagnostics& diagnostics)
{
    auto data = readFile(path);
    if (data.ok()) {
        return std::move(*data);
    }
    const Error& e = data.error();
    if (e.code == ErrorCode::Parse) {
        ReadOptions compressed;
        compressed.inflateGzip = false;
        auto bytes = readFile(path, compressed);
        auto head = bytes.ok() && isGzip(*bytes)
                        ? gunzip(*bytes, path, kDefaultMaxFileBytes, GunzipMode::Head)
                        : Result<std::string>(makeError(ErrorCode::Parse, e.message));
        const auto lastLine = head.ok() ? head->rfind('\n') : std::string::npos;
        if (lastLine != std::string::npos) {
            head->resize(lastLine + 1);
            const auto lines = std::count(head->begin(), head->end(), '\n');
            diagnostics.error(path, 0,
                              e.message + "; kept the " + std::to_string(lines) +
                                  " lines before the damage",
                              "a complete gzip stream", e.found);
            return std::move(*head);
        }
    }
    diagnostics.error(path, 0, e.message, "a readable file", e.found);
    return std::nullopt;
}

std::shared_ptr<const model::DeferredGraph> deferParse(const model::PayloadRef& code,
                                                       const std::string& file)
{
    return std::make_shared<const model::DeferredGraph>([code, file] {
        auto parsed = parseGraphCode(code.text(), file, code.firstLine);
        return model::DeferredGraph::Parsed{std::move(parsed.graph), parsed.statements,
                                            parsed.unparsedLines, std::move(parsed.diagnostics)};
    });
}

void ensureGraph(model::GraphArtifact& artifact, Diagnostics& diagnostics)
{
    if (artifact.graph || (!artifact.deferred && artifact.code.empty())) {
        return;
    }
    const auto deferred =
        artifact.deferred ? artifact.deferred : deferParse(artifact.code, artifact.file);
    const auto& parsed = deferred->get();
    artifact.graph = parsed.graph;
    artifact.statements = parsed.statements;
    artifact.unparsedLines = parsed.unparsedLines;
    diagnostics.append(parsed.diagnostics);
    artifact.deferred.reset(); // parsed: the artifact now holds the result itself
}

bool looksLikeTorchTrace(std::string_view data)
{
    const auto nl = data.find('\n');
    const std::string_view first = data.substr(0, nl);
    const std::size_t prefix = detail::glogPrefixLength(first);
    return prefix > 0 && prefix < first.size() && first[prefix] == '{';
}

} // namespace fxs::io
