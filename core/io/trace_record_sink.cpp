#include "core/io/trace_record_sink.h"

#include "core/io/cache_event_parser.h"
#include "core/io/graph_code_parser.h"
#include "core/io/torch_trace_reader.h"
#include "core/util/strings.h"

#include <algorithm>
#include <array>

namespace fxs::io::detail {

namespace {

// Envelope kinds whose payload is printed graph code.
constexpr std::array<std::string_view, 11> kGraphKinds = {
    "dynamo_output_graph",     "aot_joint_graph",       "aot_forward_graph",
    "aot_backward_graph",      "aot_inference_graph",   "inductor_pre_grad_graph",
    "inductor_post_grad_graph", "compiled_autograd_graph", "optimize_ddp_split_graph",
    "optimize_ddp_split_child", "graph_dump",
};

// Envelope kinds whose payload is kept as text.
constexpr std::array<std::string_view, 4> kTextKinds = {
    "inductor_output_code", "dynamo_cpp_guards_str", "dynamo_guards", "exported_program"};

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& set, std::string_view s)
{
    return std::find(set.begin(), set.end(), s) != set.end();
}

// Metrics objects carry "compile_id": "0/0" (or null); envelopes of metrics often have no ids.
model::CompileId metricsCompileId(const std::string& json)
{
    static constexpr std::string_view kKey = "\"compile_id\": \"";
    const auto at = json.find(kKey);
    if (at == std::string::npos) {
        return {};
    }
    const auto start = at + kKey.size();
    const auto end = json.find('"', start);
    if (end == std::string::npos) {
        return {};
    }
    return model::CompileId::parse(std::string_view(json).substr(start, end - start))
        .value_or(model::CompileId{});
}

} // namespace

bool looksLikeGraphCode(std::string_view text)
{
    text = trimLeft(text);
    return startsWith(text, "class ") || startsWith(text, "def forward") ||
           startsWith(text, "GraphModule()");
}

RecordSink::RecordSink(const std::string& file, const TraceReadOptions& options, model::Run& run,
                       Diagnostics& diagnostics, std::shared_ptr<const std::string> source)
    : m_file(file), m_options(options), m_run(run), m_diagnostics(diagnostics),
      m_source(std::move(source))
{
}

model::RecordOrigin RecordSink::originOf(const Record& r) const
{
    return {r.env.compileId, r.env.rank, m_file, r.line};
}

model::PayloadRef RecordSink::payloadRef(const Record& r) const
{
    model::PayloadRef ref;
    ref.firstLine = r.payload.firstLine;
    if (m_source) {
        ref.buffer = m_source;
        ref.offset = r.payload.rawOffset;
        ref.length = r.payload.rawLength;
    } else {
        ref.buffer = std::make_shared<const std::string>(r.payload.text);
        ref.length = r.payload.text.size();
        ref.tabIndented = false;
    }
    return ref;
}

void RecordSink::setSession(int session, const model::CompileId& started)
{
    m_session = session;
    for (auto it = m_run.events.rbegin(); it != m_run.events.rend() && it->line > m_lastOtherLine;
         ++it) {
        model::CompileId id = it->compileId;
        id.session = started.session;
        if (id == started) {
            it->compileId.session = session;
        }
    }
}

void RecordSink::add(const Record& r, const std::string& buffer)
{
    const std::string& kind = r.env.kind;
    ++m_run.kindCounts[kind];
    if (kind != "chromium_event" && kind != "str") {
        m_lastOtherLine = r.line;
    }
    if (kind == "str") {
        if (r.env.strId >= 0) {
            m_run.internedStrings[m_file][r.env.strId] = r.env.strValue;
        }
    } else if (kind == "artifact") {
        addArtifact(r, buffer);
    } else if (kind == "chromium_event") {
        addChromiumEvent(r, buffer);
    } else if (isMetricsKind(kind)) {
        addMetrics(r);
    } else if (addDynamoRecord(r)) {
        // a create_symbol, guard_added, describe_* or dynamo_start record
    } else if (contains(kGraphKinds, kind)) {
        addGraph(r, kind);
    } else if (contains(kTextKinds, kind)) {
        addText(r, kind);
    } else {
        ++m_run.unknownKinds[kind];
        if (r.payload.lineCount > 0) {
            addText(r, kind); // keep what we do not understand, verbatim
        }
    }
}

void RecordSink::addGraph(const Record& r, const std::string& kind)
{
    if (!looksLikeGraphCode(r.payload.text)) {
        addText(r, kind);
        return;
    }
    model::GraphArtifact g;
    g.kind = kind;
    g.compileId = r.env.compileId;
    g.rank = r.env.rank;
    g.file = m_file;
    g.line = r.line;
    g.checksumOk = r.checksumOk;
    g.payloadLines = r.payload.lineCount;
    if (m_options.parseGraphs) {
        auto parsed = parseGraphCode(r.payload.text, m_file, r.line + 1);
        g.graph = std::move(parsed.graph);
        g.statements = parsed.statements;
        g.unparsedLines = parsed.unparsedLines;
        m_diagnostics.append(parsed.diagnostics);
    } else {
        g.code = payloadRef(r); // parsed when first needed (deferred->get(), ensureGraph)
        g.deferred = deferParse(g.code, m_file);
    }
    m_run.graphs.push_back(std::move(g));
}

void RecordSink::addText(const Record& r, const std::string& kind)
{
    model::TextArtifact t;
    t.kind = kind;
    t.filename = r.env.filename;
    t.compileId = r.env.compileId;
    t.rank = r.env.rank;
    t.text.assign(r.payload.text);
    t.file = m_file;
    t.line = r.line;
    t.checksumOk = r.checksumOk;
    m_run.texts.push_back(std::move(t));
}

void RecordSink::addArtifact(const Record& r, const std::string& buffer)
{
    const std::string& name = r.env.artifactName;
    if (name.empty()) {
        m_diagnostics.error(m_file, r.line, "artifact without a name", "\"name\": \"...\"",
                            "none");
        ++m_run.unknownKinds["artifact"];
        return;
    }
    ++m_run.artifactCounts[name];
    if (name == "recompile_reasons") {
        addRecompileReasons(r);
    } else if (name == "dynamo_graph_break_reason") {
        addGraphBreak(r);
    }
    if (cacheEventName(name)) {
        addCacheLookup(r, buffer);
    } else if (endsWith(name, "_graph") && looksLikeGraphCode(r.payload.text)) {
        addGraph(r, name);
    } else {
        addText(r, name);
    }
}

void RecordSink::report(int line, const std::vector<DecodeProblem>& problems)
{
    for (const auto& p : problems) {
        m_diagnostics.error(m_file, line, p.message, p.expected, p.found);
    }
}

void RecordSink::addCacheLookup(const Record& r, const std::string& buffer)
{
    const auto event = *cacheEventName(r.env.artifactName);
    model::CacheLookup l;
    l.cache = event.cache;
    l.state = event.state;
    l.compileId = r.env.compileId;
    l.rank = r.env.rank;
    l.run = m_run.path;
    l.file = m_file;
    l.line = r.line;
    l.checksumOk = r.checksumOk;
    if (m_options.decodePayloads && r.payload.lineCount > 0) {
        std::vector<DecodeProblem> problems;
        m_decoder.decodeCacheLookup(buffer, r.payload.text, l, problems);
        if (l.state != event.state) {
            problems.push_back({"cache_state disagrees with the artifact name; using the name",
                                std::string(model::cacheStateName(event.state)),
                                std::string(model::cacheStateName(l.state))});
            l.state = event.state;
        }
        report(r.line, problems);
    }
    if (l.compileId.valid()) {
        l.compileId.session = m_session; // also an id read from the payload
    }
    if (event.state == model::CacheState::Disabled) {
        m_sawDisabledArtifact = true;
    }
    m_run.lookups.push_back(std::move(l));
}

void RecordSink::addChromiumEvent(const Record& r, const std::string& buffer)
{
    if (!m_options.decodePayloads || r.payload.lineCount == 0) {
        return;
    }
    model::ChromiumEvent e;
    std::vector<DecodeProblem> problems;
    const bool ok = m_decoder.decodeChromiumEvent(buffer, r.payload.text, e, problems);
    report(r.line, problems);
    if (!ok) {
        return;
    }
    if (!e.compileId.valid()) {
        e.compileId = r.env.compileId;
    } else {
        e.compileId.session = m_session;
    }
    e.rank = r.env.rank;
    e.line = r.line;
    // PyTorch 2.11 logs a disabled FX graph cache only as an instant chromium event.
    if (e.name == "fx_graph_cache_disabled") {
        addDisabledFromEvent(r, e);
    }
    e.argsBytes = e.argsJson.size();
    if (e.argsBytes > model::kKeptEventArgsBytes) {
        std::string().swap(e.argsJson); // read above; a whole cache key is not kept twice
    }
    m_run.events.push_back(std::move(e));
}

void RecordSink::addDisabledFromEvent(const Record& r, const model::ChromiumEvent& event)
{
    model::CacheLookup l;
    l.cache = model::CacheKind::FxGraph;
    l.state = model::CacheState::Disabled;
    l.compileId = event.compileId;
    l.rank = r.env.rank;
    l.run = m_run.path;
    l.file = m_file;
    l.line = r.line;
    l.checksumOk = r.checksumOk;
    l.origin = "chromium_event";
    std::vector<DecodeProblem> problems;
    m_decoder.decodeCacheLookupFromArgs(event.argsJson, l, problems);
    l.state = model::CacheState::Disabled;
    report(r.line, problems);
    m_run.lookups.push_back(std::move(l));
}

void RecordSink::addMetrics(const Record& r)
{
    model::CompilationMetrics m;
    m.kind = r.env.kind;
    m.json = r.env.metadataJson;
    m.compileId = r.env.compileId.valid() ? r.env.compileId : metricsCompileId(m.json);
    if (m.compileId.valid()) {
        m.compileId.session = m_session;
    }
    m.rank = r.env.rank;
    m.line = r.line;
    m_run.metrics.push_back(std::move(m));
}

bool RecordSink::addDynamoRecord(const Record& r)
{
    const std::string& kind = r.env.kind;
    const auto& strings = m_run.internedStrings[m_file];
    std::vector<DecodeProblem> problems;
    if (kind == "create_symbol") {
        model::SymbolRecord s;
        s.origin = originOf(r);
        m_dynamo.decodeSymbol(r.env.metadataJson, strings, s, problems);
        m_run.symbols.push_back(std::move(s));
    } else if (kind == "guard_added_fast" || kind == "guard_added") {
        model::ShapeGuardRecord g;
        g.origin = originOf(r);
        g.kind = kind;
        m_dynamo.decodeShapeGuard(r.env.metadataJson, strings, g, problems);
        m_run.shapeGuards.push_back(std::move(g));
    } else if (kind == "describe_tensor") {
        model::TensorRecord t;
        t.origin = originOf(r);
        m_dynamo.decodeTensor(r.env.metadataJson, t, problems);
        const auto storage = m_storageBytes.find({t.describerId, t.storage});
        if (t.storage >= 0 && storage != m_storageBytes.end()) {
            t.storageBytes = storage->second;
        }
        m_run.tensors.push_back(std::move(t));
    } else if (kind == "describe_storage") {
        int describer = -1;
        int id = -1;
        std::int64_t size = -1;
        m_dynamo.decodeStorage(r.env.metadataJson, describer, id, size, problems);
        m_storageBytes[{describer, id}] = size; // described before the tensors that view it
    } else if (isExportIssueKind(kind)) {
        model::ExportIssueRecord e;
        e.origin = originOf(r);
        e.kind = kind;
        m_dynamo.decodeExportIssue(r.env.metadataJson, strings, e, problems);
        m_run.exportIssues.push_back(std::move(e));
    } else if (kind == "link") {
        addLink(r);
    } else if (kind == "describe_source") {
        addTensorSource(r);
    } else if (kind == "dynamo_start") {
        model::DynamoStartRecord d;
        d.origin = originOf(r);
        m_dynamo.decodeDynamoStart(r.env.metadataJson, strings, d, problems);
        m_run.dynamoStarts.push_back(std::move(d));
    } else {
        return false;
    }
    report(r.line, problems);
    return true;
}

// A named link (a dashboard, a manifold URL): kept as a text artifact "link", its name as the
// file name and its URL as the text.
void RecordSink::addLink(const Record& r)
{
    model::TextArtifact t;
    t.kind = "link";
    std::vector<DecodeProblem> problems;
    m_dynamo.decodeLink(r.env.metadataJson, t.filename, t.text, problems);
    report(r.line, problems);
    t.compileId = r.env.compileId;
    t.rank = r.env.rank;
    t.file = m_file;
    t.line = r.line;
    m_run.texts.push_back(std::move(t));
}

void RecordSink::addTensorSource(const Record& r)
{
    int describer = -1;
    int id = -1;
    std::string source;
    std::vector<DecodeProblem> problems;
    m_dynamo.decodeTensorSource(r.env.metadataJson, describer, id, source, problems);
    report(r.line, problems);
    // The tensor was described just before; look back a little, not through the whole run.
    auto& tensors = m_run.tensors;
    const std::size_t stop = tensors.size() > 64 ? tensors.size() - 64 : 0;
    for (std::size_t i = tensors.size(); i-- > stop;) {
        auto& t = tensors[i];
        if (t.describerId == describer && t.id == id && t.origin.file == m_file) {
            if (t.source.empty()) {
                t.source = std::move(source);
            }
            return;
        }
    }
}

void RecordSink::addRecompileReasons(const Record& r)
{
    model::RecompileReasons rr;
    rr.origin = originOf(r);
    rr.reasons = parseRecompileReasons(r.payload.text);
    m_run.recompileReasons.push_back(std::move(rr));
}

void RecordSink::addGraphBreak(const Record& r)
{
    model::GraphBreakRecord b;
    b.origin = originOf(r);
    parseGraphBreakReason(r.payload.text, b);
    m_run.graphBreaks.push_back(std::move(b));
}

void RecordSink::finish()
{
    // When a version logs fx_graph_cache_disabled as an artifact too, keep only the artifact.
    if (!m_sawDisabledArtifact) {
        return;
    }
    auto& lookups = m_run.lookups;
    lookups.erase(std::remove_if(lookups.begin(), lookups.end(),
                                 [&](const model::CacheLookup& l) {
                                     return l.file == m_file && l.origin == "chromium_event";
                                 }),
                  lookups.end());
}

} // namespace fxs::io::detail
