// Input text never becomes generated code, checked by running the compiled artifact for real: a
// copy of the small MLP .pt2 whose gelu node is named "gelu\n<a constructor that creates a
// marker file>\n//" is compiled by `fxscope-cli compile --auto` (fresh cache, the kernels built
// and dlopen'ed); the marker must not appear. The benign archive compiled afterwards with the
// same cache gets the same key (names are not in it, and now not in the source either), is
// served that entry, and its dumped source holds nothing of the crafted name; the same through
// FXSCOPE_DUMP_CODEGEN. On bf1ff6c the first compile created the marker. A project's region id
// "../../escaped" cannot take --dump out of its directory.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"
#include "tests/unit/torchscript/nested_code_archive.h"

#include <nlohmann/json.hpp>

#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using json = nlohmann::json;

namespace {

const char* const kMlp = FXSCOPE_TEST_DATA "/fixtures/export/small_mlp.pt2";
constexpr const char* kMarkFunction = "fxs_injected";

// Every dumped source file (.cpp, .cu) under dir, concatenated.
QByteArray dumpedSources(const QString& dir, int& count)
{
    QByteArray all;
    count = 0;
    QDirIterator it(dir, {"*.cpp", "*.cu"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (f.open(QIODevice::ReadOnly)) {
            all += f.readAll();
            ++count;
        }
    }
    return all;
}

} // namespace

class TestCliInjection : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString marker() const { return m_dir.path() + "/marker"; }

    // The crafted name: a newline ends the printer's comment, the constructor runs at dlopen.
    std::string payload() const
    {
        return "gelu\n extern \"C\" int open(const char*, int, ...); "
               "__attribute__((constructor)) static void " +
               std::string(kMarkFunction) + "() { open(\"" + marker().toStdString() +
               "\", 0101, 0644); }\n//";
    }

    QString crafted()
    {
        const QString to = m_dir.path() + "/crafted.pt2";
        const std::string name = fxs::test::writeEditedEntry(
            kMlp, to.toStdString(), "models/model.json", [&](std::string& text) {
                const std::string from = "\"gelu\"";
                const std::string with = json(payload()).dump();
                int n = 0;
                for (auto at = text.find(from); at != std::string::npos;
                     at = text.find(from, at + with.size())) {
                    text.replace(at, from.size(), with);
                    ++n;
                }
                return n > 0;
            });
        return name.empty() ? QString() : to;
    }

    json compile(const QString& graph, const QString& cache, const QStringList& extra = {},
                 const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
    {
        QStringList args{"compile", graph, "--auto", "--device", "cpu", "--cache", cache,
                         "--json", "--repeat", "1"};
        const auto r = fxs::test::runCli(args + extra, env);
        if (r.exitCode != 0) {
            qWarning("%s", r.err.constData());
            return json();
        }
        return json::parse(r.out.toStdString(), nullptr, false);
    }

    // The regions whose kernels were built and run (a hit or a miss, not a fallback).
    static int compiledRegions(const json& j)
    {
        int n = 0;
        for (const auto& r : j["regions"]) {
            n += r["state"] == "miss" || r["state"] == "hit" ? 1 : 0;
        }
        return n;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void craftedNameNeverRunsAndIsNeverServed()
    {
        const QString pt2 = crafted();
        QVERIFY2(!pt2.isEmpty(), "cannot write the crafted archive");
        const QString cache = m_dir.path() + "/cache/cache.db";
        const json first = compile(pt2, cache, {"--dump", m_dir.path() + "/dump_crafted"});
        QVERIFY(first.is_object());
        // The kernels were really built and loaded: otherwise this test would prove nothing.
        QVERIFY2(compiledRegions(first) > 0, first.dump().c_str());
        QVERIFY2(!QFile::exists(marker()), "the crafted node name ran as code");
        int count = 0;
        const QByteArray craftedSrc = dumpedSources(m_dir.path() + "/dump_crafted", count);
        QVERIFY(count > 0);
        QVERIFY(!craftedSrc.contains(kMarkFunction));

        // The benign archive: the same keys (names are in neither key nor source), so it is
        // served the entries the crafted archive stored, and they hold nothing of the name.
        const json second = compile(kMlp, cache, {"--dump", m_dir.path() + "/dump_benign"});
        QVERIFY(second.is_object());
        QCOMPARE(second["regions"].size(), first["regions"].size());
        for (std::size_t i = 0; i < first["regions"].size(); ++i) {
            const json& a = first["regions"][i];
            const json& b = second["regions"][i];
            QCOMPARE(b["key"].get<std::string>(), a["key"].get<std::string>());
            if (a["state"] == "miss") {
                QCOMPARE(b["state"].get<std::string>(), std::string("hit"));
            }
        }
        QVERIFY(!QFile::exists(marker()));
        const QByteArray benignSrc = dumpedSources(m_dir.path() + "/dump_benign", count);
        QVERIFY(count > 0);
        QVERIFY(benignSrc == craftedSrc); // byte-identical under renaming
        QVERIFY(!benignSrc.contains(kMarkFunction));
    }

    void craftedNameThroughTheDumpVariable()
    {
        const QString pt2 = crafted();
        QVERIFY(!pt2.isEmpty());
        const QString dump = m_dir.path() + "/dump_env";
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FXSCOPE_DUMP_CODEGEN", dump);
        const json j = compile(pt2, m_dir.path() + "/cache_env/cache.db", {}, env);
        QVERIFY(j.is_object());
        QVERIFY(compiledRegions(j) > 0);
        QVERIFY(!QFile::exists(marker()));
        int count = 0;
        QVERIFY(!dumpedSources(dump, count).contains(kMarkFunction));
        QVERIFY(count > 0);
        // Every dump file is directly inside the dump directory.
        QDirIterator it(dump, QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
        while (it.hasNext()) {
            QVERIFY2(QFileInfo(it.next()).isFile(), qPrintable(it.filePath()));
        }
    }

    void projectRegionIdCannotLeaveTheDumpDirectory()
    {
        // A project whose region id is "../../escaped": on bf1ff6c the dump of DIR=a/b/dump
        // went to a/escaped.*.
        const QString project = m_dir.path() + "/p.fxscope";
        QCOMPARE(fxs::test::runCli({"partition", kMlp, "--auto", "--save-project", project})
                     .exitCode,
                 0);
        QFile f(project);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray text = f.readAll();
        f.close();
        QVERIFY(text.contains("\"id\": \"r0\""));
        text.replace("\"id\": \"r0\"", "\"id\": \"../../escaped\"");
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text);
        f.close();
        const QString root = m_dir.path() + "/project_dump";
        const QString dump = root + "/a/b/dump";
        const auto r = fxs::test::runCli({"compile", kMlp, "--project", project, "--device", "cpu",
                                          "--cache", m_dir.path() + "/cache_p/cache.db", "--json",
                                          "--repeat", "1", "--dump", dump});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QDirIterator it(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        int files = 0;
        while (it.hasNext()) {
            const QString path = it.next();
            QVERIFY2(QFileInfo(path).absolutePath() == QFileInfo(dump).absoluteFilePath(),
                     qPrintable(path));
            ++files;
        }
        QCOMPARE(files, 4); // schedule, ir, cpp, passes
        QVERIFY(!QFile::exists(root + "/a/escaped.cpp"));
    }
};

QTEST_GUILESS_MAIN(TestCliInjection)
#include "tst_cli_injection.moc"

FXSCOPE_TEST_END
