// fxscope-cli --version [--json] end to end: each library with the version this test reads from
// the same headers and libraries itself (SQLite's sqlite3_libversion, Graphviz's gvcVersion,
// LibTorch's TORCH_VERSION), the CUDA driver only where one loads, and --json alone refused.
#include "core/cuda/device.h"
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QtTest>

#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <torch/version.h>

#ifdef FXSCOPE_HAVE_GRAPHVIZ
#include <graphviz/graphviz_version.h>
#include <gvc.h>
#endif

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::runCli;

// The component named `name` in the JSON's list, or null.
json component(const json& j, const std::string& name)
{
    for (const auto& c : j.at("components")) {
        if (c.at("name") == name) {
            return c;
        }
    }
    return nullptr;
}

} // namespace

class TestCliVersion : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void jsonListsEachLibraryWithItsVersion()
    {
        const CliRun r = runCli({QStringLiteral("--version"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("fxscope").get<std::string>(), std::string(FXSCOPE_VERSION));

        const json sqlite = component(j, "SQLite");
        QVERIFY(!sqlite.is_null());
        QCOMPARE(sqlite.at("built").get<std::string>(), std::string(SQLITE_VERSION));
        QCOMPARE(sqlite.at("running").get<std::string>(), std::string(sqlite3_libversion()));

        const json torch = component(j, "LibTorch");
        QVERIFY(!torch.is_null());
        QCOMPARE(torch.at("built").get<std::string>(), std::string(TORCH_VERSION));

#ifdef FXSCOPE_HAVE_GRAPHVIZ
        const json graphviz = component(j, "Graphviz");
        QVERIFY(!graphviz.is_null());
        QCOMPARE(graphviz.at("built").get<std::string>(), std::string(PACKAGE_VERSION));
        GVC_t* gvc = gvContext();
        QCOMPARE(graphviz.at("running").get<std::string>(), std::string(gvcVersion(gvc)));
        gvFreeContext(gvc);
#endif
        // The driver is listed exactly where it loads (no GPU here: left out).
        const auto driver = fxs::cuda::driverVersion();
        const json listed = component(j, "CUDA driver");
        QCOMPARE(listed.is_null(), !static_cast<bool>(driver));
        if (driver) {
            QCOMPARE(listed.at("running").get<std::string>(), *driver);
        }
    }

    void textHasOneLinePerLibrary()
    {
        const CliRun r = runCli({QStringLiteral("--version")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QStringList lines = QString::fromUtf8(r.out).trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.value(0), QStringLiteral("fxscope-cli " FXSCOPE_VERSION));
        QVERIFY2(lines.contains(QStringLiteral("SQLite ") + QLatin1String(sqlite3_libversion())),
                 r.out.constData());
        QVERIFY2(lines.contains(QStringLiteral("LibTorch " TORCH_VERSION)), r.out.constData());
    }

    void jsonWithoutVersionIsAUsageError()
    {
        const CliRun r = runCli({QStringLiteral("--json")});
        QVERIFY(r.exitCode != 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY(r.err.contains("subcommand"));
    }
};

QTEST_GUILESS_MAIN(TestCliVersion)
#include "tst_cli_version.moc"

FXSCOPE_TEST_END
