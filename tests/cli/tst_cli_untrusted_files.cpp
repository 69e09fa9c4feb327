// fxscope-cli against files made to hurt it (issue 31), each made here at run time: inputs
// files and `.pt2` sample inputs whose pickles view memory outside their storage or declare
// gigabytes in a few bytes (one gate for every pickle LibTorch reads), a `.pt2` weight whose
// storage offset wraps around, FIFOs given as inputs and outputs (refused at once, naming the
// path as a named pipe; every run here has a kill timer, so a regression fails instead of
// hanging), a gzip'd graph behind 80 KiB of empty gzip members (read the same by every
// command).
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"
#include "tests/unit/util/gzip_writer.h"
#include "tests/unit/util/raw_zip_writer.h"

#include <QtTest>

#include <nlohmann/json.hpp>
#include <zip.h>

#include <sys/stat.h>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::PickleWriter;
using fxs::test::RawZipEntry;
using fxs::test::runCli;

constexpr int kTimeoutMs = 60000; // a command that blocks on a FIFO is killed and fails

QString graphFixture(const char* name)
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/graphs/") + name + ".txt";
}

QString smallMlp()
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/export/small_mlp.pt2");
}

QString torchScript(const char* name)
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/torchscript/") + name;
}

QString writeBytes(const QTemporaryDir& dir, const QString& name, const std::string& bytes)
{
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly)) {
        return {};
    }
    f.write(bytes.data(), static_cast<qint64>(bytes.size()));
    return f.fileName();
}

QString makeFifo(const QTemporaryDir& dir, const QString& name)
{
    const QString path = dir.filePath(name);
    return ::mkfifo(path.toLocal8Bit().constData(), 0600) == 0 ? path : QString();
}

// The entries of small_mlp.pt2, in order, stored.
std::vector<RawZipEntry> smallMlpEntries()
{
    std::vector<RawZipEntry> out;
    int err = 0;
    zip_t* z = zip_open(smallMlp().toLocal8Bit().constData(), ZIP_RDONLY, &err);
    for (zip_int64_t i = 0; z != nullptr && i < zip_get_num_entries(z, 0); ++i) {
        zip_stat_t st;
        zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st);
        std::string bytes(st.size, '\0');
        zip_file_t* f = zip_fopen_index(z, static_cast<zip_uint64_t>(i), 0);
        zip_fread(f, bytes.data(), st.size);
        zip_fclose(f);
        out.push_back(fxs::test::storedEntry(st.name, std::move(bytes)));
    }
    zip_discard(z);
    return out;
}

RawZipEntry& entryNamed(std::vector<RawZipEntry>& entries, const std::string& name)
{
    for (auto& e : entries) {
        if (e.name == name) {
            return e;
        }
    }
    static RawZipEntry none;
    return none;
}

// small_mlp's input x is f32[8, 16]: a sample-inputs file of (x,), {} with x over `record`.
std::string sampleInputs(std::int64_t numel, std::int64_t offset, int recordFloats)
{
    const std::string pickle =
        PickleWriter().tensor("0", numel, offset, {8, 16}, {16, 1}).raw("\x85}\x86").done();
    return fxs::test::torchSaveZip(pickle, {{"0", fxs::test::floatRecord(recordFloats)}});
}

bool says(const CliRun& r, const char* text)
{
    return r.err.contains(text) || r.out.contains(text);
}

} // namespace

class TestCliUntrustedFiles : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void runInputsThroughTheGate()
    {
        QTemporaryDir dir;
        const QString mlp = torchScript("mlp.pt");
        // The real inputs file still runs.
        auto r = runCli({"run", mlp, "--inputs", torchScript("mlp_inputs.pt"), "--json"},
                        kTimeoutMs);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // A tensor 1e6 elements past its 6-float storage: LibTorch builds it without a word.
        const std::string pickle =
            PickleWriter().tensor("0", 6, 1000000, {2, 3}, {3, 1}).done();
        const QString offset = writeBytes(
            dir, "offset.pt",
            fxs::test::torchSaveZip(pickle, {{"0", fxs::test::floatRecord(6)}}));
        r = runCli({"run", mlp, "--inputs", offset}, kTimeoutMs);
        QCOMPARE(r.exitCode, 1); // an inputs file that cannot be read fails the run
        QVERIFY2(says(r, "a tensor reaches past its storage '0'"), r.err.constData());
        // A stack underflow (BUILD on one value): a segfault inside LibTorch before.
        const QString underflow = writeBytes(
            dir, "underflow.pt", fxs::test::torchSaveZip(PickleWriter().raw("Nb").done(), {}));
        r = runCli({"run", mlp, "--inputs", underflow}, kTimeoutMs);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(says(r, "takes more values than the stack holds"), r.err.constData());
        // A few hundred bytes whose record declares 3.7 GiB: refused by declared size.
        const QString declared = writeBytes(
            dir, "declared.pt",
            fxs::test::rawZip({fxs::test::storedEntry("archive/data.pkl", pickle),
                               fxs::test::deflatedEntry("archive/data/0",
                                                        fxs::test::floatRecord(6), 4000000000u),
                               fxs::test::storedEntry("archive/version", "3\n")}));
        QVERIFY(QFileInfo(declared).size() < 1000);
        r = runCli({"run", mlp, "--inputs", declared}, kTimeoutMs);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(says(r, "the entry declares 3.7 GiB, more than the limit of 2.0 GiB"),
                 r.err.constData());
    }

    void fifoInputsAreRefusedAtOnce()
    {
        QTemporaryDir dir;
        const QString fifo = makeFifo(dir, "inputs.pt");
        QVERIFY(!fifo.isEmpty());
        const auto r = runCli({"run", torchScript("mlp.pt"), "--inputs", fifo}, kTimeoutMs);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(says(r, "named pipe (FIFO)") && r.err.contains(fifo.toUtf8()),
                 r.err.constData());
    }

    void fifoOutputsAreRefusedAtOnce()
    {
        QTemporaryDir dir;
        const QString project = makeFifo(dir, "regions.fxscope");
        auto r = runCli({"partition", graphFixture("resnet18_infer"), "--auto", "--save-project",
                         project},
                        kTimeoutMs);
        QVERIFY2(r.exitCode != 0 && r.exitCode != -1, "blocked or succeeded");
        QVERIFY2(says(r, "named pipe (FIFO)") && r.err.contains(project.toUtf8()),
                 r.err.constData());
        const QString profile = makeFifo(dir, "run.fxprofile");
        r = runCli({"profile", graphFixture("resnet18_infer"), "--eager-only", "--repeat", "1",
                    "--save", profile},
                   kTimeoutMs);
        QVERIFY2(r.exitCode != 0 && r.exitCode != -1, "blocked or succeeded");
        QVERIFY2(says(r, "named pipe (FIFO)") && r.err.contains(profile.toUtf8()),
                 r.err.constData());
        const QString trace = makeFifo(dir, "trace.json");
        r = runCli({"profile", graphFixture("resnet18_infer"), "--eager-only", "--repeat", "1",
                    "--trace", trace},
                   kTimeoutMs);
        QVERIFY2(r.exitCode != 0 && r.exitCode != -1, "blocked or succeeded");
        QVERIFY2(says(r, "named pipe (FIFO)"), r.err.constData());
    }

    // A weight whose storage offset makes (offset + extent) * 4 wrap around 64 bits: the
    // size check passed and the copy read far outside the file (SIGSEGV).
    void pt2WeightOffsetThatWraps()
    {
        QTemporaryDir dir;
        auto entries = smallMlpEntries();
        RawZipEntry& config =
            entryNamed(entries, "small_mlp/data/weights/model_weights_config.json");
        std::string text = config.data;
        const std::string zero = "\"storage_offset\": {\"as_int\": 0}";
        const auto at = text.find(zero);
        QVERIFY(at != std::string::npos);
        text.replace(at, zero.size(), "\"storage_offset\": {\"as_int\": 4611686018427387904}");
        config = fxs::test::storedEntry(config.name, text);
        const QString path = writeBytes(dir, "wrap.pt2", fxs::test::rawZip(entries));
        const auto r = runCli({"run", path}, kTimeoutMs);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(says(r, "weight file too short for 'fc1.weight'"), r.err.constData());
    }

    void pt2SampleInputsThroughTheGate()
    {
        QTemporaryDir dir;
        const std::string samples = "small_mlp/data/sample_inputs/model.pt";
        // The gate reads the archive's own sample inputs (written by PyTorch 2.11).
        auto r = runCli({"run", smallMlp(), "--json"}, kTimeoutMs);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // An 18 KB archive whose sample inputs declare 2.5 GiB (deflated, so the sizes fit).
        auto entries = smallMlpEntries();
        entryNamed(entries, samples) =
            fxs::test::deflatedEntry(samples, sampleInputs(128, 0, 128), 2684354560u);
        const QString big = writeBytes(dir, "big.pt2", fxs::test::rawZip(entries));
        r = runCli({"run", big}, kTimeoutMs);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(says(r, "the sample inputs declare 2.5 GiB, more than the limit of 2.0 GiB"),
                 r.err.constData());
        // Sample inputs whose x sits past its storage.
        entries = smallMlpEntries();
        entryNamed(entries, samples) =
            fxs::test::storedEntry(samples, sampleInputs(128, 1 << 20, 128));
        const QString past = writeBytes(dir, "past.pt2", fxs::test::rawZip(entries));
        r = runCli({"run", past}, kTimeoutMs);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(says(r, "cannot read the sample inputs: a tensor reaches past its storage"),
                 r.err.constData());
        // Its storage declares 128 floats over a record of 16.
        entries = smallMlpEntries();
        entryNamed(entries, samples) = fxs::test::storedEntry(samples, sampleInputs(128, 0, 16));
        const QString shortRecord = writeBytes(dir, "short.pt2", fxs::test::rawZip(entries));
        r = runCli({"run", shortRecord}, kTimeoutMs);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(says(r, "storage '0' declares 512 bytes; its record holds 64 bytes"),
                 r.err.constData());
    }

    // inspect sniffs the first 64 KiB; diagnose and run read the whole file: both see the
    // graph behind the empty members.
    void gzipBehindEmptyMembers()
    {
        QTemporaryDir dir;
        QFile graph(graphFixture("resnet18_infer"));
        QVERIFY(graph.open(QIODevice::ReadOnly));
        const std::string text = graph.readAll().toStdString();
        const std::string empty = fxs::test::gzipBytes("");
        std::string gz;
        while (gz.size() < (std::size_t(80) << 10)) {
            gz += empty;
        }
        const QString path = writeBytes(dir, "graph.txt.gz", gz + fxs::test::gzipBytes(text));
        const auto r = runCli({"inspect", path, "--json"}, kTimeoutMs);
        QVERIFY2(r.exitCode == 0, r.out.constData());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QCOMPARE(j["graphs"].size(), std::size_t(1));
        QVERIFY(!says(r, "unrecognised file format"));
    }
};

QTEST_GUILESS_MAIN(TestCliUntrustedFiles)
#include "tst_cli_untrusted_files.moc"

FXSCOPE_TEST_END
