// README's table of reasons against core/cache/reason.h: every numbered reason has its row (code,
// name, kind and meaning as the code says them), in number order, and the table has no row the
// code does not know. Reasons are append only, so a new one without its README row fails here.
#include "core/cache/reason.h"
#include "tests/test_file.h"

#include <QtTest>

#include <fstream>
#include <map>
#include <regex>
#include <string>

FXSCOPE_TEST_BEGIN

using namespace fxs::cache;

namespace {

struct Row {
    std::string name, kind, meaning;
    int line = 0;
};

// The rows of the table that follows the "**Reasons**" paragraph: "| 3 | `miss_cold` | miss | ... |".
std::map<int, Row> readmeRows(QString* error)
{
    std::ifstream in(FXSCOPE_TEST_DATA "/../../README.md");
    if (!in) {
        *error = "README.md not found next to tests/";
        return {};
    }
    static const std::regex row(R"(^\| (\d+) \| `([a-z_0-9]+)` \| ([a-z]+) \| (.*) \|$)");
    std::map<int, Row> rows;
    std::string text;
    int lineNo = 0;
    bool inSection = false;
    while (std::getline(in, text)) {
        ++lineNo;
        if (text.rfind("**Reasons**", 0) == 0)
            inSection = true;
        if (!inSection)
            continue;
        std::smatch m;
        if (std::regex_match(text, m, row)) {
            const int code = std::stoi(m[1]);
            if (rows.count(code))
                *error = QString("README.md:%1: code %2 listed twice").arg(lineNo).arg(code);
            rows[code] = Row{m[2], m[3], m[4], lineNo};
        } else if (!rows.empty() && text.rfind("|", 0) != 0) {
            break; // the table ended
        }
    }
    return rows;
}

const char* kindName(ReasonCategory c)
{
    switch (c) {
    case ReasonCategory::Hit: return "hit";
    case ReasonCategory::Miss: return "miss";
    case ReasonCategory::Bypass: return "bypass";
    case ReasonCategory::Fallback: return "fallback";
    case ReasonCategory::None: break;
    }
    return "none";
}

} // namespace

class TestReasonTable : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyReasonHasItsReadmeRow()
    {
        QString error;
        const auto rows = readmeRows(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(!rows.empty(), "README.md has no table of reasons after **Reasons**");
        for (const ReasonInfo& info : allReasons()) {
            const int code = static_cast<int>(info.reason);
            const auto it = rows.find(code);
            QVERIFY2(it != rows.end(),
                     qPrintable(QString("README.md: no row for reason %1 (%2)")
                                    .arg(code)
                                    .arg(QString::fromUtf8(info.name.data(), int(info.name.size())))));
            const Row& r = it->second;
            const QString where = QString("README.md:%1: ").arg(r.line);
            QVERIFY2(r.name == info.name, qPrintable(where + "name " + QString::fromStdString(r.name)));
            QVERIFY2(r.kind == kindName(info.category),
                     qPrintable(where + "kind " + QString::fromStdString(r.kind)));
            QVERIFY2(r.meaning == info.description,
                     qPrintable(where + "meaning differs from reason.cpp's description: "
                                + QString::fromStdString(r.meaning)));
        }
    }

    void theTableListsNoUnknownCodeAndKeepsNumberOrder()
    {
        QString error;
        const auto rows = readmeRows(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(rows.size(), allReasons().size());
        int previousLine = 0;
        for (const auto& [code, row] : rows) {
            QVERIFY2(reasonFromCode(code) != Reason::None,
                     qPrintable(QString("README.md:%1: code %2 is not a reason").arg(row.line).arg(code)));
            QVERIFY2(row.line > previousLine, "rows out of number order");
            previousLine = row.line;
        }
    }

    void codesAreDenseFromOne()
    {
        // Append only: numbers 1..n with no gaps, so a removed reason shows up as a gap.
        int expected = 1;
        for (const ReasonInfo& info : allReasons())
            QCOMPARE(static_cast<int>(info.reason), expected++);
    }
};

QTEST_APPLESS_MAIN(TestReasonTable)
#include "tst_reason_table.moc"

FXSCOPE_TEST_END
