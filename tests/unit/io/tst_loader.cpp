// The loader facade: mixed paths (TORCH_TRACE files and directories, graph-code files), format
// sniffing, unreadable and unknown inputs, gzip (a TORCH_TRACE log cut short keeps what it
// holds), progress and cancellation.
#include "core/io/loader.h"
#include "core/io/torch_trace_reader.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"
#include "tests/unit/util/gzip_writer.h"

#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

std::string fixture(const QString& relative)
{
    return (QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/") + relative).toStdString();
}

std::string recorded(const QString& relative)
{
    return (QStringLiteral(FXSCOPE_TEST_DATA "/recorded/") + relative).toStdString();
}

std::string traceFile(const char* run)
{
    const QDir dir(QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/") + run);
    return dir.filePath(dir.entryList({"*.log"}, QDir::Files).value(0)).toStdString();
}

} // namespace

class TestLoader : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void mixedPaths()
    {
        const std::vector<std::string> paths = {
            traceFile("basic_cold"),
            fixture("traces/basic_warm"), // a directory: one run of one rank file
            fixture("graphs/resnet18_infer.txt"),
            fixture("export/small_mlp_export_graph.txt"),
        };
        std::vector<double> fractions;
        const auto r = io::loadPaths(paths, CancelToken::none(),
                                     [&](double f, std::string_view) { fractions.push_back(f); });
        QVERIFY(r.readSomething());
        QCOMPARE(r.runs.size(), std::size_t(2));
        QCOMPARE(r.runs[0].path, paths[0]);
        QCOMPARE(r.runs[0].lookups.size(), std::size_t(3));
        QCOMPARE(r.runs[1].path, paths[1]);
        QCOMPARE(r.runs[1].files.size(), std::size_t(1));
        QCOMPARE(r.runs[1].lookups.size(), std::size_t(3));
        QCOMPARE(r.graphs.size(), std::size_t(2));
        QCOMPARE(r.graphs[0].kind, std::string("graph"));
        QCOMPARE(r.graphs[0].file, paths[2]);
        QVERIFY(r.graphs[0].graph);
        QCOMPARE(r.graphs[0].unparsedLines, 0);
        // resnet18_infer.txt: a 2x3x224x224 input plus parameters/buffers, 1 output.
        QCOMPARE(r.graphs[0].graph->countOf(graph::OpKind::Output), std::size_t(1));
        QVERIFY(r.graphs[0].graph->placeholders().size() > 1);
        QVERIFY(r.graphs[1].graph);
        QVERIFY(!fractions.empty());
        QCOMPARE(fractions.back(), 1.0);
    }

    void badPaths()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string unknown = dir.filePath("notes.txt").toStdString();
        QFile f(QString::fromStdString(unknown));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("hello, this is neither a log nor graph code\n");
        f.close();
        const std::string missing = dir.filePath("missing.log").toStdString();
        const std::string emptyDir = dir.filePath("empty").toStdString();
        QVERIFY(QDir(dir.path()).mkdir("empty"));

        const auto r = io::loadPaths({missing, unknown, emptyDir});
        QVERIFY(!r.readSomething());
        QCOMPARE(r.diagnostics.size(), std::size_t(3));
        QCOMPARE(r.diagnostics.items()[0].file, missing);
        QCOMPARE(r.diagnostics.items()[1].file, unknown);
        QVERIFY(r.diagnostics.items()[1].message.find("unrecognised") != std::string::npos);
        QVERIFY(r.diagnostics.items()[1].found.find("hello") != std::string::npos);
        QCOMPARE(r.diagnostics.items()[2].file, emptyDir);

        // One good path among bad ones is enough to read something.
        const auto mixed = io::loadPaths({missing, fixture("graphs/gpt2_export.txt")});
        QVERIFY(mixed.readSomething());
        QCOMPARE(mixed.graphs.size(), std::size_t(1));
        QCOMPARE(mixed.diagnostics.size(), std::size_t(1));
    }

    void sniffsGraphCodeForms()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string bare = dir.filePath("gm.py").toStdString();
        QFile f(QString::fromStdString(bare));
        QVERIFY(f.open(QIODevice::WriteOnly));
        // The `gm` component form of a cache key (no class line).
        f.write("\n\ndef forward(self, p_0 : torch.Tensor):\n    sin = p_0.sin();  p_0 = None\n"
                "    return (sin,)\n");
        f.close();
        const auto r = io::loadPaths({bare});
        QVERIFY(r.readSomething());
        QCOMPARE(r.graphs.size(), std::size_t(1));
        QCOMPARE(r.graphs[0].graph->size(), std::size_t(3)); // p_0, sin, output
    }

    // gzip'd inputs of every format read as the plain ones (inflated in memory).
    void readsGzipTransparently()
    {
        QTemporaryDir dir;
        const auto gzipCopy = [&](const std::string& from, const QString& name) {
            const std::string to = dir.filePath(name).toStdString();
            return writeFile(to, test::gzipBytes(*readFile(from))).ok() ? to : std::string();
        };
        const auto plain = io::loadPaths({traceFile("basic_cold"),
                                          fixture("graphs/resnet18_infer.txt")});
        const auto zipped = io::loadPaths({gzipCopy(traceFile("basic_cold"), "rank0.log.gz"),
                                           gzipCopy(fixture("graphs/resnet18_infer.txt"),
                                                    "resnet.txt.gz")});
        QVERIFY(zipped.diagnostics.empty());
        QCOMPARE(zipped.runs.size(), std::size_t(1));
        QCOMPARE(zipped.runs[0].lookups.size(), plain.runs[0].lookups.size());
        QCOMPARE(zipped.runs[0].graphs.size(), plain.runs[0].graphs.size());
        QCOMPARE(zipped.graphs.size(), std::size_t(1));
        QCOMPARE(zipped.graphs[0].graph->size(), plain.graphs[0].graph->size());
        // A directory of gzip'd per-rank logs is one run.
        QVERIFY(QDir(dir.path()).mkdir("ranks"));
        gzipCopy(traceFile("basic_cold"), "ranks/rank0.log.gz");
        const auto ranks = io::loadPaths({dir.filePath("ranks").toStdString()});
        QCOMPARE(ranks.runs.size(), std::size_t(1));
        QCOMPARE(ranks.runs[0].lookups.size(), plain.runs[0].lookups.size());
    }

    void readsTheRecordedGzipFixtures()
    {
        const auto r = io::loadPaths({recorded("traces/recompile.log.gz"),
                                      recorded("graphs/resnet18_train_graph0.txt.gz")});
        QVERIFY(r.readSomething());
        QCOMPARE(r.runs.size(), std::size_t(1));
        QVERIFY(r.runs[0].graphs.size() > 1);
        QCOMPARE(r.graphs.size(), std::size_t(1));
        QVERIFY(r.graphs[0].graph->size() > 100);
    }

    void refusesSpecialFilesAndBadGzip()
    {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath("pipe.log").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const std::string gz = test::gzipBytes(*readFile(fixture("graphs/resnet18_infer.txt")));
        const std::string cut = dir.filePath("cut.txt.gz").toStdString();
        QVERIFY(writeFile(cut, gz.substr(0, gz.size() - 20)).ok());
        // Sparse, 3 GiB of zeros: rejected from its first bytes, never read whole.
        const std::string big = dir.filePath("big.bin").toStdString();
        QVERIFY(writeFile(big, "").ok());
        QCOMPARE(::truncate(big.c_str(), off_t(3) << 30), 0);

        const auto r = io::loadPaths({fifo, "/dev/null", cut, big});
        QVERIFY(!r.readSomething());
        QCOMPARE(r.diagnostics.size(), std::size_t(4));
        const auto& d = r.diagnostics.items();
        QCOMPARE(d[0].file, fifo);
        QVERIFY2(d[0].message.find("named pipe (FIFO)") != std::string::npos,
                 d[0].toString().c_str());
        QVERIFY(d[1].message.find("character device") != std::string::npos);
        QCOMPARE(d[2].file, cut);
        QVERIFY2(d[2].message.find("truncated") != std::string::npos, d[2].toString().c_str());
        QCOMPARE(d[3].file, big);
        QVERIFY2(d[3].message.find("unrecognised file format") != std::string::npos,
                 d[3].toString().c_str());
    }

    void keepsWhatATruncatedGzipLogHolds()
    {
        // A TORCH_TRACE log cut short (a copy or a run interrupted) keeps the records before
        // the cut, with an error that says so; printed graph code cut short is refused above.
        QTemporaryDir dir;
        const auto full = io::loadPaths({traceFile("basic_cold")});
        const std::string gz = test::gzipBytes(*readFile(traceFile("basic_cold")));
        const std::string cut = dir.filePath("cut.log.gz").toStdString();
        QVERIFY(writeFile(cut, gz.substr(0, gz.size() / 2)).ok());
        const auto check = [&](const model::Run& run, const Diagnostics& diagnostics) {
            QVERIFY(!run.graphs.empty());
            QVERIFY(run.graphs.size() < full.runs[0].graphs.size());
            QVERIFY(diagnostics.errorCount() >= 1);
            const auto& first = diagnostics.items()[0];
            QCOMPARE(first.file, cut);
            QVERIFY2(first.message.find("truncated") != std::string::npos &&
                         first.message.find("; kept the ") != std::string::npos &&
                         first.message.find(" lines before the damage") != std::string::npos,
                     first.toString().c_str());
        };
        const auto loaded = io::loadPaths({cut});
        QCOMPARE(loaded.runs.size(), std::size_t(1));
        check(loaded.runs[0], loaded.diagnostics);
        const auto read = io::readTorchTracePath(cut);
        QVERIFY(read.readSomething);
        check(read.run, read.diagnostics);
        // The recorded gzip'd log, cut in the middle.
        const auto whole = *readFile(recorded("traces/recompile.log.gz"), {std::size_t(1) << 30,
                                                                           false});
        const std::string half = dir.filePath("recompile_cut.log.gz").toStdString();
        QVERIFY(writeFile(half, whole.substr(0, whole.size() / 2)).ok());
        const auto r = io::readTorchTracePath(half);
        QVERIFY(r.readSomething);
        QVERIFY(r.run.graphs.size() < io::readTorchTracePath(recorded("traces/recompile.log.gz"))
                                          .run.graphs.size());
    }

    void cancelStopsBeforeTheNextPath()
    {
        CancelToken token;
        token.cancel();
        const auto r = io::loadPaths({traceFile("basic_cold")}, token);
        QVERIFY(!r.readSomething());
        QCOMPARE(r.diagnostics.size(), std::size_t(1));
        QVERIFY(r.diagnostics.items()[0].message.find("cancelled") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestLoader)
#include "tst_loader.moc"

FXSCOPE_TEST_END
