// fxscope-cli structure end to end: the JSON contract on the recorded 24-layer LLaMA trace's AOT
// forward graph (mapped from its Dynamo graph: model with 24 identical decoder layers, lm_head),
// a bare printed backward graph (24 repeated blocks labelled "block N"), transformers BERT's AOT
// forward (6 identical encoder layers), and bad input.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QtTest>

#include <nlohmann/json.hpp>

FXSCOPE_TEST_BEGIN

using nlohmann::json;
using fxs::test::runCli;

namespace {

const QString kRecorded = QStringLiteral(FXSCOPE_TEST_DATA "/recorded/");

const json* child(const json& module, const std::string& path)
{
    for (const auto& c : module.at("children")) {
        if (c.at("path") == path) {
            return &c;
        }
    }
    return nullptr;
}

} // namespace

class TestCliStructure : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aotForwardOfLlama()
    {
        auto r = runCli({"structure", kRecorded + "traces/llama24.log.gz", "--graph",
                         "0/0:aot_forward_graph", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        QCOMPARE(j.at("graph").at("kind").get<std::string>(), std::string("aot_forward_graph"));
        QCOMPARE(j.at("graph").at("compile_id").get<std::string>(), std::string("0/0"));
        QCOMPARE(j.at("graph").at("nodes").get<int>(), 2408); // `inspect` counts the same
        QCOMPARE(j.at("source").get<std::string>(), std::string("aot_mapping"));
        QCOMPARE(j.at("match").get<std::string>(), std::string("aot_tag"));
        const auto& roots = j.at("modules");
        QCOMPARE(roots.size(), std::size_t{2});
        QCOMPARE(roots[0].at("path").get<std::string>(), std::string("model"));
        QCOMPARE(roots[1].at("path").get<std::string>(), std::string("lm_head"));
        const json* layers = child(roots[0], "model.layers");
        QVERIFY(layers);
        QCOMPARE(layers->at("children").size(), std::size_t{24});
        int sum = 0;
        for (std::size_t k = 0; k < 24; ++k) {
            const auto& layer = layers->at("children")[k];
            QCOMPARE(layer.at("path").get<std::string>(), "model.layers." + std::to_string(k));
            if (k == 0) {
                QVERIFY(layer.at("identical_to").is_null());
            } else {
                QCOMPARE(layer.at("identical_to").get<std::string>(), std::string("model.layers.0"));
            }
            QVERIFY(child(layer, layer.at("path").get<std::string>() + ".self_attn"));
            sum += layer.at("nodes").get<int>();
        }
        QCOMPARE(layers->at("nodes").get<int>(), sum);
        const auto& blocks = j.at("repeated_blocks");
        QCOMPARE(blocks[0].at("instances").size(), std::size_t{24});
        QCOMPARE(blocks[0].at("instances")[3].at("label").get<std::string>(),
                 std::string("model.layers.3"));
        QCOMPARE(blocks[0].at("nodes_each"), layers->at("children")[3].at("nodes"));
        QVERIFY(j.at("unassigned_nodes").get<int>() < 2408 / 100);
    }

    // transformers BERT's AOT forward (6 layers, attention mask): every encoder layer is
    // identical to the first, and the additive mask the first computes for all six (two
    // scalars, where, expand: checked by hand in the printed graph) sits in `encoder`.
    void bertAotForwardLayersIdentical()
    {
        auto r = runCli({"structure",
                         QStringLiteral(FXSCOPE_TEST_DATA "/runtime/bert6_train/"
                                        "dedicated_log_torch_trace__gts3e64.log.gz"),
                         "--graph", "0/0:aot_forward_graph", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        const json* encoder = nullptr;
        for (const auto& m : j.at("modules")) {
            encoder = m.at("path") == "encoder" ? &m : encoder;
        }
        QVERIFY(encoder);
        const json* layers = child(*encoder, "encoder.layer");
        QVERIFY(layers);
        QCOMPARE(encoder->at("nodes").get<int>(), layers->at("nodes").get<int>() + 4);
        QCOMPARE(layers->at("children").size(), std::size_t{6});
        for (std::size_t k = 1; k < 6; ++k) {
            QCOMPARE(layers->at("children")[k].at("identical_to").get<std::string>(),
                     std::string("encoder.layer.0"));
        }
        const auto& instances = j.at("repeated_blocks")[0].at("instances");
        QCOMPARE(instances.size(), std::size_t{6});
        QCOMPARE(instances[5].at("label").get<std::string>(), std::string("encoder.layer.5"));
    }

    void bareBackwardRepetition()
    {
        auto r = runCli({"structure", kRecorded + "graphs/llama24_train_graph1.txt.gz", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QCOMPARE(j.at("source").get<std::string>(), std::string("repetition"));
        QCOMPARE(j.at("graph").at("kind").get<std::string>(), std::string("graph"));
        QVERIFY(j.at("graph").at("compile_id").is_null());
        const auto& instances = j.at("repeated_blocks")[0].at("instances");
        QCOMPARE(instances.size(), std::size_t{24});
        for (std::size_t k = 0; k < 24; ++k) {
            QCOMPARE(instances[k].at("label").get<std::string>(), "block " + std::to_string(k));
        }
    }

    void badInput()
    {
        auto missing = runCli({"structure", kRecorded + "graphs/no_such_graph.txt"});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("no_such_graph"));
        auto selector = runCli({"structure", kRecorded + "traces/llama24.log.gz", "--graph",
                                "7/7:aot_forward_graph"});
        QCOMPARE(selector.exitCode, 2);
        QVERIFY(!selector.err.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliStructure)
#include "tst_cli_structure.moc"

FXSCOPE_TEST_END
