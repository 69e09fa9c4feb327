// ComponentDiffModel under QAbstractItemModelTester: rows, first-line display of multi-line
// values, full values as tooltips, side names in the header.
#include "views/models/component_diff_model.h"

#include <QAbstractItemModelTester>
#include <QtTest>

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
};

QTEST_MAIN(TestComponentDiffModel)
#include "tst_component_diff_model.moc"
