// keydiff's field strategies: "k=v;k=v" lists in position, TensorMetadata by field name with
// cleaned values and dtype/shape/stride/device first; which strategy two texts admit; counts.
#include "core/keydiff/field_diff.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs::keydiff;

namespace {

std::string tensorMeta(const std::string& dtype, const std::string& shape,
                       const std::string& extra = "requires_grad=False")
{
    return "TensorMetadata(dtype=torch." + dtype + ", shape=torch.Size([" + shape +
           "]), stride=(1,), device=device(type='cuda', index=0), " + extra + ")";
}

std::vector<std::string> phrases(const std::vector<FieldChange>& fs)
{
    std::vector<std::string> out;
    for (const auto& f : fs) {
        out.push_back(f.field + ":" + f.a + ">" + f.b);
    }
    return out;
}

} // namespace

class TestFieldDiff : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void strategyOfTwoTexts()
    {
        QCOMPARE(fieldStrategyOf(tensorMeta("float32", "4"), tensorMeta("float16", "4")),
                 FieldStrategy::TensorMetadata);
        QCOMPARE(fieldStrategyOf("dtype=float32;sizes=[4]", "dtype=float64;sizes=[4]"),
                 FieldStrategy::KeyValueList);
        // Both sides must admit it; multi-line texts are not field lists.
        QCOMPARE(fieldStrategyOf("dtype=float32", "g++ -O3"), FieldStrategy::None);
        QCOMPARE(fieldStrategyOf("a=1\nb=2", "a=1\nb=3"), FieldStrategy::None);
        QCOMPARE(fieldStrategyOf(tensorMeta("float32", "4"), "dtype=float32"),
                 FieldStrategy::KeyValueList);
    }

    void keyValueListsInPosition()
    {
        const auto fs = diffFields("dtype=float32;sizes=[16777216];strides=[1];device=cpu",
                                   "dtype=float64;sizes=[1048576];strides=[1];device=cpu",
                                   FieldStrategy::KeyValueList);
        QCOMPARE(phrases(fs), (std::vector<std::string>{"dtype:float32>float64",
                                                        "sizes:[16777216]>[1048576]"}));
        // A field without '=' is all value (named by the other side); a missing one is empty.
        QCOMPARE(phrases(diffFields("a=1;flag", "a=1;x=2", FieldStrategy::KeyValueList)),
                 std::vector<std::string>{"x:flag>2"});
        QCOMPARE(phrases(diffFields("a=1", "a=1;b=2", FieldStrategy::KeyValueList)),
                 std::vector<std::string>{"b:>2"});
        QVERIFY(diffFields("a=1;b=2", "a=1;b=2", FieldStrategy::KeyValueList).empty());
    }

    void tensorMetadataByNameCleaned()
    {
        const auto fs = diffFields(tensorMeta("float32", "64, 64", "requires_grad=False"),
                                   tensorMeta("float16", "128, 64", "requires_grad=True"),
                                   FieldStrategy::TensorMetadata);
        // dtype and shape first, then the others in printed order; torch. and Size removed.
        QCOMPARE(phrases(fs), (std::vector<std::string>{"dtype:float32>float16",
                                                        "shape:[64, 64]>[128, 64]",
                                                        "requires_grad:False>True"}));
        const auto dev = diffFields(
            "TensorMetadata(device=device(type='cuda', index=0), is_coalesced=None)",
            "TensorMetadata(device=device(type='cpu'))", FieldStrategy::TensorMetadata);
        QCOMPARE(phrases(dev), (std::vector<std::string>{"device:cuda:0>cpu",
                                                         "is_coalesced:None>(absent)"}));
        QVERIFY(parseTensorMetadata("TensorMetadata(no equals sign)").empty());
        QVERIFY(parseTensorMetadata("dtype=float32").empty());
    }

    void noStrategyNoFields()
    {
        QVERIFY(diffFields("a=1", "a=2", FieldStrategy::None).empty());
    }

    void countsDifferingFields()
    {
        QCOMPARE(countFieldDifferences("dtype=f32;sizes=[4]", "dtype=f64;sizes=[8]"),
                 std::size_t(2));
        QCOMPARE(countFieldDifferences("dtype=f32;sizes=[4]", "dtype=f32;sizes=[8]"),
                 std::size_t(1));
        QCOMPARE(countFieldDifferences("g++ -O2", "g++ -O3"), std::size_t(1));
        QCOMPARE(countFieldDifferences("same", "same"), std::size_t(0));
        QCOMPARE(countFieldDifferences(tensorMeta("float32", "4"), tensorMeta("float16", "8")),
                 std::size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestFieldDiff)
#include "tst_field_diff.moc"

FXSCOPE_TEST_END
