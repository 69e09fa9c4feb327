#include "app/cli/graph_input.h"

#include "core/export/export_weights.h"
#include "core/io/graph_code_parser.h"
#include "core/io/pt2_reader.h"
#include "core/io/torch_trace_reader.h"
#include "core/torchscript/torchscript_importer.h"
#include "core/util/file_reader.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <new>
#include <set>

namespace fxs::cli {
namespace graph_input_detail {

Error invalid(std::string message, std::string where, std::string expected, std::string found)
{
    Error e = makeError(ErrorCode::Invalid, std::move(message), std::move(where));
    e.expected = std::move(expected);
    e.found = std::move(found);
    return e;
}

Error parseError(const std::string& message, const std::string& path, const Diagnostics& d)
{
    Error e = makeError(ErrorCode::Parse, message, path);
    if (!d.empty()) {
        e.found = d.items().front().toString();
    }
    return e;
}

std::string labelOf(const model::GraphArtifact& g)
{
    return g.compileId.toString() + ":" + g.kind;
}

// "one of 0..N-1 or COMPILE_ID:KIND[#N], e.g. 0/0:a, 0/0:b, ..." (distinct labels, at most 8).
std::string choices(const model::Run& run)
{
    std::string out = "an index 0.." + std::to_string(run.graphs.size() - 1) +
                      " or COMPILE_ID:KIND[#N], one of ";
    std::set<std::string> seen;
    for (const auto& g : run.graphs) {
        if (seen.count(labelOf(g)) != 0) {
            continue;
        }
        if (seen.size() == 8) {
            return out + ", ...";
        }
        seen.insert(labelOf(g));
        out += (seen.size() == 1 ? "" : ", ") + labelOf(g);
    }
    return out;
}

bool allDigits(std::string_view s)
{
    return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) {
               return std::isdigit(static_cast<unsigned char>(c)) != 0;
           });
}

Result<std::size_t> byLabel(const model::Run& run, const std::string& path,
                            const std::string& selector)
{
    std::string label = selector;
    std::size_t ordinal = 0;
    if (const auto hash = selector.rfind('#'); hash != std::string::npos) {
        if (!allDigits(std::string_view(selector).substr(hash + 1))) {
            return invalid("bad --graph selector", path, choices(run), selector);
        }
        ordinal = std::stoul(selector.substr(hash + 1));
        label.resize(hash);
    }
    for (std::size_t i = 0; i < run.graphs.size(); ++i) {
        if (labelOf(run.graphs[i]) == label && ordinal-- == 0) {
            return i;
        }
    }
    return invalid("no graph of the trace matches --graph", path, choices(run), selector);
}

Result<std::size_t> selectGraph(const model::Run& run, const std::string& path,
                                const std::string& selector)
{
    if (run.graphs.empty()) {
        return makeError(ErrorCode::Parse, "the TORCH_TRACE log holds no graph", path);
    }
    if (selector.empty()) {
        if (run.graphs.size() == 1) {
            return std::size_t(0);
        }
        return invalid("the TORCH_TRACE log holds " + std::to_string(run.graphs.size()) +
                           " graphs: pick one with --graph",
                       path, choices(run), "no --graph");
    }
    if (allDigits(selector)) {
        const std::size_t index = std::stoul(selector);
        if (index < run.graphs.size()) {
            return index;
        }
        return invalid("--graph index out of range", path, choices(run), selector);
    }
    return byLabel(run, path, selector);
}

// Only the selected payload's problems concern the caller: those on its lines.
Diagnostics payloadDiagnostics(const model::GraphArtifact& artifact, const Diagnostics& all)
{
    const std::string& text = artifact.graph->text();
    const auto lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    Diagnostics out;
    for (const auto& d : all.items()) {
        if (d.file == artifact.file && d.line > artifact.line &&
            d.line <= artifact.line + 1 + lines) {
            out.add(d);
        }
    }
    if (!artifact.checksumOk) {
        out.warning(artifact.file, artifact.line, "payload failed its MD5 check");
    }
    return out;
}

// data: the log's text when the caller has read it already (a file); null reads path (a file or
// a directory of per-rank logs).
Result<LoadedGraph> loadTrace(const std::string& path, const std::string* data,
                              const std::string& selector)
{
    io::TraceReadOptions options;
    options.decodePayloads = false; // graphs only: cache events and chromium events are not used
    auto trace = data != nullptr ? io::readTorchTrace(*data, path, options)
                                 : io::readTorchTracePath(path, options);
    if (!trace.readSomething) {
        return parseError("nothing could be read from the TORCH_TRACE input", path,
                          trace.diagnostics);
    }
    auto index = selectGraph(trace.run, path, selector);
    if (!index.ok()) {
        return index.error();
    }
    const model::GraphArtifact& artifact = trace.run.graphs[*index];
    const std::string where = artifact.file + ":" + std::to_string(artifact.line);
    if (!artifact.graph) {
        return parseError("the selected graph payload could not be parsed", where,
                          trace.diagnostics);
    }
    LoadedGraph out;
    out.graph = artifact.graph;
    out.sourceBytes = artifact.graph->text();
    out.diagnostics = payloadDiagnostics(artifact, trace.diagnostics);
    out.runGraphIndex = *index;
    out.run = std::make_shared<const model::Run>(std::move(trace.run));
    return out;
}

Result<LoadedGraph> loadTorchScript(const std::string& path)
{
    auto bytes = readFile(path);
    if (!bytes.ok()) {
        return bytes.error();
    }
    auto module = torchscript::importTorchScriptBytes(*bytes, path);
    if (!module.ok()) {
        return module.error();
    }
    LoadedGraph out;
    out.graph = module->graph;
    out.sourceBytes = std::move(*bytes);
    out.attributes = module->attributes;
    out.diagnostics = std::move(module->diagnostics);
    return out;
}

Result<LoadedGraph> loadExport(const std::string& path)
{
    auto read = io::readPt2(path);
    if (!read.ok()) {
        return read.error();
    }
    if (!read->graph) {
        return parseError("no graph could be read from the archive", path, read->diagnostics);
    }
    LoadedGraph out;
    out.graph = std::move(read->graph);
    out.sourceBytes = std::move(read->programText); // not the weights: they may be GBs
    out.exported = std::move(read->program);
    out.diagnostics = std::move(read->diagnostics);
    return out;
}

Result<LoadedGraph> loadGraphCode(const std::string& path, std::string text)
{
    auto parsed = io::parseGraphCode(text, path);
    if (!parsed.graph) {
        return parseError("no graph code found", path, parsed.diagnostics);
    }
    LoadedGraph out;
    out.graph = std::move(parsed.graph);
    out.sourceBytes = std::move(text);
    out.diagnostics = std::move(parsed.diagnostics);
    return out;
}

// The format is sniffed from the first bytes (inflated when gzip'd) before the file is read.
Result<LoadedGraph> loadAny(const std::string& path, const std::string& selector)
{
    if (isDirectory(path)) {
        return loadTrace(path, nullptr, selector);
    }
    if (auto regular = checkRegularFile(path); !regular.ok()) {
        return regular.error();
    }
    const bool exported = !torchscript::looksLikeTorchScript(path) && io::looksLikePt2(path);
    if (exported && !selector.empty()) {
        return invalid("--graph applies to TORCH_TRACE input only", path,
                       "a TORCH_TRACE log or directory", "a .pt2 archive");
    }
    if (exported) {
        return loadExport(path);
    }
    const bool torchScript = torchscript::looksLikeTorchScript(path);
    if (!torchScript) {
        auto head = readFileHead(path);
        if (!head.ok()) {
            return head.error();
        }
        // Graph code may open with comments or imports: any text is parsed, binary is not.
        if (head->find('\0') != std::string::npos) {
            Error e = makeError(ErrorCode::Parse, "unrecognised file format", path);
            e.expected = "printed graph code, a TorchScript .pt, a .pt2 or a TORCH_TRACE log";
            e.found = abbreviate(std::string_view(*head).substr(0, 60));
            return e;
        }
    }
    auto text = torchScript ? Result<std::string>(std::string()) : readFile(path);
    if (!text.ok()) {
        return text.error();
    }
    if (!torchScript && io::looksLikeTorchTrace(*text)) {
        return loadTrace(path, &*text, selector);
    }
    if (!selector.empty()) {
        return invalid("--graph applies to TORCH_TRACE input only", path,
                       "a TORCH_TRACE log or directory", torchScript ? "a TorchScript module"
                                                                     : "a graph-code file");
    }
    return torchScript ? loadTorchScript(path) : loadGraphCode(path, std::move(*text));
}

Status checkRange(const model::RangeConstraint& r, std::int64_t value)
{
    if (r.contains(value)) {
        return {};
    }
    const std::string range = "[" + (r.min ? std::to_string(*r.min) : std::string("-inf")) +
                              ", " + (r.max ? std::to_string(*r.max) : std::string("inf")) + "]";
    return invalid("size " + r.symbol + "=" + std::to_string(value) +
                       " is outside the range the program was exported for",
                   r.symbol, r.symbol + " in " + range, std::to_string(value));
}

} // namespace graph_input_detail

Result<std::shared_ptr<const exec::ValueStore>> graphWeights(const LoadedGraph& loaded,
                                                             bool sampleInputs, std::string* note)
{
    using namespace graph_input_detail;
    if (!loaded.exported) {
        return loaded.attributes;
    }
    auto weights = exported::loadExportWeights(*loaded.exported);
    if (!weights.ok()) {
        return weights.error();
    }
    if (sampleInputs && !loaded.exported->sampleInputsEntry.empty()) {
        auto samples = exported::loadExportSampleInputs(*loaded.exported);
        if (!samples.ok()) {
            return samples.error();
        }
        for (const auto& [name, value] : (*samples)->values()) {
            (*weights)->set(name, value);
        }
        if (note != nullptr) {
            *note = "inputs: the archive's sample inputs (" +
                    loaded.exported->sampleInputsEntry + ")";
        }
    }
    return std::shared_ptr<const exec::ValueStore>(std::move(*weights));
}

Status completeSizes(const LoadedGraph& loaded, std::map<std::string, std::int64_t>& sizes)
{
    using namespace graph_input_detail;
    if (!loaded.exported) {
        return {};
    }
    for (const auto& [symbol, hint] : loaded.exported->symbolHints) {
        sizes.emplace(symbol, hint);
    }
    for (const auto& [symbol, value] : sizes) {
        if (const auto* r = loaded.exported->range(symbol)) {
            if (auto s = checkRange(*r, value); !s.ok()) {
                return s;
            }
        }
    }
    return {};
}

Result<LoadedGraph> loadGraphInput(const std::string& path, const std::string& selector)
{
    using namespace graph_input_detail;
    try {
        return loadAny(path, selector);
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::Runtime, "out of memory while loading the graph", path);
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Internal, std::string("while loading: ") + e.what(), path);
    }
}

Result<structure::ModuleTree> structureOf(const LoadedGraph& loaded)
{
    using namespace graph_input_detail;
    return loaded.run ? structure::recoverRunGraphStructure(*loaded.run, loaded.runGraphIndex)
                      : structure::recoverStructure(*loaded.graph);
}

} // namespace fxs::cli
