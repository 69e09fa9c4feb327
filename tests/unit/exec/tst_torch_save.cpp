// The torch.save gate (util/torch_save_archive + exec/torch_save): archives made here byte by
// byte (tests/unit/util/raw_zip_writer.h) with pickles that LibTorch 1.13's unpickler reads
// without complaint but that view memory outside their storage, name storages the archive
// lacks, underflow its stack or declare gigabytes in a few bytes. Each is refused with an
// error naming what is wrong, before any tensor is used; a good archive reads back its values.
#include "core/exec/torch_save.h"
#include "tests/test_file.h"
#include "tests/unit/util/raw_zip_writer.h"

#include <ATen/ATen.h>
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <future>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::test::PickleWriter;

namespace {

Result<c10::IValue> load(const std::string& zip, const TorchSaveLimits& limits = {})
{
    return exec::detail::readTorchSaveBytes(zip, "inputs.pt", limits);
}

// A one-tensor archive over a record of `recordFloats` floats.
std::string tensorZip(std::int64_t numel, std::int64_t offset,
                      const std::vector<std::int64_t>& sizes,
                      const std::vector<std::int64_t>& strides, int recordFloats)
{
    const std::string pickle = PickleWriter().tensor("0", numel, offset, sizes, strides).done();
    return fxs::test::torchSaveZip(pickle, {{"0", fxs::test::floatRecord(recordFloats)}});
}

bool mentions(const Result<c10::IValue>& r, const std::string& text)
{
    return !r.ok() && r.error().toString().find(text) != std::string::npos;
}

} // namespace

class TestTorchSave : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsAGoodArchive()
    {
        auto r = load(tensorZip(6, 0, {2, 3}, {3, 1}, 6));
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        const at::Tensor t = r->toTensor();
        QCOMPARE(t.sizes().vec(), (std::vector<std::int64_t>{2, 3}));
        QVERIFY(t.equal(at::arange(6, at::kFloat).view({2, 3})));
        // A view inside a larger storage is fine: offset 2, every other element.
        r = load(tensorZip(8, 2, {3}, {2}, 8));
        QVERIFY(r.ok());
        QVERIFY(r->toTensor().equal(at::tensor({2.f, 4.f, 6.f})));
    }

    void refusesAnOffsetPastTheStorage()
    {
        const auto r = load(tensorZip(6, 1000000, {2, 3}, {3, 1}, 6));
        QVERIFY2(mentions(r, "a tensor reaches past its storage '0'"),
                 r.ok() ? "loaded" : r.error().toString().c_str());
        QCOMPARE(r.error().code, ErrorCode::Parse);
        QVERIFY(mentions(r, "offset 1000000"));
    }

    void refusesStridesPastTheStorage()
    {
        QVERIFY(mentions(load(tensorZip(6, 0, {2, 3}, {4, 1}, 6)), "reaches past its storage"));
        // (size - 1) * stride overflows 64 bits.
        QVERIFY(mentions(load(tensorZip(6, 0, {3}, {INT64_MAX / 2 + 1}, 6)),
                         "reaches past its storage"));
        QVERIFY(mentions(load(tensorZip(6, INT64_MAX, {1}, {1}, 6)), "reaches past its storage"));
    }

    // LibTorch 1.13 replaces a negative stride by the contiguous one while it builds the
    // tensor (TensorImpl::set_sizes_and_strides): what the gate checks is the view that
    // results. A pickle reading 6 floats backwards from the last one becomes elements 5..10 of
    // 6 and is refused; the same from element 0 is the plain tensor.
    void checksTheViewANegativeStrideBecomes()
    {
        auto r = load(tensorZip(6, 5, {6}, {-1}, 6));
        QVERIFY2(mentions(r, "a tensor reaches past its storage '0'"),
                 r.ok() ? "loaded" : r.error().toString().c_str());
        QVERIFY2(mentions(r, "offset 5, sizes [6], strides [1]"), r.error().toString().c_str());
        r = load(tensorZip(6, 0, {2, 3}, {-3, -1}, 6));
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QCOMPARE(r->toTensor().strides().vec(), (std::vector<std::int64_t>{3, 1}));
        QVERIFY(r->toTensor().equal(at::arange(6, at::kFloat).view({2, 3})));
        QVERIFY(mentions(load(tensorZip(6, 1, {2, 3}, {INT64_MIN, -1}, 6)),
                         "reaches past its storage"));
    }

    // The unpickler takes numel * 4 as the storage's size whatever the record holds: reading
    // such a tensor reads past the record (silently, exit 0, before the gate).
    void refusesAStorageLargerThanItsRecord()
    {
        const auto r = load(tensorZip(1000, 0, {1000}, {1}, 6));
        QVERIFY2(mentions(r, "storage '0' declares 3.9 KiB; its record holds 24 bytes"),
                 r.ok() ? "loaded" : r.error().toString().c_str());
    }

    void refusesAnExpandedViewLargerThanTheCap()
    {
        // One element seen 2^20 x 2^20 times: 4 TiB for any op that touches it.
        const auto r = load(tensorZip(1, 0, {1 << 20, 1 << 20}, {0, 0}, 1));
        QVERIFY2(mentions(r, "more than the limit of 2.0 GiB"),
                 r.ok() ? "loaded" : r.error().toString().c_str());
        QCOMPARE(r.error().code, ErrorCode::Unsupported);
    }

    void refusesAMissingStorage()
    {
        const std::string pickle = PickleWriter().tensor("7", 6, 0, {6}, {1}).done();
        const auto r = load(fxs::test::torchSaveZip(pickle, {{"0", fxs::test::floatRecord(6)}}));
        QVERIFY2(mentions(r, "the pickle names storage '7', which the archive does not hold"),
                 r.ok() ? "loaded" : r.error().toString().c_str());
        QCOMPARE(r.error().code, ErrorCode::Invalid);
    }

    void refusesStackFaultsBeforeLibTorchSeesThem()
    {
        // BUILD with one value on the stack; TUPLE without a MARK; APPENDS into nothing.
        for (const char* ops : {"Nb", "NNt", "(e"}) {
            const std::string pickle = PickleWriter().raw(ops).done();
            const auto r = load(fxs::test::torchSaveZip(pickle, {}));
            QVERIFY2(mentions(r, "pickle archive/data.pkl: opcode"),
                     r.ok() ? "loaded" : r.error().toString().c_str());
            QCOMPARE(r.error().where, std::string("inputs.pt!archive/data.pkl"));
        }
    }

    // A record whose headers claim 3.7 GiB in a few bytes: refused by its declared size before
    // anything is allocated (LibTorch's reader allocates the declared size first).
    void refusesDeclaredSizesOverTheCap()
    {
        const std::string pickle = PickleWriter().tensor("0", 6, 0, {6}, {1}).done();
        const auto zip = fxs::test::rawZip(
            {fxs::test::storedEntry("archive/data.pkl", pickle),
             fxs::test::deflatedEntry("archive/data/0", fxs::test::floatRecord(6), 4000000000u),
             fxs::test::storedEntry("archive/version", "3\n")});
        const auto r = load(zip);
        QVERIFY2(mentions(r, "inputs.pt!archive/data/0: the entry declares 3.7 GiB, more than "
                             "the limit of 2.0 GiB"),
                 r.ok() ? "loaded" : r.error().toString().c_str());
        // Under a larger cap it is still refused: 20 deflated bytes cannot hold 3.7 GiB.
        const auto bigCap = load(zip, {8ull << 30});
        QVERIFY2(mentions(bigCap, "of deflated data can hold"),
                 bigCap.ok() ? "loaded" : bigCap.error().toString().c_str());
    }

    // A storage named again and again reads its record each time: the total is capped.
    void capsRecordsReadAgain()
    {
        PickleWriter p;
        p.raw("(");
        for (int i = 0; i < 5; ++i) {
            p.tensor("0", 256, 0, {256}, {1});
        }
        const std::string zip =
            fxs::test::torchSaveZip(p.raw("l").done(), {{"0", fxs::test::floatRecord(256)}});
        QVERIFY(load(zip).ok());
        const auto r = load(zip, {4096}); // 5 reads of 1 KiB
        QVERIFY2(mentions(r, "a record named again counts again"),
                 r.ok() ? "loaded" : r.error().toString().c_str());
    }

    void refusesAFifoWithoutBlocking()
    {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath("inputs.pt").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        // Held open for writing, so that a reader that did open it would not block in open();
        // closed after 10 s, so that one blocked in read() gets its end of file: never a hang.
        const int writer = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
        QVERIFY(writer >= 0);
        auto pending = std::async(std::launch::async, [&] {
            return exec::detail::readTorchSave(fifo);
        });
        const bool blocked = pending.wait_for(std::chrono::seconds(10)) !=
                             std::future_status::ready;
        ::close(writer);
        const auto r = pending.get();
        QVERIFY2(!blocked, "reading a FIFO blocked");
        QVERIFY2(mentions(r, "not a regular file: it is a named pipe (FIFO)"),
                 r.ok() ? "loaded" : r.error().toString().c_str());
        QCOMPARE(r.error().where, fifo);
    }
};

QTEST_GUILESS_MAIN(TestTorchSave)
#include "tst_torch_save.moc"

FXSCOPE_TEST_END
