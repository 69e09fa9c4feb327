#include "core/io/loader.h"

#include "core/io/graph_code_parser.h"
#include "core/io/graph_file_loaders.h"
#include "core/io/pt2_reader.h"
#include "core/io/torch_trace_reader.h"
#include "core/io/trace_record_sink.h"
#include "core/util/file_reader.h"
#include "core/util/strings.h"

#include <exception>
#include <new>
#include <optional>

namespace fxs::io {

namespace {

void addTrace(TraceReadResult&& trace, LoadResult& result)
{
    result.diagnostics.append(trace.diagnostics);
    if (trace.readSomething) {
        result.runs.push_back(std::move(trace.run));
    }
}

void addGraphFile(const std::string& path, std::string_view text, LoadResult& result)
{
    auto parsed = parseGraphCode(text, path, 1);
    result.diagnostics.append(parsed.diagnostics);
    if (!parsed.graph) {
        result.diagnostics.error(path, 0, "no graph could be read from the file",
                                 "printed graph code", "nothing graph-like");
        return;
    }
    model::GraphArtifact g;
    g.kind = "graph";
    g.graph = std::move(parsed.graph);
    g.file = path;
    g.line = 1;
    g.statements = parsed.statements;
    g.unparsedLines = parsed.unparsedLines;
    result.graphs.push_back(std::move(g));
}

void readError(const std::string& path, const Error& e, LoadResult& result)
{
    result.diagnostics.error(path, 0, e.message, e.expected, e.found);
}

// A format a reader outside fxscope_io registered (TorchScript). False when none claims it.
bool loadRegistered(const std::string& path, LoadResult& result)
{
    auto loader = findGraphFileLoader(path);
    if (!loader) {
        return false;
    }
    auto graph = loader->load(path, result.diagnostics);
    if (graph.ok()) {
        result.graphs.push_back(std::move(*graph));
    } else {
        readError(path, graph.error(), result);
    }
    return true;
}

// A torch.export archive: its graph (even when weights or parts of the program are missing).
void addPt2(const std::string& path, LoadResult& result)
{
    auto read = readPt2(path);
    if (!read.ok()) {
        const Error& e = read.error();
        result.diagnostics.error(e.where.empty() ? path : e.where, 0, e.message, e.expected,
                                 e.found);
        return;
    }
    result.diagnostics.append(read->diagnostics);
    if (!read->graph) {
        result.diagnostics.error(path, 0, "no graph could be read from the archive",
                                 "a torch.export program", "an unreadable program");
        return;
    }
    model::GraphArtifact g;
    g.kind = "graph";
    g.file = path;
    g.line = 0;
    g.statements = static_cast<int>(read->graph->size());
    g.graph = std::move(read->graph);
    g.exported = std::move(read->program);
    result.graphs.push_back(std::move(g));
}

enum class Sniffed { TorchTrace, GraphCode, Unknown };

Sniffed sniff(std::string_view head)
{
    if (looksLikeTorchTrace(head)) {
        return Sniffed::TorchTrace;
    }
    return detail::looksLikeGraphCode(head) ? Sniffed::GraphCode : Sniffed::Unknown;
}

// The format is sniffed from the first bytes (inflated when gzip'd); only a recognised file is
// read whole, so a large file of another kind is rejected without reading it.
void loadFile(const std::string& path, LoadResult& result, const TraceReadOptions& traceOptions,
              const CancelToken& cancel)
{
    if (auto regular = checkRegularFile(path); !regular.ok()) {
        readError(path, regular.error(), result);
        return;
    }
    if (loadRegistered(path, result)) {
        return;
    }
    if (looksLikePt2(path)) {
        addPt2(path, result);
        return;
    }
    auto head = readFileHead(path);
    if (!head.ok()) {
        readError(path, head.error(), result);
        return;
    }
    Sniffed kind = sniff(*head);
    std::optional<Result<std::string>> data;
    if (kind == Sniffed::Unknown && head->size() == kSniffBytes && trimLeft(*head).empty()) {
        data = readFile(path); // blank lines longer than the sniffed head: look at it all
        kind = data->ok() ? sniff(**data) : kind;
    }
    if (kind == Sniffed::Unknown) {
        std::string expected = "a TORCH_TRACE log, printed graph code or a .pt2 archive";
        for (const auto& name : graphFileLoaderNames()) {
            expected += " or a " + name + " file";
        }
        result.diagnostics.error(path, 0, "unrecognised file format", expected,
                                 abbreviate(std::string_view(*head).substr(0, 60)));
        return;
    }
    if (kind == Sniffed::TorchTrace) {
        // A gzip'd log cut short still gives the records before the cut.
        auto trace = data && data->ok() ? std::optional<std::string>(std::move(**data))
                                        : readTraceFile(path, result.diagnostics);
        if (trace) {
            // Shared: graphs whose parse is deferred keep their code in this buffer.
            addTrace(readTorchTrace(std::make_shared<const std::string>(std::move(*trace)), path,
                                    traceOptions, cancel),
                     result);
        }
        return;
    }
    if (!data) {
        data = readFile(path);
    }
    if (!data->ok()) {
        readError(path, data->error(), result);
    } else {
        addGraphFile(path, **data, result);
    }
}

} // namespace

LoadResult loadPaths(const std::vector<std::string>& paths, const CancelToken& cancel,
                     const ProgressSink& progress)
{
    return loadPaths(paths, LoadOptions{}, cancel, progress);
}

LoadResult loadPaths(const std::vector<std::string>& paths, const LoadOptions& options,
                     const CancelToken& cancel, const ProgressSink& progress)
{
    TraceReadOptions traceOptions;
    traceOptions.parseGraphs = !options.deferGraphParsing;
    LoadResult result;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        if (cancel.isCancelled()) {
            result.diagnostics.warning(paths[i], 0, "loading cancelled");
            break;
        }
        reportProgress(progress, double(i) / double(paths.size()), paths[i]);
        try {
            if (isDirectory(paths[i])) {
                // One run per process log, or one of every rank log (io::planDirectory).
                for (auto& run : readTorchTraceRuns(paths[i], traceOptions, cancel)) {
                    addTrace(std::move(run), result);
                }
            } else {
                loadFile(paths[i], result, traceOptions, cancel);
            }
        } catch (const std::bad_alloc&) {
            result.diagnostics.error(paths[i], 0, "out of memory while loading the file");
        } catch (const std::exception& e) {
            result.diagnostics.error(paths[i], 0,
                                     std::string("internal error while loading: ") + e.what());
        }
    }
    reportProgress(progress, 1.0, "done");
    return result;
}

} // namespace fxs::io
