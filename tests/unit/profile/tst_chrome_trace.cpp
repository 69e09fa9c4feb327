// Chrome trace writer and validator: written traces validate; malformed ones are refused with
// the reason.
#include "core/trace_profile/chrome_trace.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs::profile;

class TestChromeTrace : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void writtenTraceValidates()
    {
        std::vector<TraceEvent> events{
            {"outer", "c", 100.0, 50.0, 1, 2, {{"k", "v"}}},
            {"inner", "c", 110.0, 10.0, 1, 2, {}},
            {"other_thread", "c", 105.0, 100.0, 1, 3, {}},
        };
        const std::string json = writeChromeTrace(events);
        QVERIFY(json.find("\"ph\": \"X\"") != std::string::npos);
        QVERIFY(json.find("\"traceEvents\"") != std::string::npos);
        const auto status = validateChromeTrace(json);
        QVERIFY2(status.ok(), status.ok() ? "" : status.error().toString().c_str());
    }

    void refusesMalformed_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("reason");
        QTest::newRow("not json") << "{oops" << "not JSON";
        QTest::newRow("no events") << R"({"foo": 1})" << "traceEvents";
        QTest::newRow("no ts") << R"([{"name":"a","ph":"X","pid":0,"tid":0,"dur":1}])" << "ts";
        QTest::newRow("unbalanced") << R"([{"name":"a","ph":"B","pid":0,"tid":0,"ts":1}])"
                                    << "never ended";
        QTest::newRow("wrong end")
            << R"([{"name":"a","ph":"B","pid":0,"tid":0,"ts":1},{"name":"b","ph":"E","pid":0,"tid":0,"ts":2}])"
            << "innermost";
        QTest::newRow("overlap")
            << R"([{"name":"a","ph":"X","pid":0,"tid":0,"ts":0,"dur":10},{"name":"b","ph":"X","pid":0,"tid":0,"ts":5,"dur":10}])"
            << "overlap";
        QTest::newRow("negative dur")
            << R"([{"name":"a","ph":"X","pid":0,"tid":0,"ts":0,"dur":-1}])" << "dur";
        // A pid or tid that is not an integer is refused, not thrown on.
        QTest::newRow("string pid")
            << R"([{"name":"a","ph":"X","pid":"p","tid":0,"ts":0,"dur":1}])" << "pid or tid";
        QTest::newRow("fractional tid")
            << R"([{"name":"a","ph":"X","pid":0,"tid":0.5,"ts":0,"dur":1}])" << "pid or tid";
    }

    void refusesMalformed()
    {
        QFETCH(QString, json);
        QFETCH(QString, reason);
        const auto status = validateChromeTrace(json.toStdString());
        QVERIFY(!status.ok());
        QVERIFY2(status.error().toString().find(reason.toStdString()) != std::string::npos,
                 status.error().toString().c_str());
    }

    void acceptsBalancedBeginEnd()
    {
        const auto status = validateChromeTrace(
            R"({"traceEvents":[{"name":"a","ph":"B","pid":0,"tid":0,"ts":1},)"
            R"({"name":"b","ph":"B","pid":0,"tid":0,"ts":2},{"name":"b","ph":"E","pid":0,"tid":0,"ts":3},)"
            R"({"name":"a","ph":"E","pid":0,"tid":0,"ts":4}]})");
        QVERIFY(status.ok());
    }
};

QTEST_GUILESS_MAIN(TestChromeTrace)
#include "tst_chrome_trace.moc"

FXSCOPE_TEST_END
