// ComponentDiffModel under QAbstractItemModelTester: rows, first-line display of multi-line
// values, full values as tooltips, side names in the header; the one conversion of both
// differs' ComponentChange (PyTorch keys: family; region keys: the differing field).
#include "tests/test_file.h"
#include "views/models/component_diff_model.h"

#include <QAbstractItemModelTester>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs::views;

class TestComponentDiffModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void showsRows()
    {
        ComponentDiffModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        const QString gmA = QStringLiteral("GraphModule()\n\ndef forward(self, x):\n    return x");
        model.setRows({{QStringLiteral("inductor_config[max_fusion_size]"),
                        QStringLiteral("inductor_config"), QStringLiteral("changed"),
                        QStringLiteral("64"), QStringLiteral("32")},
                       {QStringLiteral("gm"), QStringLiteral("gm"), QStringLiteral("changed"), gmA,
                        QString()}});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), 5);
        QCOMPARE(model.index(0, ComponentDiffModel::AColumn).data().toString(), QStringLiteral("64"));
        QCOMPARE(model.index(0, ComponentDiffModel::BColumn).data().toString(), QStringLiteral("32"));
        QCOMPARE(model.index(1, ComponentDiffModel::AColumn).data().toString(),
                 QStringLiteral("GraphModule() …"));
        QCOMPARE(model.index(1, ComponentDiffModel::AColumn).data(Qt::ToolTipRole).toString(), gmA);
        QCOMPARE(model.index(1, ComponentDiffModel::ComponentColumn).data().toString(), QStringLiteral("gm"));
        model.setSideNames(QStringLiteral("basic_cold"), QStringLiteral("basic_config"));
        QCOMPARE(model.headerData(ComponentDiffModel::AColumn, Qt::Horizontal).toString(),
                 QStringLiteral("basic_cold"));
        QCOMPARE(model.headerData(ComponentDiffModel::BColumn, Qt::Horizontal).toString(),
                 QStringLiteral("basic_config"));
        model.setRows({});
        QCOMPARE(model.rowCount(), 0);
    }

    void abbreviatesLongValues()
    {
        ComponentDiffModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QString longValue(500, QLatin1Char('x'));
        model.setRows({{QStringLiteral("c"), QStringLiteral("c"), QStringLiteral("only in A"),
                        longValue, QString()}});
        const QString shown = model.index(0, ComponentDiffModel::AColumn).data().toString();
        QCOMPARE(shown.size(), qsizetype(201)); // 200 characters and an ellipsis
        QVERIFY(shown.endsWith(QStringLiteral("…")));
    }

    void convertsComponentChanges()
    {
        ComponentDiffModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        using fxs::explain::ChangeKind;
        fxs::explain::ComponentChange config; // from explain's differ
        config.change = ChangeKind::Changed;
        config.component = "inductor_config[max_fusion_size]";
        config.family = "inductor_config";
        config.a = "64";
        config.b = "32";
        fxs::explain::ComponentChange input; // from the cache's differ: a field differs
        input.change = ChangeKind::Changed;
        input.component = "input[0]";
        input.field = "dtype";
        input.a = "float32";
        input.b = "float16";
        fxs::explain::ComponentChange removed;
        removed.change = ChangeKind::OnlyA;
        removed.component = "region";
        removed.a = "v0 = sin(in0)";
        fxs::explain::ComponentChange added;
        added.change = ChangeKind::OnlyB;
        added.component = "c";
        added.b = "3";
        model.setChanges({config, input, removed, added});
        QCOMPARE(model.rowCount(), 4);
        const auto& rows = model.rows();
        QCOMPARE(rows[0].family, QStringLiteral("inductor_config"));
        QCOMPARE(rows[0].change, QStringLiteral("changed"));
        QCOMPARE(rows[1].component, QStringLiteral("input[0]"));
        QCOMPARE(rows[1].family, QStringLiteral("dtype"));
        QCOMPARE(rows[1].a, QStringLiteral("float32"));
        QCOMPARE(rows[1].b, QStringLiteral("float16"));
        QCOMPARE(rows[2].change, QStringLiteral("only in A"));
        QCOMPARE(rows[2].family, QString());
        QCOMPARE(rows[2].b, QString());
        QCOMPARE(rows[3].change, QStringLiteral("only in B"));
        QCOMPARE(rows[3].b, QStringLiteral("3"));
    }
};

QTEST_MAIN(TestComponentDiffModel)
#include "tst_component_diff_model.moc"

FXSCOPE_TEST_END
