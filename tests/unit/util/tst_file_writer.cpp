// The one output-file writer: an existing FIFO, socket, device or directory is refused at once
// by name (a FIFO without a reader never blocks the writer), the data replaces a file only
// when complete (no temporary left behind), an existing file keeps its permissions and a
// symbolic link keeps pointing at the file it names.
#include "core/util/file_reader.h"
#include "core/util/file_writer.h"
#include "tests/test_file.h"

#include <QtTest>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

bool mentions(const Status& s, std::string_view text)
{
    return !s.ok() && s.error().toString().find(text) != std::string::npos;
}

mode_t modeOf(const std::string& path)
{
    struct stat st {};
    ::stat(path.c_str(), &st);
    return st.st_mode & 07777;
}

} // namespace

class TestFileWriter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void refusesAFifoAtOnce()
    {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath("project.fxscope").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        auto promise = std::make_shared<std::promise<Status>>();
        auto future = promise->get_future();
        std::thread([promise, fifo] { promise->set_value(writeFile(fifo, "data")); }).detach();
        if (future.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
            // A writer blocked in open(): give it a reader so that the thread can end.
            const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
            future.wait_for(std::chrono::seconds(5));
            ::close(reader);
            QFAIL("writing to a FIFO blocked");
        }
        const Status s = future.get();
        QVERIFY2(mentions(s, "not a regular file: it is a named pipe (FIFO)"),
                 s.ok() ? "written" : s.error().toString().c_str());
        QCOMPARE(s.error().where, fifo);
        QCOMPARE(s.error().code, ErrorCode::Io);
        QVERIFY(mentions(checkWritableTarget(fifo), "named pipe (FIFO)"));
    }

    void refusesOtherSpecialFilesByName()
    {
        QTemporaryDir dir;
        QVERIFY(mentions(writeFile(dir.path().toStdString(), "x"), "it is a directory"));
        QVERIFY(mentions(writeFile("/dev/null", "x"), "it is a character device"));
        const std::string socketPath = dir.filePath("s").toStdString();
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, socketPath.c_str(), sizeof addr.sun_path - 1);
        QCOMPARE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        QVERIFY(mentions(writeFile(socketPath, "x"), "it is a socket"));
        ::close(fd);
        // A link to a FIFO is what it names.
        const std::string fifo = dir.filePath("fifo").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const std::string link = dir.filePath("link").toStdString();
        QCOMPARE(::symlink(fifo.c_str(), link.c_str()), 0);
        QVERIFY(mentions(writeFile(link, "x"), "named pipe (FIFO)"));
    }

    void replacesFilesWhole()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("out.json").toStdString();
        QVERIFY(writeFile(path, "first version, longer").ok());
        QCOMPARE(::chmod(path.c_str(), 0640), 0);
        QVERIFY(writeFile(path, "second").ok());
        QCOMPARE(*readFile(path), std::string("second"));
        QCOMPARE(modeOf(path), mode_t(0640));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
        // A new file: 0666 less the umask.
        const mode_t mask = ::umask(022);
        const std::string fresh = dir.filePath("new.json").toStdString();
        QVERIFY(writeFile(fresh, "x").ok());
        ::umask(mask);
        QCOMPARE(modeOf(fresh), mode_t(0644));
        // A missing folder is an Io error naming the path.
        const std::string nowhere = dir.filePath("no/such/dir/x").toStdString();
        const Status s = writeFile(nowhere, "x");
        QVERIFY(!s.ok());
        QCOMPARE(s.error().where, nowhere);
    }

    void writesThroughALink()
    {
        QTemporaryDir dir;
        const std::string target = dir.filePath("target.txt").toStdString();
        const std::string link = dir.filePath("link.txt").toStdString();
        QVERIFY(writeFile(target, "old").ok());
        QCOMPARE(::symlink(target.c_str(), link.c_str()), 0);
        QVERIFY(writeFile(link, "new").ok());
        QCOMPARE(*readFile(target), std::string("new"));
        struct stat st {};
        QCOMPARE(::lstat(link.c_str(), &st), 0);
        QVERIFY(S_ISLNK(st.st_mode));
    }
};

QTEST_GUILESS_MAIN(TestFileWriter)
#include "tst_file_writer.moc"

FXSCOPE_TEST_END
