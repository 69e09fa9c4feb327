// TORCH_TRACE importer on the real PyTorch 2.11 fixtures (counts taken by hand with grep and
// Python's json/hashlib, not from this code) and on broken copies of them.
#include "core/io/torch_trace_reader.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"

#include <QtTest>

#include <algorithm>
#include <set>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::model::CacheKind;
using fxs::model::CacheState;

namespace {

const char* const kFixtures[] = {"autograd_fn_cold", "autograd_fn_warm", "basic_cold",
                                 "basic_config",     "basic_warm",       "gpt_cold",
                                 "regional_cold"};

QString fixturePath(const char* run)
{
    const QDir dir(QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/") + run);
    const QStringList logs = dir.entryList({"*.log"}, QDir::Files);
    return logs.size() == 1 ? dir.filePath(logs.front()) : QString();
}

std::string fixtureText(const char* run)
{
    auto data = readFile(fixturePath(run).toStdString());
    return data.ok() ? *data : std::string();
}

io::TraceReadResult readFixture(const char* run, io::TraceReadOptions options = {})
{
    const std::string path = fixturePath(run).toStdString();
    return io::readTorchTracePath(path, options);
}

std::vector<const model::CacheLookup*> lookupsOf(const model::Run& run, CacheKind kind)
{
    std::vector<const model::CacheLookup*> out;
    for (const auto& l : run.lookups) {
        if (l.cache == kind) {
            out.push_back(&l);
        }
    }
    return out;
}

bool hasDiagnosticAt(const Diagnostics& d, int line, const std::string& fragment)
{
    return std::any_of(d.items().begin(), d.items().end(), [&](const Diagnostic& x) {
        return x.line == line && x.message.find(fragment) != std::string::npos;
    });
}

std::string diagText(const Diagnostics& d)
{
    std::string s;
    for (const auto& x : d.items()) {
        s += x.toString() + "\n";
    }
    return s;
}

// Line index (1-based) -> text, for building broken copies.
std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto nl = text.find('\n', start);
        lines.push_back(text.substr(start, nl == std::string::npos ? nl : nl - start));
        start = nl == std::string::npos ? text.size() : nl + 1;
    }
    return lines;
}

std::string joinLines(const std::vector<std::string>& lines, std::size_t count)
{
    std::string s;
    for (std::size_t i = 0; i < count && i < lines.size(); ++i) {
        s += lines[i] + "\n";
    }
    return s;
}


// --- Independent graph-payload extraction and statement counting (no fxscope code) ---

struct GraphPayload {
    int line = 0; // envelope line
    QString code;
};

std::vector<GraphPayload> graphPayloads(const std::string& text)
{
    static const QRegularExpression envelope(
        QStringLiteral(R"re(\] \{"(\w+)": (?:\{"name": "([^"]+)")?)re"));
    static const QStringList graphKinds = {"dynamo_output_graph", "aot_joint_graph",
                                           "aot_forward_graph",   "aot_backward_graph",
                                           "aot_inference_graph", "inductor_post_grad_graph"};
    std::vector<GraphPayload> out;
    const auto lines = splitLines(text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const QString line = QString::fromStdString(lines[i]);
        const auto m = envelope.match(line);
        if (line.startsWith('\t') || !m.hasMatch() || !line.contains("has_payload")) {
            continue;
        }
        QStringList body;
        for (std::size_t j = i + 1; j < lines.size() && !lines[j].empty() && lines[j][0] == '\t';
             ++j) {
            body << QString::fromStdString(lines[j].substr(1));
        }
        const QString code = body.join('\n');
        const bool graphKind = graphKinds.contains(m.captured(1));
        const bool graphArtifact = m.captured(1) == "artifact" &&
                                   m.captured(2).endsWith("_graph") && code.startsWith("class ");
        if (graphKind || graphArtifact) {
            out.push_back({int(i + 1), code});
        }
    }
    return out;
}

// Nodes a printed graph must have: placeholders, assignments whose right side is not a bare
// name (aliases such as `l_x_ = L_x_` make no node) and return statements. Placeholders are
// the forward parameters, except in the pytree form of joint graphs (`def forward(self,
// primals, tangents)`), where annotation-only lines `primals_1: "f32[...]"` declare them and
// `primals_1, ..., = fx_pytree.tree_flatten_spec(...)` makes no node.
int countStatements(QString code)
{
    static const QRegularExpression quoted(QStringLiteral(R"re("[^"\n]*")re"));
    static const QRegularExpression comment(QStringLiteral(R"re(#[^\n]*)re"));
    static const QRegularExpression signature(QStringLiteral(R"re(def forward\(([^)]*)\):)re"));
    static const QRegularExpression assignment(
        QStringLiteral(R"re(^\s+[A-Za-z_]\w*\s*(?::\s*"")?\s*=\s*([^;]+))re"));
    static const QRegularExpression bareName(QStringLiteral(R"re(^[A-Za-z_]\w*$)re"));
    static const QRegularExpression ret(QStringLiteral(R"re(^\s+return\b)re"));
    code.replace(quoted, QStringLiteral("\"\""));
    code.replace(comment, QString());
    static const QRegularExpression declaration(
        QStringLiteral(R"re(^\s+[A-Za-z_]\w*\s*:\s*""\s*$)re"),
        QRegularExpression::MultilineOption);
    int declared = 0;
    for (auto it = declaration.globalMatch(code); it.hasNext(); it.next()) {
        ++declared;
    }
    int count = declared;
    for (auto it = signature.globalMatch(code); declared == 0 && it.hasNext();) {
        for (const QString& param : it.next().captured(1).split(',')) {
            const QString p = param.trimmed();
            count += (!p.isEmpty() && p != "self") ? 1 : 0;
        }
    }
    for (const QString& line : code.split('\n')) {
        const auto a = assignment.match(line);
        if (a.hasMatch() && !bareName.match(a.captured(1).trimmed()).hasMatch()) {
            ++count;
        } else if (ret.match(line).hasMatch()) {
            ++count;
        }
    }
    return count;
}

std::size_t totalNodes(const graph::Graph& g)
{
    std::size_t n = g.size();
    for (const auto& sub : g.submodules()) {
        n += totalNodes(*sub);
    }
    return n;
}

} // namespace

class TestTorchTraceReader : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void countsMatchTheLogs_data();
    void countsMatchTheLogs();
    void basicColdLookups();
    void basicWarmAllHits();
    void basicConfigMaxFusionSize();
    void autogradFunctionBypass();
    void regionalFxCacheDisabled();
    void chromiumEventsAndMetrics();
    void textArtifacts();
    void internedStrings();
    void everyGraphPayloadParses_data();
    void everyGraphPayloadParses();
    void skipDecodingKeepsEnvelopes();
    void truncatedInsidePayload();
    void flippedPayloadByte();
    void envelopeNotJson();
    void randomBytes();
    void emptyFileAndMissingFile();
    void strayLinesAndUnknownKinds();
    void idsAndPayloadEdges();
    void directoryOfTwoRanks();
    void largeEventArgsAreReadNotKept();
    void rankLogsKeepOnlyTheirGraphCode();
    void sniffing();
};

void TestTorchTraceReader::countsMatchTheLogs_data()
{
    QTest::addColumn<QString>("run");
    QTest::addColumn<int>("lines");
    QTest::addColumn<int>("chromium");
    QTest::addColumn<int>("artifacts");
    QTest::addColumn<int>("payloads");
    QTest::addColumn<int>("graphs");
    QTest::addColumn<int>("metrics");
    QTest::addColumn<int>("describeTensor");
    // grep -c '] {"chromium_event"', '] {"artifact"', '"has_payload"', '] {"describe_tensor"';
    // graphs: dynamo/aot envelopes + *_graph artifacts holding graph code, counted by hand.
    QTest::newRow("autograd_fn_cold") << "autograd_fn_cold" << 5417 << 193 << 15 << 215 << 10
                                      << 4 << 1;
    QTest::newRow("autograd_fn_warm") << "autograd_fn_warm" << 4231 << 97 << 13 << 115 << 8 << 2
                                      << 1;
    QTest::newRow("basic_cold") << "basic_cold" << 6477 << 185 << 15 << 207 << 10 << 4 << 2;
    QTest::newRow("basic_config") << "basic_config" << 6364 << 177 << 15 << 199 << 10 << 2 << 2;
    QTest::newRow("basic_warm") << "basic_warm" << 2575 << 53 << 12 << 70 << 8 << 1 << 2;
    QTest::newRow("gpt_cold") << "gpt_cold" << 17290 << 205 << 15 << 227 << 10 << 4 << 54;
    QTest::newRow("regional_cold") << "regional_cold" << 5658 << 210 << 28 << 247 << 18 << 2
                                   << 2;
}

void TestTorchTraceReader::countsMatchTheLogs()
{
    QFETCH(QString, run);
    QFETCH(int, lines);
    QFETCH(int, chromium);
    QFETCH(int, artifacts);
    QFETCH(int, payloads);
    QFETCH(int, graphs);
    QFETCH(int, metrics);
    QFETCH(int, describeTensor);
    const auto r = readFixture(run.toUtf8().constData());
    QVERIFY2(r.diagnostics.empty(), diagText(r.diagnostics).c_str());
    QVERIFY(r.readSomething);
    QCOMPARE(r.run.kindCounts.at("chromium_event"), chromium);
    QCOMPARE(r.run.kindCounts.at("artifact"), artifacts);
    QCOMPARE(r.run.kindCounts.at("dynamo_output_graph"), 1);
    QCOMPARE(r.run.kindCounts.at("dynamo_start"), 1);
    QCOMPARE(r.run.kindCounts.at("describe_tensor"), describeTensor);
    // describe_tensor is read into Run::tensors now, not kept as an unknown kind.
    QCOMPARE(r.run.tensors.size(), std::size_t(describeTensor));
    QVERIFY(!r.run.unknownKinds.count("describe_tensor"));
    QCOMPARE(r.run.dynamoStarts.size(), std::size_t(1));
    QVERIFY(!r.run.unknownKinds.count("chromium_event"));
    int sum = 0;
    for (const auto& [kind, n] : r.run.kindCounts) {
        sum += n;
    }
    int artifactSum = 0;
    for (const auto& [name, n] : r.run.artifactCounts) {
        artifactSum += n;
    }
    QCOMPARE(artifactSum, artifacts);
    // Every line is an envelope or a payload line: envelopes = lines - payload lines.
    const auto all = splitLines(fixtureText(run.toUtf8().constData()));
    const int payloadLines = int(std::count_if(all.begin(), all.end(), [](const std::string& l) {
        return !l.empty() && l[0] == '\t';
    }));
    QCOMPARE(sum, lines - payloadLines);
    QCOMPARE(r.run.payloads, payloads);
    QCOMPARE(r.run.payloadsVerified, payloads);
    QCOMPARE(r.run.payloadMismatches, 0);
    QCOMPARE(int(r.run.events.size()), chromium);
    QCOMPARE(int(r.run.graphs.size()), graphs);
    QCOMPARE(int(r.run.metrics.size()), metrics);
    for (const auto& g : r.run.graphs) {
        QVERIFY(g.graph);
        QVERIFY(g.checksumOk);
        QCOMPARE(g.compileId.toString(), std::string("0/0"));
    }
}

void TestTorchTraceReader::basicColdLookups()
{
    const auto r = readFixture("basic_cold");
    QCOMPARE(r.run.lookups.size(), std::size_t(3));
    const auto aot = lookupsOf(r.run, CacheKind::AotAutograd);
    const auto fx = lookupsOf(r.run, CacheKind::FxGraph);
    QCOMPARE(aot.size(), std::size_t(1));
    QCOMPARE(fx.size(), std::size_t(2));
    QCOMPARE(aot[0]->state, CacheState::Miss);
    QCOMPARE(*aot[0]->key, std::string("avddz3w5f2geiueawjvndebxkxjym6xzd3menaq5e74jy3j7fwen"));
    QCOMPARE(aot[0]->detailedStatus, std::string("full_miss"));
    QCOMPARE(aot[0]->line, 831);
    QCOMPARE(aot[0]->components.size(), std::size_t(538));
    QCOMPARE(fx[0]->components.size(), std::size_t(540));
    QCOMPARE(fx[1]->components.size(), std::size_t(542));
    QCOMPARE(fx[0]->state, CacheState::Miss);
    QCOMPARE(*fx[0]->key, std::string("fok4sqjz3xt6ytz5cvvggv6f34dqyvragfdprjfoa2m7yjbjqbaz"));
    QCOMPARE(*fx[0]->timeTakenNs, std::int64_t(1535050371));
    QCOMPARE(*fx[0]->cacheEventTime, std::int64_t(1795310492919180130));
    QCOMPARE(*fx[1]->timeTakenNs, std::int64_t(394601212));
    QVERIFY(!fx[0]->timeSavedNs);
    QCOMPARE(fx[0]->compileId.toString(), std::string("0/0"));
    QCOMPARE(fx[0]->line, 2831);
    QVERIFY(fx[0]->checksumOk);

    const int inductorConfig = int(std::count_if(
        fx[0]->components.begin(), fx[0]->components.end(),
        [](const model::KeyComponent& c) { return c.family == "inductor_config"; }));
    QCOMPARE(inductorConfig, 509);
    const auto* fusion = fx[0]->component("inductor_config[max_fusion_size]");
    QVERIFY(fusion);
    QCOMPARE(fusion->value, std::string("64"));
    QCOMPARE(fusion->index, std::string("max_fusion_size"));
    QCOMPARE(fusion->family, std::string("inductor_config"));
    QCOMPARE(fusion->digest, std::string("jykiys6ynafs3zdylwa5ggq6j655mxeh42d6mtdi22gffkrmiac"));
    QVERIFY(fusion->readable);

    const auto* gm = aot[0]->component("gm");
    QVERIFY(gm);
    QVERIFY(gm->value.rfind("GraphModule()\n\n\n\ndef forward(self, p_0 : torch.Tensor", 0) == 0);
    QVERIFY(gm->value.find("    return (mul,)") != std::string::npos);
    QVERIFY(gm->readable);
    QVERIFY(!aot[0]->component("autograd_config")->readable);
    QVERIFY(!aot[0]->component("torch_version")->readable);
    QCOMPARE(aot[0]->component("cache_key_tag")->value, std::string());
    QCOMPARE(aot[0]->component("example_inputs[1]")->index, std::string("1"));
    QCOMPARE(aot[0]->component("system_info[device]")->value,
             std::string("{'name': 'NVIDIA H200'}"));
}

void TestTorchTraceReader::basicWarmAllHits()
{
    const auto r = readFixture("basic_warm");
    QCOMPARE(r.run.lookups.size(), std::size_t(3));
    for (const auto& l : r.run.lookups) {
        QCOMPARE(l.state, CacheState::Hit);
        QCOMPARE(l.detailedStatus, std::string("hit"));
        QCOMPARE(l.compileId.toString(), std::string("0/0")); // fx hits log no compile_id
    }
    const auto aot = lookupsOf(r.run, CacheKind::AotAutograd);
    QCOMPARE(aot.size(), std::size_t(1));
    QCOMPARE(*aot[0]->timeSavedMs, 2599.0);
    QCOMPARE(*aot[0]->forwardTimeSavedMs, 2205.0);
    QCOMPARE(*aot[0]->backwardTimeSavedMs, 394.0);
    const auto fx = lookupsOf(r.run, CacheKind::FxGraph);
    QCOMPARE(*fx[0]->timeSavedNs, std::int64_t(1535050371)); // the cold miss's time_taken_ns
    QCOMPARE(*fx[1]->timeSavedNs, std::int64_t(394601212));
    QCOMPARE(*fx[0]->key, std::string("fok4sqjz3xt6ytz5cvvggv6f34dqyvragfdprjfoa2m7yjbjqbaz"));
}

void TestTorchTraceReader::basicConfigMaxFusionSize()
{
    const auto r = readFixture("basic_config");
    QCOMPARE(r.run.lookups.size(), std::size_t(3));
    for (const auto& l : r.run.lookups) {
        QCOMPARE(l.state, CacheState::Miss);
        const auto* c = l.component("inductor_config[max_fusion_size]");
        QVERIFY(c);
        QCOMPARE(c->value, std::string("32"));
    }
}

void TestTorchTraceReader::autogradFunctionBypass()
{
    for (const char* run : {"autograd_fn_cold", "autograd_fn_warm"}) {
        const auto r = readFixture(run);
        const auto aot = lookupsOf(r.run, CacheKind::AotAutograd);
        QCOMPARE(aot.size(), std::size_t(1));
        QCOMPARE(aot[0]->state, CacheState::Bypass);
        QCOMPARE(aot[0]->bypassReason,
                 std::string("Unsupported call_function target autograd_function_apply. \n "
                             "Function module: torch.ops.higher_order, \nFunction name: "
                             "autograd_function_apply"));
        QCOMPARE(aot[0]->bypassExceptionType, std::string("BypassAOTAutogradCache"));
        QVERIFY(!aot[0]->bypassHardException);
        QVERIFY(!aot[0]->key);
        QVERIFY(aot[0]->components.empty());
        QCOMPARE(aot[0]->line, 577);
        const auto fx = lookupsOf(r.run, CacheKind::FxGraph);
        QCOMPARE(fx.size(), std::size_t(2));
        const auto expected = std::string(run) == "autograd_fn_cold" ? CacheState::Miss
                                                                      : CacheState::Hit;
        QCOMPARE(fx[0]->state, expected);
        QCOMPARE(fx[1]->state, expected);
        QCOMPARE(fx[1]->components.size(), std::size_t(539));
    }
}

void TestTorchTraceReader::regionalFxCacheDisabled()
{
    const auto r = readFixture("regional_cold");
    const auto aot = lookupsOf(r.run, CacheKind::AotAutograd);
    const auto fx = lookupsOf(r.run, CacheKind::FxGraph);
    QCOMPARE(aot.size(), std::size_t(2));
    QCOMPARE(aot[0]->state, CacheState::Miss);
    QCOMPARE(aot[1]->state, CacheState::Miss);
    QCOMPARE(aot[1]->components.size(), std::size_t(539));
    // PyTorch 2.11 logs the disabled FX cache only as instant chromium events (lines 2587, 5572).
    QCOMPARE(fx.size(), std::size_t(2));
    QCOMPARE(fx[0]->state, CacheState::Disabled);
    QCOMPARE(fx[0]->line, 2587);
    QCOMPARE(fx[1]->line, 5572);
    QCOMPARE(fx[0]->origin, std::string("chromium_event"));
    QCOMPARE(fx[0]->compileId.toString(), std::string("0/0"));
    QVERIFY(!fx[0]->key);
    QCOMPARE(r.run.kindCounts.at("aot_inference_graph"), 2);
}

void TestTorchTraceReader::chromiumEventsAndMetrics()
{
    const auto r = readFixture("basic_cold");
    const auto& first = r.run.events.front();
    // Line 1: the first record is a chromium event opening dynamo's compile.
    QCOMPARE(first.line, 1);
    QCOMPARE(first.compileId.toString(), std::string("0/0"));
    QCOMPARE(first.name, std::string("dynamo"));
    QCOMPARE(first.phase, std::string("B"));
    QCOMPARE(first.tsUs, 1795310490999094.0);
    QCOMPARE(first.argsJson, std::string("{\n\"compile_id\": \"0/0\"\n}"));
    QCOMPARE(first.category, std::string("dynamo_timed"));
    const auto begins = std::count_if(r.run.events.begin(), r.run.events.end(),
                                      [](const auto& e) { return e.phase == "B"; });
    const auto ends = std::count_if(r.run.events.begin(), r.run.events.end(),
                                    [](const auto& e) { return e.phase == "E"; });
    QCOMPARE(begins, ends);
    const auto bypass = readFixture("autograd_fn_cold");
    const auto it = std::find_if(bypass.run.events.begin(), bypass.run.events.end(),
                                 [](const auto& e) { return e.name == "autograd_cache_bypass"; });
    QVERIFY(it != bypass.run.events.end());
    QCOMPARE(it->phase, std::string("i"));
    QCOMPARE(it->line, 542);
    QVERIFY(it->argsJson.find("cache_bypass_reason") != std::string::npos);

    QCOMPARE(r.run.metrics.size(), std::size_t(4));
    QCOMPARE(r.run.metrics[0].kind, std::string("compilation_metrics"));
    QCOMPARE(r.run.metrics[0].compileId.toString(), std::string("0/0"));
    QVERIFY(r.run.metrics[0].json.find("\"co_name\": \"fn\"") != std::string::npos);
    QCOMPARE(r.run.metrics[3].kind, std::string("bwd_compilation_metrics_runtime"));
}

void TestTorchTraceReader::textArtifacts()
{
    const auto r = readFixture("basic_cold");
    int code = 0;
    int runnable = 0;
    for (const auto& t : r.run.texts) {
        if (t.kind == "inductor_output_code") {
            ++code;
            QVERIFY(t.filename.rfind("/tmp/run/cache_A/", 0) == 0);
            QVERIFY(t.text.rfind("# AOT ID: ['0_", 0) == 0);
            QVERIFY(t.checksumOk);
        } else if (t.kind == "fx_graph_runnable") {
            ++runnable;
        }
        QVERIFY(t.kind != "before_pre_grad_graph"); // graphs are graph artifacts
    }
    QCOMPARE(code, 2);
    QCOMPARE(runnable, 2);
    const auto guards =
        std::count_if(r.run.texts.begin(), r.run.texts.end(),
                      [](const auto& t) { return t.kind == "dynamo_cpp_guards_str"; });
    QCOMPARE(guards, 1);
}

void TestTorchTraceReader::internedStrings()
{
    const auto r = readFixture("basic_cold");
    const auto& table = r.run.internedStrings.at(fixturePath("basic_cold").toStdString());
    QCOMPARE(table.size(), std::size_t(2));
    QCOMPARE(table.at(1), std::string("/home/user/demo/scenario.py"));
    QVERIFY(table.at(0).find("torch/_dynamo/convert_frame.py") != std::string::npos);
}

void TestTorchTraceReader::everyGraphPayloadParses_data()
{
    QTest::addColumn<QString>("run");
    for (const char* run : kFixtures) {
        QTest::newRow(run) << run;
    }
}

void TestTorchTraceReader::everyGraphPayloadParses()
{
    QFETCH(QString, run);
    const std::string text = fixtureText(run.toUtf8().constData());
    const auto payloads = graphPayloads(text);
    const auto r = readFixture(run.toUtf8().constData());
    QCOMPARE(r.run.graphs.size(), payloads.size());
    for (std::size_t i = 0; i < payloads.size(); ++i) {
        const auto& g = r.run.graphs[i];
        const QByteArray where = (run + ":" + QString::number(g.line)).toUtf8();
        QCOMPARE(g.line, payloads[i].line);
        QVERIFY2(g.graph, where.constData());
        QVERIFY2(g.unparsedLines == 0, where.constData());
        const int expected = countStatements(payloads[i].code);
        QVERIFY2(expected > 0, where.constData());
        QCOMPARE(int(totalNodes(*g.graph)), expected);
        QCOMPARE(g.statements, expected);
    }
}

void TestTorchTraceReader::skipDecodingKeepsEnvelopes()
{
    io::TraceReadOptions options;
    options.parseGraphs = false;
    options.decodePayloads = false;
    const auto r = readFixture("basic_cold", options);
    QVERIFY(r.diagnostics.empty());
    QCOMPARE(r.run.payloadsVerified, 207);
    QCOMPARE(r.run.graphs.size(), std::size_t(10));
    QVERIFY(!r.run.graphs.front().graph);
    QCOMPARE(r.run.lookups.size(), std::size_t(3));
    QVERIFY(r.run.lookups.front().components.empty());
    QVERIFY(r.run.events.empty());
    QCOMPARE(r.run.kindCounts.at("chromium_event"), 185);
}

void TestTorchTraceReader::truncatedInsidePayload()
{
    // Cut basic_cold in the middle of the aot_forward_graph payload (envelope at 1189).
    const auto lines = splitLines(fixtureText("basic_cold"));
    std::string cut = joinLines(lines, 1195);
    cut += lines[1195].substr(0, lines[1195].size() / 2); // line 1196, no newline
    const auto r = io::readTorchTrace(cut, "cut.log");
    QVERIFY(r.readSomething);
    QCOMPARE(r.run.lookups.size(), std::size_t(1)); // the aot miss at 831 survived
    QCOMPARE(r.run.lookups[0].components.size(), std::size_t(538));
    QVERIFY2(hasDiagnosticAt(r.diagnostics, 1196, "ends inside a payload"),
             diagText(r.diagnostics).c_str());
    // One error for the cut (its MD5 fails because it is cut), not one per symptom.
    QVERIFY(hasDiagnosticAt(r.diagnostics, 1196, "MD5 does not match"));
    QVERIFY(!hasDiagnosticAt(r.diagnostics, 1189, "MD5"));
    QCOMPARE(r.run.payloadMismatches, 1);
    QCOMPARE(r.run.graphs.back().line, 1189);
    QVERIFY(!r.run.graphs.back().checksumOk);
}

void TestTorchTraceReader::flippedPayloadByte()
{
    auto lines = splitLines(fixtureText("basic_cold"));
    // Line 2832: the payload of the fx_graph_cache_miss envelope at 2831 (one JSON line).
    const auto at = lines[2831].find("full_miss");
    QVERIFY(at != std::string::npos);
    lines[2831][at] = 'F';
    const auto r = io::readTorchTrace(joinLines(lines, lines.size()), "flip.log");
    QCOMPARE(r.run.payloadMismatches, 1);
    QCOMPARE(r.run.payloadsVerified, 206);
    QCOMPARE(r.diagnostics.size(), std::size_t(1));
    const auto& d = r.diagnostics.items().front();
    QCOMPARE(d.line, 2831);
    QCOMPARE(d.expected.size(), std::size_t(32));
    QCOMPARE(d.found.size(), std::size_t(32));
    QVERIFY(d.expected != d.found);
    const auto fx = lookupsOf(r.run, CacheKind::FxGraph);
    QCOMPARE(fx[0]->detailedStatus, std::string("Full_miss")); // kept, flagged
    QVERIFY(!fx[0]->checksumOk);
    QVERIFY(fx[1]->checksumOk);
}

void TestTorchTraceReader::envelopeNotJson()
{
    auto lines = splitLines(fixtureText("basic_cold"));
    // Line 831 is the aotautograd_cache_miss envelope: replace its JSON.
    const auto bracket = lines[830].find("] {");
    lines[830] = lines[830].substr(0, bracket + 2) + "{not json";
    const auto r = io::readTorchTrace(joinLines(lines, lines.size()), "bad.log");
    QVERIFY(r.readSomething);
    QVERIFY2(hasDiagnosticAt(r.diagnostics, 831, "envelope is not valid"),
             diagText(r.diagnostics).c_str());
    QCOMPARE(r.diagnostics.size(), std::size_t(1));
    QCOMPARE(r.diagnostics.items().front().found, std::string("{not json"));
    QCOMPARE(lookupsOf(r.run, CacheKind::AotAutograd).size(), std::size_t(0));
    QCOMPARE(lookupsOf(r.run, CacheKind::FxGraph).size(), std::size_t(2));
    QCOMPARE(r.run.payloads, 206);
}

void TestTorchTraceReader::randomBytes()
{
    std::string garbage;
    std::uint32_t x = 12345;
    for (int i = 0; i < 4096; ++i) {
        x = x * 1664525u + 1013904223u;
        garbage.push_back(char(x >> 24));
    }
    const auto r = io::readTorchTrace(garbage, "garbage.bin");
    QVERIFY(!r.readSomething);
    QVERIFY(!r.diagnostics.empty());
    QCOMPARE(r.diagnostics.items().front().line, 1);
    QVERIFY(r.diagnostics.size() <= 22); // unreadable lines are summarised, not listed 1:1

    // Garbage appended to a good log: the good part is kept.
    const auto lines = splitLines(fixtureText("basic_warm"));
    // Lines 1-308 end with the aot_joint_graph record (275-308); garbage starts at 309.
    const auto mixed = io::readTorchTrace(joinLines(lines, 308) + garbage, "mixed.log");
    QVERIFY(mixed.readSomething);
    QCOMPARE(mixed.run.graphs.size(), std::size_t(4)); // graphs at 99, 149, 260, 275
    QVERIFY(!mixed.diagnostics.empty());
    QVERIFY(mixed.diagnostics.items().front().line >= 309);
    QCOMPARE(mixed.run.payloadMismatches, 0);
}

void TestTorchTraceReader::emptyFileAndMissingFile()
{
    const auto empty = io::readTorchTrace("", "empty.log");
    QVERIFY(!empty.readSomething);
    QCOMPARE(empty.diagnostics.size(), std::size_t(1));
    QVERIFY(empty.diagnostics.items().front().message.find("empty") != std::string::npos);

    const auto missing = io::readTorchTracePath("/nonexistent/fxscope/trace.log");
    QVERIFY(!missing.readSomething);
    QCOMPARE(missing.diagnostics.size(), std::size_t(1));
    QCOMPARE(missing.diagnostics.items().front().file,
             std::string("/nonexistent/fxscope/trace.log"));
}

void TestTorchTraceReader::strayLinesAndUnknownKinds()
{
    const std::string log =
        "V1122 01:21:31.000000 434 a.py:1] {\"str\": [\"/x.py\", 3]}\n"
        "this is not a log line\n"
        "\torphan payload\n"
        "V1122 01:21:31.000000 434 a.py:2] {\"brand_new_kind\": {}, \"frame_id\": 1, "
        "\"frame_compile_id\": 2, \"attempt\": 1, \"has_payload\": "
        "\"5d41402abc4b2a76b9719d911017c592\"}\n"
        "\thello\n"
        "V1122 01:21:31.000000 434 a.py:3] {\"frame_id\": 1}\n";
    const auto r = io::readTorchTrace(log, "t.log");
    QVERIFY(r.readSomething);
    QVERIFY(hasDiagnosticAt(r.diagnostics, 2, "neither"));
    QVERIFY(hasDiagnosticAt(r.diagnostics, 3, "without an envelope"));
    QVERIFY(hasDiagnosticAt(r.diagnostics, 6, "no kind key"));
    QCOMPARE(r.diagnostics.size(), std::size_t(3));
    QCOMPARE(r.run.unknownKinds.at("brand_new_kind"), 1);
    QCOMPARE(r.run.payloadsVerified, 1); // md5("hello")
    QCOMPARE(r.run.texts.size(), std::size_t(1));
    QCOMPARE(r.run.texts[0].text, std::string("hello"));
    QCOMPARE(r.run.texts[0].compileId.toString(), std::string("1/2_1"));
    QCOMPARE(r.run.internedStrings.at("t.log").at(3), std::string("/x.py"));
}

void TestTorchTraceReader::idsAndPayloadEdges()
{
    const std::string log =
        // 1: compiled autograd id and rank; payload "x" (md5 9dd4e461268c8034f5c8564e155c67a6)
        "I1122 01:21:31.000000 7 a.py:1] {\"dynamo_cpp_guards_str\": {}, \"frame_id\": 3, "
        "\"frame_compile_id\": 1, \"attempt\": 0, \"compiled_autograd_id\": 2, \"rank\": 5, "
        "\"has_payload\": \"9dd4e461268c8034f5c8564e155c67a6\"}\n"
        "\tx\n"
        // 3: has_payload but no payload lines follow
        "V1122 01:21:31.000000 7 a.py:2] {\"dynamo_cpp_guards_str\": {}, \"has_payload\": "
        "\"9dd4e461268c8034f5c8564e155c67a6\"}\n"
        // 4: payload lines without has_payload (kept, unchecked)
        "V1122 01:21:31.000000 7 a.py:3] {\"dynamo_cpp_guards_str\": {}}\n"
        "\ty\n";
    const auto r = io::readTorchTrace(log, "ids.log");
    QCOMPARE(r.run.texts.size(), std::size_t(3));
    QCOMPARE(r.run.texts[0].compileId.toString(), std::string("!2/3/1"));
    QCOMPARE(r.run.texts[0].rank, 5);
    QCOMPARE(r.run.texts[0].text, std::string("x"));
    QVERIFY(!r.run.texts[1].compileId.valid());
    QVERIFY(!r.run.texts[1].checksumOk);
    QCOMPARE(r.run.texts[2].text, std::string("y"));
    QCOMPARE(r.run.payloads, 2);
    QCOMPARE(r.run.payloadsVerified, 1);
    QCOMPARE(r.run.payloadMismatches, 1);
    QVERIFY2(hasDiagnosticAt(r.diagnostics, 3, "payload is missing"),
             diagText(r.diagnostics).c_str());
    QVERIFY(hasDiagnosticAt(r.diagnostics, 5, "without has_payload"));
    QCOMPARE(r.diagnostics.size(), std::size_t(2));
}

void TestTorchTraceReader::directoryOfTwoRanks()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string text = fixtureText("basic_cold");
    for (int rank = 0; rank < 2; ++rank) {
        // Add "rank" to every envelope that has ids; payload digests stay valid.
        QString copy = QString::fromStdString(text);
        copy.replace("\"attempt\": 0", QString("\"attempt\": 0, \"rank\": %1").arg(rank));
        QFile f(dir.filePath(QString("rank_%1.log").arg(rank)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(copy.toUtf8());
    }
    const auto r = io::readTorchTracePath(dir.path().toStdString());
    QVERIFY2(r.diagnostics.errorCount() == 0, diagText(r.diagnostics).c_str());
    QCOMPARE(r.diagnostics.size(), std::size_t(1)); // a note: one run after all (the ranks)
    QCOMPARE(r.run.files.size(), std::size_t(2));
    QCOMPARE(r.run.path, dir.path().toStdString());
    QCOMPARE(r.run.lookups.size(), std::size_t(6));
    QCOMPARE(r.run.graphs.size(), std::size_t(20));
    QCOMPARE(r.run.kindCounts.at("chromium_event"), 2 * 185);
    std::set<int> ranks;
    for (const auto& l : r.run.lookups) {
        ranks.insert(l.rank);
        QCOMPARE(l.run, dir.path().toStdString());
    }
    QCOMPARE(ranks, (std::set<int>{0, 1}));
    QCOMPARE(r.run.graphs.back().rank, 1);
    QCOMPARE(r.run.internedStrings.size(), std::size_t(2));
}

// Compile and cache-miss events of PyTorch 2.5+ carry a whole cache key in their args: read at
// import (into lookups), not kept a second time. Smaller args are kept as logged.
void TestTorchTraceReader::largeEventArgsAreReadNotKept()
{
    const auto r = readFixture("basic_cold");
    int large = 0;
    int small = 0;
    for (const auto& e : r.run.events) {
        if (e.argsBytes > model::kKeptEventArgsBytes) {
            QVERIFY2(e.argsJson.empty(), e.name.c_str());
            ++large;
        } else {
            QCOMPARE(e.argsJson.size(), e.argsBytes);
            small += e.argsBytes > 0 ? 1 : 0;
        }
    }
    QCOMPARE(large, 7); // counted in the log by hand (json.dumps of each event's args)
    QVERIFY(small > 100);
}

// A rank log is mostly events and cache keys: its graphs' code is kept in a buffer of its own
// (not the whole file's bytes), and still parses to the graphs an import that parses gives.
void TestTorchTraceReader::rankLogsKeepOnlyTheirGraphCode()
{
    const std::string dir = FXSCOPE_TEST_DATA "/recorded/traces/nccl_same";
    io::TraceReadOptions deferred;
    deferred.parseGraphs = false;
    const auto lazy = io::readTorchTracePath(dir, deferred);
    const auto eager = io::readTorchTracePath(dir);
    QCOMPARE(lazy.run.graphs.size(), eager.run.graphs.size());
    QVERIFY(!lazy.run.graphs.empty());
    std::set<const std::string*> buffers;
    for (std::size_t i = 0; i < lazy.run.graphs.size(); ++i) {
        const auto& g = lazy.run.graphs[i];
        QVERIFY(g.code.buffer);
        buffers.insert(g.code.buffer.get());
        QVERIFY(g.deferred);
        const auto& parsed = g.deferred->get();
        QVERIFY(parsed.graph && eager.run.graphs[i].graph);
        QCOMPARE(parsed.graph->size(), eager.run.graphs[i].graph->size());
        QCOMPARE(parsed.statements, eager.run.graphs[i].statements);
    }
    QCOMPARE(buffers.size(), std::size_t(2)); // one per rank log
    for (const auto* b : buffers) {
        QVERIFY2(b->size() < 10000, std::to_string(b->size()).c_str()); // each log: 519,870 B
    }
}

void TestTorchTraceReader::sniffing()
{
    QVERIFY(io::looksLikeTorchTrace(fixtureText("basic_warm")));
    QVERIFY(!io::looksLikeTorchTrace("class GraphModule(torch.nn.Module):\n"));
    QVERIFY(!io::looksLikeTorchTrace(""));
    QVERIFY(!io::looksLikeTorchTrace("V1122 01:21:31.000000 434 a.py:1] not json\n"));
    QVERIFY(io::looksLikeTorchTrace("I0101 00:00:00.000000 1 x.py:9] {\"str\": [\"a\", 0]}"));
}

QTEST_GUILESS_MAIN(TestTorchTraceReader)
#include "tst_torch_trace_reader.moc"

FXSCOPE_TEST_END
