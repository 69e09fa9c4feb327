// --dump DIR and FXSCOPE_DUMP_CODEGEN: a region id becomes a file name only through dumpStem, so
// ids such as "../../x", "/abs", "a/b", "..", NUL bytes or 5000 characters write nothing outside
// DIR; a symlink or FIFO already at a dump file's name is replaced, never written through or
// waited on.
#include "core/compile/prepared_region.h"
#include "core/compile/region_dump.h"
#include "core/graph/graph_builder.h"
#include "tests/test_file.h"

#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <future>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using compile::detail::dumpRegion;
using compile::detail::dumpStem;

namespace {

// Every file under root, relative to it.
QStringList filesUnder(const QString& root)
{
    QStringList out;
    QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        out << QDir(root).relativeFilePath(it.next());
    }
    out.sort();
    return out;
}

Status dumpId(const std::string& dir, const std::string& id)
{
    compile::detail::PreparedRegion p;
    compile::RegionOutcome out;
    out.id = id;
    return dumpRegion(dir, p, out);
}

} // namespace

class TestRegionDump : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The schedule's reasons read as written ("the kernel's index space", not "kernel\047s"),
    // while a control character from a node name quoted in one is still escaped.
    void reasonsAreReadableAndStayOnOneLine()
    {
        graph::GraphBuilder b;
        const graph::NodeId x = b.placeholder("x");
        const graph::NodeId n = b.call("neg", "aten::neg.default", {graph::Argument::ref(x)});
        b.output({graph::Argument::ref(n)});
        auto g = *b.build();
        compile::detail::PreparedRegion p;
        p.graph = g.get();
        p.sig.order = {n};
        p.sig.inputs = {x};
        p.sig.outputs = {n};
        p.schedule.steps.push_back({true, {n}, {x}, {n}, 0});
        p.schedule.programs.emplace_back();
        p.schedule.cuts.push_back({n, "its shape does not fit the kernel's index space"});
        p.schedule.externReason = "no lowering (r0:bad\nname)";
        compile::RegionOutcome out;
        out.id = "r0";
        QTemporaryDir dir;
        QVERIFY(dumpRegion(dir.path().toStdString(), p, out));
        QFile f(dir.path() + "/r0.schedule.txt");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY2(text.contains("new kernel at neg: its shape does not fit the kernel's index "
                               "space\n"),
                 text.constData());
        QVERIFY2(text.contains("first LibTorch node: no lowering (r0:bad\\012name)\n"),
                 text.constData());
    }

    void plainIdsKeepTheirName()
    {
        QCOMPARE(dumpStem("r0"), std::string("r0"));
        QCOMPARE(dumpStem("block_1.mlp-2"), std::string("block_1.mlp-2"));
    }

    void hostileIdsStayInside_data()
    {
        QTest::addColumn<QByteArray>("id");
        QTest::newRow("dotdot-x") << QByteArray("../../x");
        QTest::newRow("absolute") << QByteArray("/abs");
        QTest::newRow("slash") << QByteArray("a/b");
        QTest::newRow("dotdot") << QByteArray("..");
        QTest::newRow("dot") << QByteArray(".");
        QTest::newRow("empty") << QByteArray("");
        QTest::newRow("long") << QByteArray(5000, 'x');
        QTest::newRow("nul") << QByteArray("a\0/../../b", 10);
        QTest::newRow("newline") << QByteArray("\n");
        QTest::newRow("hidden") << QByteArray(".hidden");
        QTest::newRow("option") << QByteArray("-rf");
        QTest::newRow("backslashes") << QByteArray("..\\..\\x");
        QTest::newRow("utf8") << QByteArray("r\xc3\xa9gion/\xe2\x80\xae");
    }

    void hostileIdsStayInside()
    {
        QFETCH(QByteArray, id);
        QTemporaryDir root;
        const QString dir = root.path() + "/a/b/dump";
        const std::string raw(id.constData(), std::size_t(id.size()));
        QVERIFY(dumpId(dir.toStdString(), raw));
        const QStringList files = filesUnder(root.path());
        QCOMPARE(files.size(), 1);
        QVERIFY2(files[0].startsWith("a/b/dump/"), qPrintable(files[0]));
        const std::string stem = dumpStem(raw);
        QCOMPARE(files[0], QString::fromStdString("a/b/dump/" + stem + ".passes.txt"));
        QVERIFY(!stem.empty() && stem.size() <= 64);
        QVERIFY(stem.find('/') == std::string::npos && stem[0] != '.' && stem[0] != '-');
        // Two ids that sanitise alike still get different files.
        QVERIFY(dumpStem(raw) != dumpStem(raw + "/"));
    }

    void symlinkAtADumpNameIsReplacedNotFollowed()
    {
        QTemporaryDir root;
        const QString dir = root.path() + "/dump";
        QVERIFY(QDir().mkpath(dir));
        const QString outside = root.path() + "/outside.txt";
        {
            QFile f(outside);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("keep");
        }
        QVERIFY(QFile::link(outside, dir + "/r0.passes.txt"));
        QVERIFY(dumpId(dir.toStdString(), "r0"));
        QFile f(outside);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("keep"));
        const QFileInfo dumped(dir + "/r0.passes.txt");
        QVERIFY(!dumped.isSymLink() && dumped.isFile());
    }

    void fifoAtADumpNameDoesNotBlock()
    {
        QTemporaryDir root;
        const std::string dir = root.path().toStdString() + "/dump";
        QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
        const std::string fifo = dir + "/r1.passes.txt";
        QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
        auto done = std::async(std::launch::async, [&] { return bool(dumpId(dir, "r1")); });
        if (done.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
            // Release the writer blocked on the FIFO so the test can end, then fail.
            const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
            done.wait();
            ::close(fd);
            QFAIL("the dump blocked on a FIFO");
        }
        QVERIFY(done.get());
        struct stat st {};
        QVERIFY(::lstat(fifo.c_str(), &st) == 0 && S_ISREG(st.st_mode));
    }
};

QTEST_GUILESS_MAIN(TestRegionDump)
#include "tst_region_dump.moc"

FXSCOPE_TEST_END
