#include "core/io/torch_trace_reader.h"

#include "core/io/directory_plan.h"
#include "core/io/graph_code_parser.h"
#include "core/io/payload_reader.h"
#include "core/io/run_merge.h"
#include "core/io/trace_envelope.h"
#include "core/io/trace_record_sink.h"
#include "core/util/file_reader.h"
#include "core/util/gzip.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <set>
#include <thread>

namespace fxs::io {

using detail::Envelope;
using detail::mergeRun;
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
    void applyFileRank(int line);
    void applySession();

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
    int m_blankLines = 0;
    bool m_rankConflictReported = false;
    int m_session = 0;                   // torch._dynamo.reset() calls seen so far
    std::set<model::CompileId> m_started; // compile ids Dynamo started in this session
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
    // A file without a final newline is not cut by itself: its last envelope parsed, or its
    // last payload's MD5 matched (checkPayload says when it did not).
    if (m_blankLines > 0) {
        m_result.diagnostics.note(m_file, 0,
                                  std::to_string(m_blankLines) +
                                      " blank line(s) without a TAB dropped, as tlparse does");
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

void FileReader::applyFileRank(int line)
{
    const int fileRank = m_options.fileRank;
    if (fileRank < 0) {
        return;
    }
    if (m_env.rank >= 0 && m_env.rank != fileRank && !m_rankConflictReported) {
        m_rankConflictReported = true;
        m_result.diagnostics.warning(
            m_file, line,
            "the envelope says rank " + std::to_string(m_env.rank) +
                " but the file name says rank " + std::to_string(fileRank) +
                "; using the file name's rank " + std::to_string(fileRank) +
                " for every record of the file");
    }
    m_env.rank = fileRank;
}

// After torch._dynamo.reset() PyTorch counts frames from 0 again: a dynamo_start of a compile
// id already started (same attempt) begins a new session, and the compiles after it are others.
void FileReader::applySession()
{
    if (m_env.kind == "dynamo_start" && m_env.compileId.valid() &&
        !m_started.insert(m_env.compileId).second) {
        ++m_session;
        m_started = {m_env.compileId};
        m_sink.setSession(m_session, m_env.compileId);
    }
    if (m_env.compileId.valid()) {
        m_env.compileId.session = m_session;
    }
}

void FileReader::readRecord(std::string_view line)
{
    const int lineNo = m_cursor.lineNumber();
    if (line.empty()) {
        ++m_blankLines; // logging that stutters; tlparse drops them too
        return;
    }
    const std::size_t prefix = detail::glogPrefixLength(line);
    if (prefix == 0) {
        badLine("line is neither a log record nor a payload line",
                "\"<L><MMDD> <time> <thread> <file>:<line>] {...}\" or a TAB-indented payload",
                line);
        return;
    }
    const std::string_view json = line.substr(prefix);
    if (!m_parser.parse(json, m_env, m_error)) {
        badLine("envelope is not valid (" + m_error + ")", "a JSON object with one kind key",
                json);
        skipPayload(); // its payload cannot be interpreted without the envelope
        return;
    }
    applyFileRank(lineNo);
    applySession();
    const Payload payload = m_payloads.read(m_cursor);
    m_blankLines += payload.droppedBlankLines;
    bool checksumOk = true;
    checkPayload(payload, lineNo, checksumOk);
    m_result.readSomething = true;
    m_sink.add({m_env, payload, lineNo, checksumOk}, m_payloads.buffer());
}

void FileReader::checkPayload(const Payload& payload, int line, bool& checksumOk)
{
    auto& run = m_result.run;
    auto& diags = m_result.diagnostics;
    if (!m_env.hasPayload) {
        if (payload.lineCount > 0) {
            diags.warning(m_file, payload.firstLine,
                          "payload lines after an envelope without has_payload; kept unchecked");
        }
        if (payload.truncated) {
            diags.warning(m_file, m_cursor.lineNumber(),
                          "the file ends inside an unchecked payload (truncated?)");
        }
        return;
    }
    ++run.payloads;
    if (!m_options.verifyPayloads) {
        return;
    }
    auto check = detail::verifyPayload(m_env, payload.text);
    if (!check.ok && payload.droppedBlankLines > 0) {
        // The blank lines may have been the payload's own (written without their TAB).
        const auto kept = detail::verifyPayload(
            m_env, detail::payloadWithBlankLines(m_cursor.data(), payload));
        check.ok = kept.ok;
    }
    if (check.ok) {
        ++run.payloadsVerified;
        return; // complete, even when the file ends without a newline right after it
    }
    checksumOk = false;
    ++run.payloadMismatches;
    if (payload.truncated) {
        diags.error(m_file, m_cursor.lineNumber(),
                    "the file ends inside a payload (truncated?); its MD5 does not match",
                    m_env.payloadHex, check.foundHex);
        return;
    }
    const std::string what = payload.lineCount == 0 ? "payload is missing (MD5 of no text)"
                                                    : "payload MD5 does not match has_payload";
    diags.error(m_file, line, what + "; payload kept but flagged", m_env.payloadHex,
                check.foundHex);
}

// A file's graphs keep their code as references into the file's bytes. When that code is a
// small part of the file (a rank's log is mostly compile events and cache keys), it is copied
// into a buffer of its own and the file's bytes can go: a folder of 64 rank logs is then not
// held in memory whole. Graphs not parsed yet get a deferred parse of the new buffer.
void compactGraphCode(model::Run& run, const std::shared_ptr<const std::string>& file)
{
    std::size_t kept = 0;
    for (const auto& g : run.graphs) {
        if (g.code.buffer == file && g.code.offset <= file->size()) {
            kept += std::min(g.code.length, file->size() - g.code.offset);
        }
    }
    if (kept * 2 > file->size()) {
        return;
    }
    auto compact = std::make_shared<std::string>();
    compact->reserve(kept);
    std::vector<std::pair<model::GraphArtifact*, std::size_t>> moved;
    for (auto& g : run.graphs) {
        if (g.code.buffer == file && g.code.offset <= file->size()) {
            moved.emplace_back(&g, compact->size());
            compact->append(*file, g.code.offset, g.code.length);
        }
    }
    const std::shared_ptr<const std::string> buffer = std::move(compact);
    for (auto& [g, offset] : moved) {
        g->code.buffer = buffer;
        g->code.offset = offset;
        g->code.length = std::min(g->code.length, buffer->size() - offset);
        if (g->deferred && !g->deferred->ifParsed()) {
            g->deferred = deferParse(g->code, g->file);
        }
    }
}

TraceReadResult readLogFile(const std::string& path, const TraceReadOptions& options,
                            const CancelToken& cancel)
{
    Diagnostics readProblems;
    auto data = readTraceFile(path, readProblems);
    if (!data) {
        TraceReadResult result;
        result.run.path = path;
        result.diagnostics = std::move(readProblems);
        return result;
    }
    auto shared = std::make_shared<const std::string>(std::move(*data));
    auto result = readTorchTrace(shared, path, options, cancel);
    compactGraphCode(result.run, shared);
    readProblems.append(result.diagnostics);
    result.diagnostics = std::move(readProblems);
    return result;
}

// Each file of a planned run read by its own reader, up to `threads` at once (a rank folder's
// logs are independent until they are merged); results in plan order.
std::vector<TraceReadResult> readFiles(const PlannedRun& planned, const TraceReadOptions& options,
                                       const CancelToken& cancel)
{
    const auto& files = planned.files;
    std::vector<TraceReadResult> results(files.size());
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i = next++; i < files.size() && !cancel.isCancelled(); i = next++) {
            TraceReadOptions fileOptions = options;
            fileOptions.fileRank = files[i].rank;
            try {
                results[i] = readLogFile(files[i].path, fileOptions, cancel);
            } catch (const std::exception& e) { // allocation failures: this file, not the rest
                results[i].run.path = files[i].path;
                results[i].diagnostics.error(files[i].path, 0,
                                             std::string("internal error while reading: ") +
                                                 e.what());
            }
        }
    };
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t threads = std::min<std::size_t>(
        files.size(), options.readThreads > 0 ? std::size_t(options.readThreads) : hardware);
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t) {
        pool.emplace_back(work);
    }
    work();
    for (auto& t : pool) {
        t.join();
    }
    return results;
}

// The files of one planned run, merged in plan order (by rank).
TraceReadResult readPlannedRun(const PlannedRun& planned, const TraceReadOptions& options,
                               const CancelToken& cancel, const ProgressSink& progress)
{
    reportProgress(progress, 0.0, "reading TORCH_TRACE logs");
    TraceReadResult result;
    result.run.path = planned.path;
    for (auto& one : readFiles(planned, options, cancel)) {
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

// Logs named without a rank whose envelopes each name one rank, a different one per log (a
// TORCH_TRACE file opened before init_process_group): one distributed run after all, and each
// log's records without a rank are its rank's.
void mergeEnvelopeRanked(const std::string& dir, std::vector<TraceReadResult>& results,
                         Diagnostics& notes)
{
    if (results.size() < 2) {
        return;
    }
    std::set<int> seen;
    std::vector<int> fileRanks;
    for (const auto& r : results) {
        const auto ranks = detail::envelopeRanks(r.run);
        if (ranks.size() != 1 || !seen.insert(*ranks.begin()).second) {
            notes.note(dir, 0,
                       std::to_string(results.size()) +
                           " logs without a rank in their names: read as separate processes");
            return;
        }
        fileRanks.push_back(*ranks.begin());
    }
    TraceReadResult merged;
    merged.run.path = dir;
    for (std::size_t i = 0; i < results.size(); ++i) {
        detail::assignMissingRank(results[i].run, fileRanks[i]);
        merged.diagnostics.append(results[i].diagnostics);
        merged.readSomething = merged.readSomething || results[i].readSomething;
        mergeRun(merged.run, std::move(results[i].run));
    }
    notes.note(dir, 0,
               std::to_string(results.size()) +
                   " logs named without a rank name one rank each in their records: read as "
                   "one distributed run");
    results.clear();
    results.push_back(std::move(merged));
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

std::vector<TraceReadResult> readTorchTraceRuns(const std::string& path,
                                                const TraceReadOptions& options,
                                                const CancelToken& cancel,
                                                const ProgressSink& progress)
{
    std::vector<TraceReadResult> results;
    if (!isDirectory(path)) {
        reportProgress(progress, 0.0, "reading TORCH_TRACE log");
        results.push_back(readLogFile(path, options, cancel));
        reportProgress(progress, 1.0, "reading TORCH_TRACE log");
        return results;
    }
    DirectoryPlan plan = planDirectory(path);
    for (std::size_t i = 0; i < plan.runs.size() && !cancel.isCancelled(); ++i) {
        results.push_back(readPlannedRun(plan.runs[i], options, cancel, progress));
    }
    mergeEnvelopeRanked(path, results, plan.notes);
    if (results.empty()) {
        results.emplace_back();
        results.front().run.path = path;
    }
    plan.notes.append(results.front().diagnostics);
    results.front().diagnostics = std::move(plan.notes);
    return results;
}

TraceReadResult readTorchTracePath(const std::string& path, const TraceReadOptions& options,
                                   const CancelToken& cancel, const ProgressSink& progress)
{
    auto runs = readTorchTraceRuns(path, options, cancel, progress);
    TraceReadResult result = std::move(runs.front());
    if (runs.size() > 1) {
        result.run.path = path;
        for (auto& l : result.run.lookups) {
            l.run = path;
        }
        for (std::size_t i = 1; i < runs.size(); ++i) {
            result.diagnostics.append(runs[i].diagnostics);
            result.readSomething = result.readSomething || runs[i].readSomething;
            mergeRun(result.run, std::move(runs[i].run));
        }
    }
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
