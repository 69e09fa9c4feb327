// Component differ: pairing by name (repeated names kept apart), changed/only-in-A/only-in-B,
// the ranking of causes, and how values are shown (TensorMetadata fields, pickles by digest).
#include "core/explain/component_differ.h"
#include "core/explain/value_summary.h"
#include "core/util/strings.h"
#include "tests/test_file.h"
#include "tests/unit/explain/lookup_factory.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::explain;
using fxs::test::comp;
using fxs::test::component;

namespace {

const std::string kArrow = " \u2192 ";

std::vector<std::string> names(const ComponentDiff& d)
{
    std::vector<std::string> out;
    for (const auto& c : d.changes) {
        out.push_back(c.component);
    }
    return out;
}

std::string tensorMeta(const std::string& dtype, const std::string& shape,
                       const std::string& stride)
{
    return "TensorMetadata(dtype=torch." + dtype + ", shape=torch.Size([" + shape +
           "]), stride=(" + stride + "), device=device(type='cuda', index=0), "
           "layout=torch.strided, memory_format=torch.contiguous_format, storage_offset=0, "
           "requires_grad=False, is_coalesced=None)";
}

} // namespace

class TestComponentDiffer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void identicalLookupsHaveNoChanges()
    {
        const auto a = test::fxMiss("fa", test::typicalComponents(10));
        const auto d = diffLookups(a, a);
        QVERIFY(d.empty());
        QCOMPARE(d.common, std::size_t(14));
        QCOMPARE(d.componentsA, std::size_t(14));
        QCOMPARE(d.componentsB, std::size_t(14));
        QVERIFY(!d.onlyEnvironment());
    }

    void oneChangedConfigValue()
    {
        const auto a = test::fxMiss("fa", test::typicalComponents(10, 64));
        const auto b = test::fxMiss("fb", test::typicalComponents(10, 32));
        const auto d = diffLookups(a, b);
        QCOMPARE(d.changes.size(), std::size_t(1));
        const auto& c = d.changes[0];
        QCOMPARE(c.change, ChangeKind::Changed);
        QCOMPARE(c.component, std::string("inductor_config[max_fusion_size]"));
        QCOMPARE(c.family, std::string("inductor_config"));
        QCOMPARE(c.a, std::string("64"));
        QCOMPARE(c.b, std::string("32"));
        QCOMPARE(c.summary, "64" + kArrow + "32");
        QCOMPARE(c.indexA, 0);
        QCOMPARE(c.indexB, 0);
        QVERIFY(!c.environment);
        QCOMPARE(d.common, std::size_t(13));
        QCOMPARE(changeKindName(c.change), std::string_view("changed"));
    }

    void ranksUserCausesBeforeEnvironment()
    {
        // Components listed in the opposite order of their rank; every one changes.
        std::vector<std::string> order{"system_info[hash]", "torch_version", "cache_key_tag",
                                       "unknown_family", "grad_enabled", "aot_config", "gm",
                                       "fx_kwargs[is_backward]", "example_inputs[0]",
                                       "inductor_config[max_fusion_size]"};
        std::vector<model::KeyComponent> ca;
        std::vector<model::KeyComponent> cb;
        for (const auto& n : order) {
            ca.push_back(comp(n, "1"));
            cb.push_back(comp(n, "2"));
        }
        const auto d = diffLookups(test::fxMiss("fa", ca), test::fxMiss("fb", cb));
        const std::vector<std::string> expected{
            "inductor_config[max_fusion_size]", "example_inputs[0]", "fx_kwargs[is_backward]",
            "gm", "aot_config", "grad_enabled", "unknown_family", "cache_key_tag",
            "torch_version", "system_info[hash]"};
        QCOMPARE(names(d), expected);
        QVERIFY(!d.onlyEnvironment());
        QVERIFY(d.changes[7].environment);
        QVERIFY(!d.changes[6].environment);
        QVERIFY(familyPriority("inductor_config") < familyPriority("example_inputs"));
        QVERIFY(isEnvironmentFamily("torch_version"));
        QVERIFY(!isEnvironmentFamily("gm"));
    }

    void environmentOnlyChange()
    {
        auto ca = test::typicalComponents(5);
        auto cb = ca;
        QCOMPARE(cb[7].name, std::string("torch_version"));
        cb[7] = component("torch_version", std::string("\x80\x02}q\x01", 5), "zzzzzzzzzzzzz");
        cb[7].readable = false;
        const auto d = diffLookups(test::fxMiss("fa", ca), test::fxMiss("fb", cb));
        QCOMPARE(d.changes.size(), std::size_t(1));
        QVERIFY(d.onlyEnvironment());
        QCOMPARE(d.changes[0].component, std::string("torch_version"));
        // Unreadable values: by digest, abbreviated.
        QCOMPARE(d.changes[0].b, std::string("<pickle, digest zzzzzzzz\u2026>"));
        QVERIFY(startsWith(d.changes[0].a, "<pickle, digest "));
        QVERIFY(d.changes[0].summary.find(kArrow) != std::string::npos);
    }

    void changedBeforeOnlyBBeforeOnlyAWithinAFamily()
    {
        const std::vector<model::KeyComponent> ca{comp("fx_kwargs[a]", "1"),
                                                  comp("fx_kwargs[gone]", "x"),
                                                  comp("fx_kwargs[c]", "3")};
        const std::vector<model::KeyComponent> cb{comp("fx_kwargs[new]", "y"),
                                                  comp("fx_kwargs[a]", "1"),
                                                  comp("fx_kwargs[c]", "4")};
        const auto d = diffLookups(test::fxMiss("fa", ca), test::fxMiss("fb", cb));
        QCOMPARE(names(d), (std::vector<std::string>{"fx_kwargs[c]", "fx_kwargs[new]",
                                                     "fx_kwargs[gone]"}));
        QCOMPARE(d.changes[0].change, ChangeKind::Changed);
        QCOMPARE(d.changes[1].change, ChangeKind::OnlyB);
        QCOMPARE(d.changes[1].b, std::string("y"));
        QVERIFY(d.changes[1].a.empty());
        QVERIFY(d.changes[1].digestA.empty());
        QCOMPARE(d.changes[1].indexA, -1);
        QCOMPARE(d.changes[1].indexB, 0);
        QCOMPARE(d.changes[1].summary, std::string("only in B: y"));
        QCOMPARE(d.changes[2].change, ChangeKind::OnlyA);
        QCOMPARE(d.changes[2].summary, std::string("only in A: x"));
        QCOMPARE(d.changes[2].indexA, 1);
        QCOMPARE(d.common, std::size_t(1));
    }

    void repeatedNamesPairInOrder()
    {
        const std::vector<model::KeyComponent> ca{comp("passes", "p1"), comp("passes", "p2")};
        const std::vector<model::KeyComponent> cb{comp("passes", "p1"), comp("passes", "p3"),
                                                  comp("passes", "p4")};
        const auto d = diffLookups(test::fxMiss("fa", ca), test::fxMiss("fb", cb));
        QCOMPARE(d.changes.size(), std::size_t(2));
        QCOMPARE(d.changes[0].change, ChangeKind::Changed);
        QCOMPARE(d.changes[0].a, std::string("p2"));
        QCOMPARE(d.changes[0].b, std::string("p3"));
        QCOMPARE(d.changes[1].change, ChangeKind::OnlyB);
        QCOMPARE(d.changes[1].b, std::string("p4"));
        QCOMPARE(d.common, std::size_t(1));
    }

    void lookupWithoutComponents()
    {
        const auto full = test::fxMiss("fa", test::typicalComponents(3));
        const auto empty = test::fxMiss("fb", {});
        const auto d = diffLookups(full, empty);
        QCOMPARE(d.changes.size(), std::size_t(7));
        for (const auto& c : d.changes) {
            QCOMPARE(c.change, ChangeKind::OnlyA);
        }
        QCOMPARE(d.common, std::size_t(0));
        const auto e = diffLookups(empty, empty);
        QVERIFY(e.empty());
    }

    void tensorMetadataChangesFieldByField()
    {
        const auto a = comp("example_inputs[0]", tensorMeta("float32", "64, 64", "64, 1"));
        const auto b = comp("example_inputs[0]", tensorMeta("float32", "128, 64", "64, 1"));
        const auto d = diffLookups(test::fxMiss("fa", {a}), test::fxMiss("fb", {b}));
        QCOMPARE(d.changes.size(), std::size_t(1));
        QCOMPARE(d.changes[0].summary, "shape [64, 64]" + kArrow + "[128, 64]");

        const auto c = comp("example_inputs[0]", tensorMeta("float16", "64, 64", "1, 64"));
        QCOMPARE(describeChange(a, c),
                 "dtype float32" + kArrow + "float16, stride (64, 1)" + kArrow + "(1, 64)");
        auto cpu = a;
        cpu.value.replace(cpu.value.find("device(type='cuda', index=0)"), 28, "device(type='cpu')");
        QCOMPARE(describeChange(a, cpu), "device cuda:0" + kArrow + "cpu");
        const auto fields = parseTensorMetadata(a.value);
        QCOMPARE(fields.size(), std::size_t(9));
        QCOMPARE(fields[2].first, std::string("stride"));
        QCOMPARE(fields[2].second, std::string("(64, 1)"));
        QCOMPARE(fields[3].second, std::string("device(type='cuda', index=0)"));
        QVERIFY(parseTensorMetadata("64").empty());
    }

    void sameTextDifferentDigest()
    {
        const auto a = component("torch_version", "<binary>", "aaaaaaaaaaaa");
        const auto b = component("torch_version", "<binary>", "bbbbbbbbbbbb");
        const auto d = diffLookups(test::fxMiss("fa", {a}), test::fxMiss("fb", {b}));
        QCOMPARE(d.changes.size(), std::size_t(1));
        QCOMPARE(d.changes[0].summary,
                 "same text, digest aaaaaaaa\u2026" + kArrow + "bbbbbbbb\u2026");
    }

    void withoutDigestsValuesAreCompared()
    {
        const auto a = component("inductor_config[x]", "1", "");
        const auto b = component("inductor_config[x]", "2", "");
        const auto same = component("inductor_config[x]", "1", "");
        QCOMPARE(diffLookups(test::fxMiss("f", {a}), test::fxMiss("g", {b})).changes.size(),
                 std::size_t(1));
        QVERIFY(diffLookups(test::fxMiss("f", {a}), test::fxMiss("g", {same})).empty());
    }

    void displayValues()
    {
        QCOMPARE(displayValue(comp("gm", "GraphModule()\n\n\n\ndef forward(self, x):\n    "
                                         "return (x,)")).substr(0, 24),
                 std::string("<graph code, 6 lines, di"));
        const auto multi = comp("aot_config", "first line\nsecond");
        QCOMPARE(displayValue(multi), std::string("first line \u2026 (2 lines)"));
        const std::string longValue(400, 'x');
        QCOMPARE(displayValue(comp("inductor_config[y]", longValue)).size(),
                 kMaxValueChars + 3);
        auto pickle = component("autograd_config", std::string("\x80\x02}q\x00(X", 7),
                                "iwr4gnovn2nyierjfamq3yffnsu2qczctoh4oww6s524v5u5k7l");
        QVERIFY(isUnreadableValue(pickle));
        QCOMPARE(displayValue(pickle), std::string("<pickle, digest iwr4gnov\u2026>"));
        auto binary = component("torch_version", std::string("6\x01\x12" "7", 4), "bhbxfhox");
        QCOMPARE(displayValue(binary), std::string("<binary, digest bhbxfhox>"));
        auto badUtf8 = component("x", std::string("\xc3\x28", 2), "d");
        QVERIFY(isUnreadableValue(badUtf8));
        QVERIFY(!isUnreadableValue(comp("x", "caf\xc3\xa9")));
        QCOMPARE(abbreviateDigest("abc"), std::string("abc"));
    }
};

QTEST_GUILESS_MAIN(TestComponentDiffer)
#include "tst_component_differ.moc"

FXSCOPE_TEST_END
