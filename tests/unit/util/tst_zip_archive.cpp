// The zip reader under the `.pt2` reader and the torch.save gate: declared sizes that the
// stored bytes cannot hold are refused before anything is allocated (a deflated entry of a few
// bytes claiming a gigabyte, a stored entry whose sizes disagree, stored data larger than the
// archive), caps are checked by declared size, and a FIFO is refused without blocking.
#include "core/util/zip_archive.h"
#include "tests/test_file.h"
#include "tests/unit/util/raw_zip_writer.h"

#include <QtTest>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::test;

namespace {

bool mentions(const Error& e, std::string_view text)
{
    return e.toString().find(text) != std::string::npos;
}

long peakRssKib()
{
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

} // namespace

class TestZipArchive : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsHonestEntries()
    {
        const std::string text(100000, 'a');
        auto zip = ZipArchive::fromBytes(
            rawZip({storedEntry("a/stored", "hello"), deflatedEntry("a/deflated", text, 100000)}),
            "t.zip");
        QVERIFY2(zip.ok(), zip.ok() ? "" : zip.error().toString().c_str());
        QCOMPARE(*zip->read("a/stored", 100), std::string("hello"));
        QCOMPARE(*zip->read("a/deflated", 100000), text);
        QVERIFY(zip->contains("a/deflated"));
        QCOMPARE(*zip->size("a/deflated"), std::uint64_t(100000));
        QVERIFY(*zip->storedSize("a/deflated") < 1000);
        auto capped = zip->read("a/deflated", 99999);
        QVERIFY(!capped.ok());
        QCOMPARE(capped.error().code, ErrorCode::Unsupported);
        QVERIFY2(mentions(capped.error(), "it declares 97.7 KiB, more than the limit of"),
                 capped.error().toString().c_str());
    }

    // A parser's padding after the data (the .pt2 program JSON is read once, never copied to
    // pad it): a stored entry in one allocation of its size plus the spare bytes, a deflated
    // one grown with spare room kept.
    void keepsSpareCapacityAfterTheData()
    {
        const std::string stored(300000, 's');
        const std::string deflated(200000, 'd');
        auto zip = ZipArchive::fromBytes(
            rawZip({storedEntry("s", stored), deflatedEntry("d", deflated, 200000)}), "t.zip");
        QVERIFY(zip.ok());
        const auto s = zip->read("s", 1u << 20, 64);
        QVERIFY(s.ok());
        QCOMPARE(*s, stored);
        QCOMPARE(s->capacity(), stored.size() + 64); // reserved once: not grown by doubling
        const auto d = zip->read("d", 1u << 20, 64);
        QVERIFY(d.ok());
        QCOMPARE(*d, deflated);
        QVERIFY(d->capacity() >= deflated.size() + 64);
        QCOMPARE(zip->read("s", 1u << 20)->size(), stored.size()); // no spare asked: none kept
    }

    // Six bytes deflated, a gigabyte declared: refused at once, nothing allocated for it.
    void refusesSizesTheDataCannotHold()
    {
        auto zip = ZipArchive::fromBytes(
            rawZip({deflatedEntry("big", "abcdef", 1u << 30), storedEntry("ok", "fine"),
                    [] {
                        RawZipEntry e = storedEntry("liar", "four");
                        e.declaredSize = 4000;
                        return e;
                    }()}),
            "bomb.zip");
        QVERIFY2(zip.ok(), zip.ok() ? "" : zip.error().toString().c_str());
        const long before = peakRssKib();
        auto big = zip->read("big", std::uint64_t(16) << 30);
        QVERIFY(peakRssKib() - before < 100 * 1024);
        QVERIFY(!big.ok());
        QCOMPARE(big.error().code, ErrorCode::Parse);
        QCOMPARE(big.error().where, std::string("bomb.zip!big"));
        QVERIFY2(mentions(big.error(), "it declares 1.0 GiB, more than its 8 bytes of deflated "
                                       "data can hold"),
                 big.error().toString().c_str());
        auto liar = zip->read("liar", 1 << 20);
        QVERIFY(!liar.ok());
        QVERIFY2(mentions(liar.error(), "stored uncompressed but declares"),
                 liar.error().toString().c_str());
        QCOMPARE(*zip->read("ok", 10), std::string("fine"));
    }

    void refusesAFifoWithoutBlocking()
    {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath("model.pt2").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        // Held open for writing, so that a reader that opened it would not block in open();
        // closed after 10 s, so that one blocked in read() gets its end of file.
        const int writer = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
        QVERIFY(writer >= 0);
        auto pending = std::async(std::launch::async, [&] { return ZipArchive::open(fifo); });
        const bool blocked =
            pending.wait_for(std::chrono::seconds(10)) != std::future_status::ready;
        ::close(writer);
        auto zip = pending.get();
        QVERIFY2(!blocked, "opening a FIFO blocked");
        QVERIFY(!zip.ok());
        QVERIFY2(mentions(zip.error(), "not a regular file: it is a named pipe (FIFO)"),
                 zip.error().toString().c_str());
    }
};

QTEST_GUILESS_MAIN(TestZipArchive)
#include "tst_zip_archive.moc"

FXSCOPE_TEST_END
