// The hardened input reader: regular files only (directory, FIFO, socket and device refused by
// name, a FIFO without a writer never blocks), size caps checked before reading (a sparse
// 64 GiB file), sniffing heads (past empty gzip members), and transparent gzip (made here;
// truncated, corrupt, concatenated, over the cap: refused holding little memory).
#include "core/util/file_reader.h"
#include "core/util/gzip.h"
#include "tests/test_file.h"
#include "tests/unit/util/gzip_writer.h"

#include <QtTest>

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>
#include <thread>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

std::string writeBytes(const QTemporaryDir& dir, const QString& name, std::string_view bytes)
{
    const std::string path = dir.filePath(name).toStdString();
    if (!writeFile(path, bytes).ok()) {
        return {};
    }
    return path;
}

bool mentions(const Error& e, std::string_view text)
{
    return e.toString().find(text) != std::string::npos;
}

// Runs readFile on a thread and waits at most 10 s: a reader that blocks fails the test
// instead of hanging it (the blocked thread is left behind; the test process then exits).
std::optional<Result<std::string>> readWithin10s(const std::string& path)
{
    auto promise = std::make_shared<std::promise<Result<std::string>>>();
    auto future = promise->get_future();
    std::thread([promise, path] { promise->set_value(readFile(path)); }).detach();
    if (future.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        return std::nullopt;
    }
    return future.get();
}

// The process's peak resident memory so far.
long peakRssKib()
{
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

std::string sampleText()
{
    std::string text;
    for (int i = 0; i < 5000; ++i) {
        text += "line " + std::to_string(i) + ": some text to compress\n";
    }
    return text;
}

} // namespace

class TestFileReader : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // First, while the process is small: ru_maxrss only grows. 40 concatenated members of
    // 16 MiB of zeros (640 MiB, 640 KiB compressed) under a 512 MiB cap: refused at the cap,
    // with only what the first pass keeps (64 MiB) ever held, not the 512 MiB the cap allows.
    void gzipBombIsRefusedHoldingLittleMemory()
    {
        const std::string member = test::gzipBytes(std::string(std::size_t(16) << 20, '\0'));
        std::string bomb;
        for (int i = 0; i < 40; ++i) {
            bomb += member;
        }
        const long before = peakRssKib();
        auto r = gunzip(bomb, "bomb.gz", std::size_t(512) << 20);
        const long grown = peakRssKib() - before;
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Unsupported);
        QVERIFY2(mentions(r.error(), "inflates to more than the limit of 512.0 MiB"),
                 r.error().toString().c_str());
        QVERIFY2(grown < 200 * 1024, ("peak memory grew by " + std::to_string(grown) +
                                      " KiB while inflating").c_str());
    }

    // Over 64 MiB a stream is counted first, then inflated into a buffer of its exact size.
    void inflatesLargeStreamsExactly()
    {
        std::string text;
        const std::string line = "0123456789abcdefghijklmnopqrstuvwxyz line of a large log\n";
        while (text.size() < (std::size_t(70) << 20)) {
            text += line + std::to_string(text.size()) + "\n";
        }
        const std::string gz = test::gzipBytes(text);
        auto r = gunzip(gz + test::gzipBytes("tail\n"), "large.gz", kDefaultMaxFileBytes);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QCOMPARE(r->size(), text.size() + 5);
        QVERIFY(*r == text + "tail\n");
        QCOMPARE(r->capacity(), r->size()); // one allocation of the exact size
        auto cut = gunzip(gz.substr(0, gz.size() - 100), "cut.gz", kDefaultMaxFileBytes);
        QVERIFY(!cut.ok());
        QVERIFY2(mentions(cut.error(), "truncated"), cut.error().toString().c_str());
    }

    // Empty members first (more than the 64 KiB a sniffer looks at): the head is the text
    // after them, as readFile reads it, so every command recognises the same files.
    void headReadsPastEmptyMembers()
    {
        QTemporaryDir dir;
        const std::string empty = test::gzipBytes("");
        std::string gz;
        while (gz.size() < (std::size_t(80) << 10)) {
            gz += empty;
        }
        gz += test::gzipBytes("def forward(self, x):\n    return x\n");
        const auto path = writeBytes(dir, "graph.py.gz", gz);
        auto whole = readFile(path);
        QVERIFY(whole.ok());
        QCOMPARE(*whole, std::string("def forward(self, x):\n    return x\n"));
        auto head = readFileHead(path);
        QVERIFY2(head.ok(), head.ok() ? "" : head.error().toString().c_str());
        QCOMPARE(*head, *whole);
        QCOMPARE(*readFileHead(path, 11), std::string("def forward"));
        // Trailing bytes that are not a member are ignored, as gzip does.
        QCOMPARE(*readFileHead(writeBytes(dir, "trail.gz", gz + "garbage")), *whole);
    }

    void readsRegularFilesWhole()
    {
        QTemporaryDir dir;
        const std::string text = sampleText();
        const auto path = writeBytes(dir, "plain.txt", text);
        auto r = readFile(path);
        QVERIFY(r.ok());
        QCOMPARE(*r, text);
        auto head = readFileHead(path, 100);
        QVERIFY(head.ok());
        QCOMPARE(*head, text.substr(0, 100));
        QCOMPARE(*readFile(writeBytes(dir, "empty.txt", "")), std::string());
    }

    void refusesMissingAndSpecialFilesByName()
    {
        QTemporaryDir dir;
        const std::string missing = dir.filePath("missing.log").toStdString();
        auto r = readFile(missing);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Io);
        QCOMPARE(r.error().where, missing);
        QVERIFY(mentions(r.error(), "No such file"));

        const std::string directory = dir.path().toStdString();
        r = readFile(directory);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().where, directory);
        QVERIFY2(mentions(r.error(), "not a regular file: it is a directory"),
                 r.error().toString().c_str());
        QVERIFY(!readFileHead(directory).ok());
        QVERIFY(!checkRegularFile(directory).ok());

        r = readFile("/dev/null");
        QVERIFY(!r.ok());
        QVERIFY2(mentions(r.error(), "a character device"), r.error().toString().c_str());
        QCOMPARE(fileType("/dev/null"), FileType::CharDevice);
    }

    void refusesAFifoWithoutBlocking()
    {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath("pipe").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        QCOMPARE(fileType(fifo), FileType::Fifo);
        auto r = readWithin10s(fifo); // nobody ever writes to it
        QVERIFY2(r.has_value(), "readFile blocked on a FIFO");
        QVERIFY(!r->ok());
        QCOMPARE(r->error().where, fifo);
        QVERIFY2(mentions(r->error(), "named pipe (FIFO)"), r->error().toString().c_str());
        QVERIFY(!readFileHead(fifo).ok());
        QVERIFY(!isDirectory(fifo));
    }

    void refusesASocket()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("sock").toStdString();
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        QVERIFY(fd >= 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        if (path.size() >= sizeof(addr.sun_path)) {
            ::close(fd);
            QSKIP("temporary directory path too long for a UNIX socket");
        }
        std::strcpy(addr.sun_path, path.c_str());
        QCOMPARE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        auto r = readFile(path);
        ::close(fd);
        QVERIFY(!r.ok());
        QVERIFY2(mentions(r.error(), "a socket"), r.error().toString().c_str());
    }

    void capsSizeBeforeReading()
    {
        QTemporaryDir dir;
        const std::string sparse = dir.filePath("sparse.bin").toStdString();
        QVERIFY(writeFile(sparse, "").ok());
        // 64 GiB of holes: nothing is allocated on disk, and nothing must be in memory.
        QCOMPARE(::truncate(sparse.c_str(), off_t(64) << 30), 0);
        auto r = readFile(sparse);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Unsupported);
        QVERIFY2(mentions(r.error(), "64.0 GiB"), r.error().toString().c_str());
        QVERIFY(mentions(r.error(), "2.0 GiB"));
        auto head = readFileHead(sparse, 16);
        QVERIFY(head.ok());
        QCOMPARE(*head, std::string(16, '\0'));

        const auto small = writeBytes(dir, "small.txt", std::string(5000, 'x'));
        QVERIFY(readFile(small, ReadOptions{.maxBytes = 5000}).ok());
        r = readFile(small, ReadOptions{.maxBytes = 4999});
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Unsupported);
    }

    void inflatesGzipTransparently()
    {
        QTemporaryDir dir;
        const std::string text = sampleText();
        const std::string gz = test::gzipBytes(text);
        QVERIFY(isGzip(gz));
        QVERIFY(gz.size() < text.size() / 4);
        const auto path = writeBytes(dir, "text.txt.gz", gz);
        auto r = readFile(path);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QCOMPARE(*r, text);
        auto head = readFileHead(path, 64);
        QVERIFY(head.ok());
        QCOMPARE(*head, text.substr(0, 64));
        auto raw = readFile(path, ReadOptions{.inflateGzip = false});
        QCOMPARE(*raw, gz);
        // Concatenated members (cat a.gz b.gz) read as one text.
        const auto twice = writeBytes(dir, "twice.gz", gz + test::gzipBytes("tail\n"));
        QCOMPARE(*readFile(twice), text + "tail\n");
        // An empty gzip'd file is an empty text.
        QCOMPARE(*readFile(writeBytes(dir, "empty.gz", test::gzipBytes(""))), std::string());
    }

    void reportsBadGzipNamingTheFile()
    {
        QTemporaryDir dir;
        const std::string gz = test::gzipBytes(sampleText());
        const auto truncated = writeBytes(dir, "cut.log.gz", gz.substr(0, gz.size() / 2));
        auto r = readFile(truncated);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Parse);
        QCOMPARE(r.error().where, truncated);
        QVERIFY2(mentions(r.error(), "truncated"), r.error().toString().c_str());
        // Its head is still readable: a stream cut short is fine for sniffing.
        QVERIFY(readFileHead(truncated, 32).ok());

        std::string flipped = gz;
        for (std::size_t i = 20; i < 60; ++i) {
            flipped[i] = static_cast<char>(~flipped[i]);
        }
        r = readFile(writeBytes(dir, "flipped.gz", flipped));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Parse);
        QVERIFY2(mentions(r.error(), "corrupt gzip data"), r.error().toString().c_str());

        r = readFile(writeBytes(dir, "magic.gz", "\x1f\x8b"));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Parse);
    }

    void capsTheInflatedSize()
    {
        QTemporaryDir dir;
        // 64 MiB of zeros compress to ~64 KiB: a small file that must not be inflated whole.
        const std::string bomb = test::gzipBytes(std::string(std::size_t(64) << 20, '\0'));
        QVERIFY(bomb.size() < (std::size_t(1) << 20));
        const auto path = writeBytes(dir, "bomb.gz", bomb);
        auto r = readFile(path, ReadOptions{.maxBytes = std::size_t(1) << 20});
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Unsupported);
        QVERIFY2(mentions(r.error(), "inflates to more than the limit of 1.0 MiB"),
                 r.error().toString().c_str());
        auto head = readFileHead(path, 1000);
        QVERIFY(head.ok());
        QCOMPARE(head->size(), std::size_t(1000));
    }

    void listsOnlyRegularFiles()
    {
        QTemporaryDir dir;
        writeBytes(dir, "b.log", "b");
        writeBytes(dir, "a.log.gz", test::gzipBytes("a"));
        QVERIFY(QDir(dir.path()).mkdir("sub"));
        QCOMPARE(::mkfifo(dir.filePath("pipe").toLocal8Bit().constData(), 0600), 0);
        auto files = listFiles(dir.path().toStdString());
        QVERIFY(files.ok());
        QCOMPARE(files->size(), std::size_t(2));
        QVERIFY(QString::fromStdString((*files)[0]).endsWith("a.log.gz"));
        QVERIFY(QString::fromStdString((*files)[1]).endsWith("b.log"));
    }
};

QTEST_GUILESS_MAIN(TestFileReader)
#include "tst_file_reader.moc"

FXSCOPE_TEST_END
