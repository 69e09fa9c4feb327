// fxscope-cli on ResNet-18 inference (tests/data/fixtures/graphs/resnet18_infer.txt, recorded by
// PyTorch 2.11): its 20 inference batch norms are lowered, so `partition --auto` puts each into a
// region with its relu (and the residual add), and `compile --auto --no-run` builds every such
// region as one generated kernel (issue 27: Inductor fuses each BN with its relu and add).
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <set>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::runCli;
using Names = std::vector<std::string>;

QString resnet()
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/graphs/resnet18_infer.txt");
}

json parsed(const CliRun& r) { return json::parse(r.out.toStdString(), nullptr, false); }

bool isBatchNorm(const std::string& name)
{
    return name.rfind("_native_batch_norm_legit_no_training", 0) == 0;
}

} // namespace

class TestCliBatchNorm : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void autoRegionsHoldTheBatchNorms()
    {
        const auto r = runCli({"partition", resnet(), "--auto", "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = parsed(r);
        QVERIFY(!j.is_discarded());
        std::set<std::string> inRegions;
        for (const json& region : j.at("regions")) {
            for (const auto& n : region.at("nodes").get<Names>()) {
                inRegions.insert(n);
            }
        }
        int batchNorms = 0;
        for (const auto& n : inRegions) {
            batchNorms += isBatchNorm(n) ? 1 : 0;
        }
        QCOMPARE(batchNorms, 20);
        for (const json& ex : j.at("excluded")) {
            QVERIFY2(!isBatchNorm(ex.at("node").get<std::string>()), ex.dump().c_str());
        }
        // One region per block: the first layer's bn + relu, the residual bn + add + relu; the
        // stem's max pool (only its values read) joins the stem's bn + relu.
        const json& regions = j.at("regions");
        QCOMPARE(regions.size(), std::size_t(17));
        QCOMPARE(regions[0].at("nodes").get<Names>(),
                 (Names{"_native_batch_norm_legit_no_training", "getitem", "relu",
                        "max_pool2d_with_indices", "getitem_3"}));
        QCOMPARE(regions[0].at("outputs").get<Names>(), (Names{"getitem_3"}));
        QCOMPARE(regions[2].at("nodes").get<Names>(),
                 (Names{"_native_batch_norm_legit_no_training_2", "getitem_8", "add", "relu_2"}));
        // The downsampling block: both branches' batch norms, the add and the relu.
        QCOMPARE(regions[6].at("nodes").get<Names>(),
                 (Names{"_native_batch_norm_legit_no_training_6", "getitem_20",
                        "_native_batch_norm_legit_no_training_7", "getitem_23", "add_2",
                        "relu_6"}));
        QCOMPARE(regions[6].at("outputs").get<Names>(), (Names{"relu_6"}));
    }

    void everyRegionBuildsAsOneKernel()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto r = runCli({"compile", resnet(), "--auto", "--device", "cpu", "--no-run",
                               "--json", "--cache", dir.path() + "/cache.db"},
                              180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json j = parsed(r);
        QVERIFY(!j.is_discarded());
        QCOMPARE(j.at("regions").size(), std::size_t(17));
        for (const json& region : j.at("regions")) {
            const std::string state = region.at("state").get<std::string>();
            QVERIFY2(state == "built" || state == "hit", region.dump().c_str());
            QCOMPARE(region.at("kernels").get<int>(), 1);
            QCOMPARE(region.at("extern_nodes").get<int>(), 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestCliBatchNorm)
#include "tst_cli_batch_norm.moc"

FXSCOPE_TEST_END
