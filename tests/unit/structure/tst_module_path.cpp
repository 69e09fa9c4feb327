// Module paths from graph names: Dynamo's mangled source names (separators, underscores in
// module names, numeric indexes, roots other than self) and dotted targets; names that look
// like module paths but are not.
#include "core/structure/module_path.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs::structure;

class TestModulePath : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dynamoNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("module");
        QTest::addColumn<QString>("attr");
        QTest::addColumn<int>("kind");
        const int param = static_cast<int>(AttrKind::Parameter);
        const int buffer = static_cast<int>(AttrKind::Buffer);
        QTest::newRow("nested, underscores, index")
            << "L_self_modules_model_modules_layers_modules_3_modules_self_attn_modules_q_proj_"
               "parameters_weight_"
            << "model.layers.3.self_attn.q_proj" << "weight" << param;
        QTest::newRow("lower-case alias")
            << "l_self_modules_model_modules_embed_tokens_parameters_weight_"
            << "model.embed_tokens" << "weight" << param;
        QTest::newRow("buffer") << "L_self_modules_model_modules_rotary_emb_buffers_inv_freq_"
                                << "model.rotary_emb" << "inv_freq" << buffer;
        QTest::newRow("buffer with underscores")
            << "L_self_modules_layer1_modules_0_modules_bn2_buffers_num_batches_tracked_"
            << "layer1.0.bn2" << "num_batches_tracked" << buffer;
        QTest::newRow("root other than self")
            << "L_s_modules_blocks_modules_0_modules_ln1_parameters_bias_" << "s.blocks.0.ln1"
            << "bias" << param;
        QTest::newRow("attribute named like a separator word")
            << "L_self_modules_attn_parameters_in_proj_weight_" << "attn" << "in_proj_weight"
            << param;
        QTest::newRow("attribute containing _buffers_")
            << "L_self_modules_a_parameters_old_buffers_x_" << "a" << "old_buffers_x" << param;
        QTest::newRow("parameter of the root") << "L_self_parameters_weight_" << "" << "weight"
                                               << param;
        QTest::newRow("global") << "G_model_modules_fc_parameters_bias_" << "model.fc" << "bias"
                                << param;
    }

    void dynamoNames()
    {
        QFETCH(QString, name);
        const auto p = parseDynamoName(name.toStdString());
        QVERIFY(p.has_value());
        QFETCH(QString, module);
        QFETCH(QString, attr);
        QFETCH(int, kind);
        QCOMPARE(QString::fromStdString(p->module), module);
        QCOMPARE(QString::fromStdString(p->attr), attr);
        QCOMPARE(static_cast<int>(p->kind), kind);
        QCOMPARE(QString::fromStdString(p->path()), module.isEmpty() ? attr : module + "." + attr);
    }

    // Names that look like module paths but are not parameters of a module.
    void notModulePaths_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("plain input") << "L_x_";
        QTest::newRow("kwargs input") << "L_kwargs_input_ids_";
        QTest::newRow("module without attribute") << "L_self_modules_layers_modules_0_";
        QTest::newRow("no L_ prefix") << "self_modules_fc_parameters_weight_";
        QTest::newRow("AOT primal") << "primals_12";
        QTest::newRow("empty attribute") << "L_self_modules_fc_parameters__";
        QTest::newRow("empty module") << "L_self_modules__modules_fc_parameters_weight_";
        QTest::newRow("no trailing underscore") << "L_self_modules_fc_parameters_weight";
        QTest::newRow("dotted") << "L_self.fc.weight_";
        QTest::newRow("tangent") << "tangents_1";
        QTest::newRow("export-style flattened") << "p_layers_0_attn_weight";
    }

    void notModulePaths()
    {
        QFETCH(QString, name);
        QVERIFY(!parseDynamoName(name.toStdString()).has_value());
    }

    void dottedTargets()
    {
        auto p = parseDottedTarget("layers.3.attn.weight");
        QVERIFY(p.has_value());
        QCOMPARE(QString::fromStdString(p->module), QString("layers.3.attn"));
        QCOMPARE(QString::fromStdString(p->attr), QString("weight"));
        QVERIFY(!parseDottedTarget("fwd_body_0").has_value());
        QVERIFY(!parseDottedTarget("layers..weight").has_value());
        QVERIFY(!parseDottedTarget("layers.3.").has_value());
        QCOMPARE(QString::fromStdString(*modulePathOfTarget("encoder.layers.0")),
                 QString("encoder.layers.0"));
        QVERIFY(!modulePathOfTarget("torch.ops.aten.add(").has_value());
        QCOMPARE(QString::fromStdString(std::string(parentPath("a.b.c"))), QString("a.b"));
        QVERIFY(parentPath("a").empty());
    }
};

QTEST_GUILESS_MAIN(TestModulePath)
#include "tst_module_path.moc"

FXSCOPE_TEST_END
