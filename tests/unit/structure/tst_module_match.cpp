// Module patterns (`layers.*.mlp`): component globs, `**`, matching the path's last components,
// invalid patterns; modules of a LLaMA tree matching a pattern (24 MLPs, outermost only); the
// same module across the Dynamo, AOT forward and backward graphs of the recorded LLaMA compile.
#include "core/io/torch_trace_reader.h"
#include "core/partition/region_edit.h"
#include "core/structure/module_match.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::structure;

class TestModuleMatch : public QObject {
    Q_OBJECT

private:
    io::TraceReadResult m_llama;

private Q_SLOTS:
    void initTestCase()
    {
        m_llama = io::readTorchTracePath(std::string(FXSCOPE_TEST_DATA) +
                                         "/recorded/traces/llama24.log.gz");
        QVERIFY(m_llama.readSomething);
    }

    void patterns_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("matches");
        QTest::newRow("star component") << "layers.*.mlp" << "layers.3.mlp" << true;
        QTest::newRow("suffix of a longer path") << "layers.*.mlp" << "model.layers.3.mlp" << true;
        QTest::newRow("not a prefix") << "layers.*.mlp" << "model.layers.3.mlp.act" << false;
        QTest::newRow("star is one component") << "layers.*.mlp" << "layers.3.x.mlp" << false;
        QTest::newRow("double star spans") << "layers.**.q_proj" << "layers.3.self_attn.q_proj"
                                           << true;
        QTest::newRow("double star spans none") << "model.**.norm" << "model.norm" << true;
        QTest::newRow("star inside a component") << "*_proj" << "model.layers.0.mlp.up_proj"
                                                 << true;
        QTest::newRow("question mark") << "layers.?.mlp" << "layers.12.mlp" << false;
        QTest::newRow("question mark one char") << "layers.?.mlp" << "layers.7.mlp" << true;
        QTest::newRow("whole component only") << "mlp" << "model.layers.0.mlp2" << false;
        QTest::newRow("literal") << "lm_head" << "lm_head" << true;
        QTest::newRow("empty path") << "*" << "" << false;
        QTest::newRow("invalid pattern") << "layers..mlp" << "layers..mlp" << false;
    }

    void patterns()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, path);
        QFETCH(bool, matches);
        QCOMPARE(matchesModulePattern(pattern.toStdString(), path.toStdString()), matches);
    }

    void invalidPatterns()
    {
        for (const char* p : {"", "layers..mlp", ".mlp", "mlp."}) {
            const auto status = checkModulePattern(p);
            QVERIFY2(!status.ok(), p);
            QCOMPARE(status.error().code, ErrorCode::Invalid);
        }
        QVERIFY(checkModulePattern("layers.*.mlp").ok());
    }

    void llamaMlps()
    {
        auto tree = recoverRunGraphStructure(m_llama.run, 0);
        QVERIFY(tree.ok());
        auto mlps = modulesMatching(*tree, "layers.*.mlp");
        QVERIFY(mlps.ok());
        QCOMPARE(mlps->size(), std::size_t(24));
        for (std::size_t k = 0; k < 24; ++k) {
            QCOMPARE(tree->module((*mlps)[k]).path, "model.layers." + std::to_string(k) + ".mlp");
        }
        // Every projection of the layers: 7 per layer; outermost only drops nothing here.
        auto projections = modulesMatching(*tree, "layers.**.*_proj", true);
        QVERIFY(projections.ok());
        QCOMPARE(projections->size(), std::size_t(24 * 7));
        // `layers` and its descendants (per layer: itself, self_attn and its 4 projections, mlp
        // and its 3, two norms = 12; act_fn has no parameters); outermost keeps `layers` alone.
        QCOMPARE(modulesMatching(*tree, "layers.**")->size(), std::size_t(1 + 24 * 12));
        QCOMPARE(modulesMatching(*tree, "layers.**", true)->size(), std::size_t(1));
        QVERIFY(!modulesMatching(*tree, "layers..mlp").ok());
        QVERIFY(modulesMatching(*tree, "transformer.h.*")->empty());
    }

    // layers.*.mlp → 24 regions in one edit: each the MLP's computing nodes (no weights).
    void regionsPerMlp()
    {
        const graph::Graph& g = *m_llama.run.graphs[0].graph;
        auto tree = recoverRunGraphStructure(m_llama.run, 0);
        QVERIFY(tree.ok());
        auto mlps = moduleNodesMatching(g, *tree, "layers.*.mlp");
        QVERIFY(mlps.ok());
        QCOMPARE(mlps->size(), std::size_t(24));
        std::vector<std::pair<std::string, std::vector<graph::NodeId>>> named;
        for (const ModuleNodes& m : *mlps) {
            for (graph::NodeId id : m.nodes) {
                QVERIFY(!g.node(id).isPlaceholder());
            }
            // gate, up, down linears, the activation and the product at least.
            QVERIFY(m.nodes.size() >= 5);
            named.emplace_back(m.path, m.nodes);
        }
        QCOMPARE(mlps->front().nodes.size(), mlps->back().nodes.size());
        const auto made = partition::createRegions(g, {}, named);
        QVERIFY2(made.ok(), made.refusal.c_str());
        QCOMPARE(made.regions->size(), std::size_t(24));
        QCOMPARE(made.regions->at(3).name, std::string("model.layers.3.mlp"));
        QCOMPARE(made.regions->at(3).nodes, (*mlps)[3].nodes);
        // Again on top: every node is taken, so nothing is created and the refusal names it.
        const auto again = partition::createRegions(g, *made.regions, named);
        QVERIFY(!again.ok());
        QVERIFY(again.refusal.find("model.layers.0.mlp") != std::string::npos);
        QVERIFY(!partition::createRegions(g, {}, {}).ok());
    }

    void sameModuleAcrossCompile()
    {
        // From the Dynamo graph (index 0): the joint, forward and backward graphs of compile 0/0.
        auto across = moduleAcrossCompile(m_llama.run, 0, "model.layers.3.mlp");
        QVERIFY(across.ok());
        QCOMPARE(across->size(), m_llama.run.graphs.size());
        for (const ModuleInGraph& in : *across) {
            const auto& art = m_llama.run.graphs[in.graphIndex];
            if (art.kind == "aot_joint_graph") {
                continue; // joint graphs are not mapped (no tags); may be empty
            }
            QVERIFY2(!in.nodes.empty(), art.kind.c_str());
            // The MLP's down projection weight (Dynamo name, AOT primals_N, saved in backward)
            // is among the nodes of every mapped graph.
            auto tree = recoverRunGraphStructure(m_llama.run, in.graphIndex);
            const auto down = tree->find("model.layers.3.mlp.down_proj");
            QVERIFY(down.has_value());
            for (graph::NodeId id : tree->nodesOf(*down)) {
                QVERIFY(std::find(in.nodes.begin(), in.nodes.end(), id) != in.nodes.end());
            }
        }
        auto none = moduleAcrossCompile(m_llama.run, 2, "model.layers.99");
        QVERIFY(none.ok());
        for (const ModuleInGraph& in : *none) {
            QVERIFY(in.nodes.empty());
        }
        QCOMPARE(moduleAcrossCompile(m_llama.run, 99, "model").error().code, ErrorCode::Invalid);
    }
};

QTEST_GUILESS_MAIN(TestModuleMatch)
#include "tst_module_match.moc"

FXSCOPE_TEST_END
