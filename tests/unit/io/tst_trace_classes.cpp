// The classes of TORCH_TRACE logs tlparse reads that fxscope misread (issue #28), on the small
// hand-made logs of tests/data/trace_classes (make_trace_classes.py says what each holds):
// CRLF line ends, no final newline, blank lines in payloads, "None" compile ids, rank folders
// (rank from the file name, records before init_process_group, stray files, two files for one
// rank, envelope ranks that disagree), process folders, links, storages and unknown kinds.
#include "core/io/directory_plan.h"
#include "core/io/torch_trace_reader.h"
#include "core/util/digest.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <set>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

const std::string kData = FXSCOPE_TEST_DATA "/trace_classes/";

std::size_t count(const Diagnostics& d, Severity s)
{
    return std::count_if(d.items().begin(), d.items().end(),
                         [&](const Diagnostic& x) { return x.severity == s; });
}

bool mentions(const Diagnostics& d, Severity s, const std::string& fragment)
{
    return std::any_of(d.items().begin(), d.items().end(), [&](const Diagnostic& x) {
        return x.severity == s && x.toString().find(fragment) != std::string::npos;
    });
}

std::string text(const Diagnostics& d)
{
    std::string s;
    for (const auto& x : d.items()) {
        s += x.toString() + "\n";
    }
    return s;
}

io::TraceReadResult read(const std::string& name)
{
    return io::readTorchTracePath(kData + name);
}

std::set<int> ranksOf(const model::Run& run)
{
    std::set<int> out;
    for (const auto& g : run.graphs) {
        out.insert(g.rank);
    }
    for (const auto& d : run.dynamoStarts) {
        out.insert(d.origin.rank);
    }
    for (const auto& t : run.texts) {
        out.insert(t.rank);
    }
    return out;
}

void writeFile(const QString& path, const std::string& bytes)
{
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
}

} // namespace

class TestTraceClasses : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void crlfLineEndsReadClean()
    {
        const auto r = read("crlf.log");
        QVERIFY2(r.diagnostics.empty(), text(r.diagnostics).c_str());
        QCOMPARE(r.run.payloads, 2);
        QCOMPARE(r.run.payloadsVerified, 2);
        QCOMPARE(r.run.graphs.size(), std::size_t(1));
        QVERIFY(r.run.graphs[0].graph);
        QCOMPARE(r.run.graphs[0].statements, 3);
        const auto& guards = r.run.texts.at(0).text;
        QVERIFY(guards.find('\r') == std::string::npos);
        QCOMPARE(r.run.metrics.size(), std::size_t(1));
        QCOMPARE(r.run.dynamoStarts.at(0).stack.at(0).file, std::string("/home/user/demo/demo.py"));
    }

    void crlfPayloadKeptByReference()
    {
        io::TraceReadOptions deferred;
        deferred.parseGraphs = false;
        const auto r = io::readTorchTracePath(kData + "crlf.log", deferred);
        QVERIFY2(r.diagnostics.empty(), text(r.diagnostics).c_str());
        const std::string code = r.run.graphs.at(0).code.text();
        QVERIFY(code.find('\r') == std::string::npos);
        QVERIFY(code.starts_with("class GraphModule(torch.nn.Module):\n    def forward"));
        QVERIFY(r.run.graphs[0].deferred && r.run.graphs[0].deferred->get().graph);
    }

    void noFinalNewlineAfterACompletePayload()
    {
        const auto r = read("no_final_newline.log");
        QVERIFY2(r.diagnostics.empty(), text(r.diagnostics).c_str());
        QCOMPARE(r.run.payloadsVerified, 1);
        QVERIFY(r.run.graphs.at(0).checksumOk);
    }

    void aCutPayloadIsStillAnError()
    {
        const auto r = read("cut_payload.log");
        // One reader error for the cut (the graph parser adds its own about the cut graph).
        const auto md5 = std::count_if(r.diagnostics.items().begin(), r.diagnostics.items().end(),
                                       [](const Diagnostic& d) {
                                           return d.message.find("MD5") != std::string::npos;
                                       });
        QCOMPARE(int(md5), 1);
        QVERIFY2(mentions(r.diagnostics, Severity::Error, "ends inside a payload (truncated?); its "
                                                          "MD5 does not match"),
                 text(r.diagnostics).c_str());
        QCOMPARE(r.run.payloadMismatches, 1);
        QVERIFY(!r.run.graphs.at(0).checksumOk);
    }

    void aWrongMd5IsStillAnError()
    {
        auto bytes = *readFile(kData + "crlf.log");
        bytes[bytes.find("torch.sin")] = 'T';
        const auto r = io::readTorchTrace(bytes, "flipped.log");
        QCOMPARE(count(r.diagnostics, Severity::Error), std::size_t(1));
        QVERIFY(mentions(r.diagnostics, Severity::Error, "MD5 does not match"));
    }

    void blankLinesInsideAPayloadAreDropped()
    {
        const auto r = read("blank_lines.log");
        QCOMPARE(count(r.diagnostics, Severity::Error), std::size_t(0));
        QCOMPARE(count(r.diagnostics, Severity::Warning), std::size_t(0));
        QVERIFY2(mentions(r.diagnostics, Severity::Note, "5 blank line(s)"),
                 text(r.diagnostics).c_str());
        QCOMPARE(r.run.payloadsVerified, 1);
        QCOMPARE(r.run.graphs.size(), std::size_t(1));
        QCOMPARE(r.run.graphs[0].statements, 3);
        QCOMPARE(r.run.metrics.size(), std::size_t(1)); // the record after the payload
    }

    void blankLinesThatArePartOfThePayload()
    {
        // The payload "a\n\nb" written without the TAB of its empty line: its MD5 counts it.
        const std::string log = "V1128 09:00:00.000000 1 a.py:1] {\"dynamo_guards\": {}, "
                                "\"has_payload\": \"" +
                                toHex(md5("a\n\nb")) + "\"}\n\ta\n\n\tb\n";
        const auto r = io::readTorchTrace(log, "kept.log");
        QCOMPARE(count(r.diagnostics, Severity::Error), std::size_t(0));
        QCOMPARE(r.run.payloadsVerified, 1);
    }

    void noneCompileIdsAreNoErrors()
    {
        const auto r = read("compile_id_none.log");
        QVERIFY2(count(r.diagnostics, Severity::Error) == 0, text(r.diagnostics).c_str());
        QCOMPARE(r.run.events.size(), std::size_t(2));
        QVERIFY(!r.run.events[0].compileId.valid());
    }

    void rankFromFileNames()
    {
        auto rank = [](const char* name) { return io::rankFromFileName(name).value_or(-1); };
        QCOMPARE(rank("dedicated_log_torch_trace_rank_3.log"), 3);
        QCOMPARE(rank("dedicated_log_torch_trace_rank_12_6u3fubwl.log"), 12);
        QCOMPARE(rank("dedicated_log_torch_trace_rank_0_a.log.gz"), 0);
        QVERIFY(!io::rankFromFileName("dedicated_log_torch_trace_6u3fubwl.log"));
        QVERIFY(!io::rankFromFileName("dedicated_log_torch_trace_rank_x.log"));
        QVERIFY(!io::rankFromFileName("dedicated_log_torch_trace_rank_1.txt"));
        QVERIFY(!io::rankFromFileName("rank_1.log"));
    }

    void rankFolderAsTlparseReadsIt()
    {
        const auto plan = io::planDirectory(kData + "ranks");
        QCOMPARE(plan.runs.size(), std::size_t(1));
        QCOMPARE(plan.runs[0].files.size(), std::size_t(2));
        QCOMPARE(plan.runs[0].files[1].rank, 1);
        QVERIFY(mentions(plan.notes, Severity::Note, "notes.txt: ignored"));
        QVERIFY(mentions(plan.notes, Severity::Note, "another.log: ignored"));

        const auto runs = io::readTorchTraceRuns(kData + "ranks");
        QCOMPARE(runs.size(), std::size_t(1));
        const auto& r = runs[0];
        QCOMPARE(count(r.diagnostics, Severity::Error), std::size_t(0));
        QCOMPARE(count(r.diagnostics, Severity::Warning), std::size_t(0));
        QCOMPARE(r.run.files.size(), std::size_t(2));
        // Records logged before init_process_group (no rank) are their file's rank's.
        QCOMPARE(ranksOf(r.run), (std::set<int>{0, 1}));
        QCOMPARE(r.run.dynamoStarts.size(), std::size_t(4));
        QCOMPARE(r.run.dynamoStarts[0].origin.rank, 0);
        QCOMPARE(r.run.dynamoStarts[2].origin.rank, 1);
    }

    void ranksReadConcurrentlyMergeInRankOrder()
    {
        io::TraceReadOptions one;
        one.readThreads = 1;
        io::TraceReadOptions four;
        four.readThreads = 4;
        const auto a = io::readTorchTracePath(kData + "ranks", one);
        const auto b = io::readTorchTracePath(kData + "ranks", four);
        QCOMPARE(b.run.files, a.run.files);
        QCOMPARE(b.run.files.size(), std::size_t(2));
        QVERIFY(b.run.files[0].find("rank_0") != std::string::npos);
        QCOMPARE(b.run.graphs.size(), a.run.graphs.size());
        for (std::size_t i = 0; i < a.run.dynamoStarts.size(); ++i) {
            QCOMPARE(b.run.dynamoStarts[i].origin.rank, a.run.dynamoStarts[i].origin.rank);
            QCOMPARE(b.run.dynamoStarts[i].origin.line, a.run.dynamoStarts[i].origin.line);
        }
        QCOMPARE(b.diagnostics.size(), a.diagnostics.size());
    }

    void envelopeRankThatDisagreesWithTheName()
    {
        const auto r = io::readTorchTracePath(kData + "rank_conflict");
        QCOMPARE(count(r.diagnostics, Severity::Error), std::size_t(0));
        QCOMPARE(count(r.diagnostics, Severity::Warning), std::size_t(1));
        QVERIFY2(mentions(r.diagnostics, Severity::Warning,
                          "the envelope says rank 0 but the file name says rank 1"),
                 text(r.diagnostics).c_str());
        QCOMPARE(ranksOf(r.run), (std::set<int>{0, 1}));
    }

    void twoFilesThatClaimOneRank()
    {
        const auto r = io::readTorchTracePath(kData + "same_rank");
        QVERIFY2(mentions(r.diagnostics, Severity::Warning, "rank 0 is claimed by 2 files"),
                 text(r.diagnostics).c_str());
        QCOMPARE(r.run.files.size(), std::size_t(2));
    }

    void separateProcessesAreSeparateRuns()
    {
        const auto runs = io::readTorchTraceRuns(kData + "processes");
        QCOMPARE(runs.size(), std::size_t(2));
        QVERIFY(runs[0].run.path.ends_with("dedicated_log_torch_trace_p1.log"));
        QVERIFY(runs[1].run.path.ends_with("dedicated_log_torch_trace_p2.log"));
        QVERIFY(mentions(runs[0].diagnostics, Severity::Note, "separate processes"));
        // One command that needs one run merges them (explain, a graph's selector).
        const auto merged = io::readTorchTracePath(kData + "processes");
        QCOMPARE(merged.run.files.size(), std::size_t(2));
        QCOMPARE(merged.run.path, kData + "processes");
    }

    void unnamedLogsWithEnvelopeRanksAreOneRun()
    {
        // Logs opened before init_process_group carry no rank in their names, only in records.
        QTemporaryDir dir;
        const auto ranked = *readFile(kData + "rank_conflict/dedicated_log_torch_trace_rank_0.log");
        auto other = ranked;
        for (auto at = other.find("\"rank\": 0"); at != std::string::npos;
             at = other.find("\"rank\": 0", at)) {
            other.replace(at, 9, "\"rank\": 1");
        }
        writeFile(dir.filePath("dedicated_log_torch_trace_aaaa.log"), ranked);
        writeFile(dir.filePath("dedicated_log_torch_trace_bbbb.log"), other);
        writeFile(dir.filePath("empty.log"), "");
        const auto runs = io::readTorchTraceRuns(dir.path().toStdString());
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(ranksOf(runs[0].run), (std::set<int>{0, 1}));
        QCOMPARE(count(runs[0].diagnostics, Severity::Error), std::size_t(0));
        QVERIFY(mentions(runs[0].diagnostics, Severity::Note, "one distributed run"));
    }

    void linksStoragesAndUnknownKinds()
    {
        const auto r = read("other_kinds.log");
        QVERIFY2(count(r.diagnostics, Severity::Error) == 0, text(r.diagnostics).c_str());
        QCOMPARE(r.run.unknownKinds,
                 (std::map<std::string, int>{{"create_unbacked_symbol", 1},
                                             {"expression_created", 2}}));
        QCOMPARE(r.run.texts.size(), std::size_t(1));
        QCOMPARE(r.run.texts[0].kind, std::string("link"));
        QCOMPARE(r.run.texts[0].filename, std::string("manifold_url"));
        QCOMPARE(r.run.texts[0].text, std::string("https://example.com/trace"));
        QCOMPARE(r.run.tensors.size(), std::size_t(1));
        QCOMPARE(r.run.tensors[0].storage, 0);
        QCOMPARE(r.run.tensors[0].storageBytes, std::int64_t(512));
        QCOMPARE(r.run.tensors[0].source, std::string("L['x']"));
    }

    void compileIdsReusedAfterReset()
    {
        const auto r = read("reset.log");
        QVERIFY2(r.diagnostics.empty(), text(r.diagnostics).c_str());
        QCOMPARE(r.run.dynamoStarts.size(), std::size_t(4));
        QCOMPARE(r.run.dynamoStarts[1].origin.compileId.toString(), std::string("1/0"));
        QCOMPARE(r.run.dynamoStarts[2].origin.compileId.toString(),
                 std::string("0/0 after reset 1"));
        QCOMPARE(r.run.metrics[3].compileId.toString(), std::string("1/0 after reset 1"));
        // The "dynamo" event opened just before the second session's dynamo_start is its.
        QCOMPARE(r.run.events.size(), std::size_t(8));
        QCOMPARE(r.run.events[4].phase, std::string("B"));
        QCOMPARE(r.run.events[4].compileId.session, 1);
        QCOMPARE(r.run.events[3].compileId.session, 0);
        const auto parsed = model::CompileId::parse("0/0_1 after reset 2");
        QVERIFY(parsed);
        QCOMPARE(parsed->session, 2);
        QCOMPARE(parsed->attempt, 1);
        QCOMPARE(parsed->toString(), std::string("0/0_1 after reset 2"));
    }

    void exportRecords()
    {
        const auto r = read("export_failures.log");
        QVERIFY2(count(r.diagnostics, Severity::Error) == 0, text(r.diagnostics).c_str());
        QCOMPARE(r.run.shapeGuards.size(), std::size_t(2));
        QCOMPARE(r.run.shapeGuards[0].prefix, std::string("eval"));
        QCOMPARE(r.run.exportIssues.size(), std::size_t(3));
        QCOMPARE(r.run.exportIssues[0].kind, std::string("propagate_real_tensors_provenance"));
        QCOMPARE(r.run.exportIssues[0].expr, std::string("u0 > 3"));
        QCOMPARE(r.run.exportIssues[0].result, std::string("True"));
        QCOMPARE(r.run.exportIssues[0].userStack.at(0).line, 21);
        QCOMPARE(r.run.exportIssues[2].op, std::string("mylib.bar.default"));
        QCOMPARE(r.run.exportIssues[2].reason, std::string("Shapes differ"));
        QVERIFY(r.run.unknownKinds.empty());
    }
};

QTEST_GUILESS_MAIN(TestTraceClasses)
#include "tst_trace_classes.moc"

FXSCOPE_TEST_END
