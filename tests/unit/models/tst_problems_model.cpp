// ProblemsModel under QAbstractItemModelTester: a damaged TORCH_TRACE log's problems with
// file:line, severity and message; roles for file and line.
#include "tests/test_file.h"
#include "views/models/problems_model.h"

#include "tests/unit/models/deferred_run.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;

class TestProblemsModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void listsDiagnosticsWithFileAndLine()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("bad.log")).toStdString();
        {
            std::ofstream out(path);
            // Line 1 is a good envelope, line 2 a glog prefix with broken JSON.
            out << "V1122 01:21:31.065000 434 torch/_dynamo/convert_frame.py:1] "
                   "{\"dynamo_start\": {\"stack\": []}, \"frame_id\": 0, \"frame_compile_id\": 0, "
                   "\"attempt\": 0}\n"
                << "V1122 01:21:31.065000 434 torch/_dynamo/convert_frame.py:1] {\"broken\": \n";
        }
        Workspace ws;
        ProblemsModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        ws.add(io::loadPaths({path}));
        QVERIFY(model.rowCount() >= 1);
        int row = -1;
        for (int r = 0; r < model.rowCount(); ++r) {
            if (model.index(r, 0).data(ProblemsModel::LineRole).toInt() == 2) {
                row = r;
            }
        }
        QVERIFY2(row >= 0, "a problem on line 2");
        QCOMPARE(model.index(row, ProblemsModel::WhereColumn).data().toString(), QStringLiteral("bad.log:2"));
        QCOMPARE(model.index(row, ProblemsModel::SeverityColumn).data().toString(), QStringLiteral("error"));
        QVERIFY(!model.index(row, ProblemsModel::MessageColumn).data().toString().isEmpty());
        QCOMPARE(model.index(row, 0).data(ProblemsModel::FileRole).toString(), QString::fromStdString(path));
        QVERIFY(model.index(row, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("bad.log:2")));
        ws.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    // A graph read on first use reports its problems later: they arrive as inserted rows.
    void deferredParseProblemsAreInsertedRows()
    {
        Diagnostics problems;
        problems.error("late.log", 40, "cannot read statement");
        problems.warning("late.log", 41, "unknown target");
        io::LoadResult result = test::runWithDeferredGraph("late.log", problems);
        Workspace ws;
        ProblemsModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ws.add(std::move(result));
        QCOMPARE(model.rowCount(), 1);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        ws.artifact({0, 0})->deferred->get().graph;
        ws.reportParsed({0, 0});
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(inserted.first().at(1).toInt(), 1);
        QCOMPARE(inserted.first().at(2).toInt(), 2);
        QCOMPARE(reset.size(), 0);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(1, ProblemsModel::WhereColumn).data().toString(),
                 QStringLiteral("late.log:40"));
    }

    void formatsExpectedAndFound()
    {
        Diagnostic d;
        d.file = "/x/y/run.log";
        d.line = 12;
        d.message = "bad envelope";
        d.expected = "a JSON object";
        d.found = "'['";
        QCOMPARE(ProblemsModel::shortWhere(d), QStringLiteral("run.log:12"));
        QCOMPARE(ProblemsModel::fullMessage(d),
                 QStringLiteral("bad envelope (expected a JSON object, found '[')"));
        d.line = 0;
        QCOMPARE(ProblemsModel::shortWhere(d), QStringLiteral("run.log"));
    }
};

QTEST_MAIN(TestProblemsModel)
#include "tst_problems_model.moc"

FXSCOPE_TEST_END
