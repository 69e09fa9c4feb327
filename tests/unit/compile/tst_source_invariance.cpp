// The cache key invariant as a property: everything that reaches a generated source is in the
// region's key. The canonical region drops node names, so renaming every node and the region id
// of real fixture graphs (random Unicode, control characters, quotes, backslashes, "*/", "??/",
// newlines and the payloads of tests/data/injection/names.txt) must leave the C++ and the CUDA
// sources byte-identical (and the key's region and schedule texts equal), and no name or id may
// appear in a source. Seeded: a failure names the seed and the iteration.
#include "core/cache/region_canon.h"
#include "core/codegen/cpp_printer.h"
#include "core/codegen/cuda_printer.h"
#include "core/codegen/lowering.h"
#include "core/codegen/source_text.h"
#include "core/compile/region_schedule.h"
#include "core/graph/graph_builder.h"
#include "core/io/graph_code_parser.h"
#include "core/io/pt2_reader.h"
#include "core/partition/auto_proposal.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"
#include "tests/unit/codegen/injection_names.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

constexpr std::uint64_t kSeed = 0x5ecc0de31;
constexpr int kIterations = 40; // renamings per graph (each prints every region twice)

using fxs::testing::injectionNames;

void appendUtf8(std::string& s, std::uint32_t cp)
{
    if (cp < 0x80) {
        s += char(cp);
    } else if (cp < 0x800) {
        s += char(0xc0 | (cp >> 6));
        s += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        s += char(0xe0 | (cp >> 12));
        s += char(0x80 | ((cp >> 6) & 0x3f));
        s += char(0x80 | (cp & 0x3f));
    } else {
        s += char(0xf0 | (cp >> 18));
        s += char(0x80 | ((cp >> 12) & 0x3f));
        s += char(0x80 | ((cp >> 6) & 0x3f));
        s += char(0x80 | (cp & 0x3f));
    }
}

// A hostile name: a payload, random pieces (control bytes, quotes, backslashes, comment ends,
// trigraphs, newlines, any code point, raw invalid UTF-8) and a unique tail so names stay unique
// and long enough that finding one in a source cannot be chance.
class NameMaker {
public:
    NameMaker(std::uint64_t seed, std::vector<std::string> payloads)
        : m_rng(seed), m_payloads(std::move(payloads))
    {
    }

    std::string make(std::size_t index)
    {
        static const char* const kPieces[] = {"\n", "\r", "*/", "/*", "?\?/", "\\", "\\\n", "\"",
                                              "'", "\t", "#", "//", "`", "$", "{0}"};
        std::string s;
        if (!m_payloads.empty()) {
            s += m_payloads[pick(m_payloads.size())];
        }
        const std::size_t n = 1 + pick(6);
        for (std::size_t i = 0; i < n; ++i) {
            switch (pick(4)) {
            case 0: s += kPieces[pick(std::size(kPieces))]; break;
            case 1: s += char(pick(32)); break;                 // a control byte, NUL included
            case 2: s += char(0x80 + pick(128)); break;         // a stray UTF-8 byte
            default: {
                std::uint32_t cp = std::uint32_t(1 + pick(0x10fffe));
                appendUtf8(s, cp >= 0xd800 && cp < 0xe000 ? 0xfffd : cp);
            }
            }
        }
        return s + "~Q" + std::to_string(index) + "~" + std::to_string(m_rng());
    }

private:
    std::size_t pick(std::size_t n) { return std::size_t(m_rng() % n); }

    std::mt19937_64 m_rng;
    std::vector<std::string> m_payloads;
};

// The graph with every node renamed (ids, targets, arguments, meta unchanged).
GraphPtr renamed(const Graph& g, const std::vector<std::string>& names)
{
    GraphBuilder b(g.name());
    for (NodeId id = 0; id < g.size(); ++id) {
        Node n = g.node(id);
        n.name = names[id];
        n.inputs.clear();
        n.users.clear();
        b.add(std::move(n));
    }
    auto built = b.build();
    return built ? *built : nullptr;
}

// The buffer a node's printed meta describes (contiguous strides when none are printed).
compile::detail::KernelInput specFromMeta(const Graph& g, NodeId id)
{
    auto spec = codegen::bufferSpecFromMeta(g.node(id));
    if (!spec) {
        return {std::nullopt, {codegen::RefusalKind::Dtype, "no concrete meta"}};
    }
    return {*spec, {}};
}

// What a region becomes: the key's region and schedule texts and both sources.
struct Printed {
    std::string canon;
    std::string schedule;
    std::string cpp;
    std::string cuda;
};

std::optional<Printed> print(const Graph& g, const std::string& id,
                             const std::vector<NodeId>& nodes)
{
    const auto sig = cache::canonicalizeRegion(g, nodes);
    compile::detail::ScheduleRequest sr{&g, id, sig.order, sig.inputs, sig.outputs,
                                        [&](NodeId n) { return specFromMeta(g, n); }};
    auto s = compile::detail::scheduleRegion(sr);
    if (!s || s->programs.empty()) {
        return std::nullopt;
    }
    return Printed{sig.text, compile::detail::scheduleText(*s, sig.order),
                   codegen::printSchedule(s->programs),
                   codegen::printCudaSchedule(s->programs).source};
}

GraphPtr loadFixture(const std::string& file)
{
    const std::string path = FXSCOPE_TEST_DATA "/fixtures/" + file;
    if (file.ends_with(".pt2")) {
        auto r = io::readPt2(path);
        return r ? r->graph : nullptr;
    }
    auto text = readFile(path);
    return text ? io::parseGraphCode(*text, path).graph : nullptr;
}

// The first place two texts differ, for a failure message.
std::string firstDifference(const std::string& a, const std::string& b)
{
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) {
        ++i;
    }
    const std::size_t from = i > 60 ? i - 60 : 0;
    return "at byte " + std::to_string(i) + ":\n--- original\n" + a.substr(from, 160) +
           "\n--- renamed\n" + b.substr(from, 160);
}

} // namespace

class TestSourceInvariance : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void payloadsAreRead()
    {
        const auto names = injectionNames();
        QVERIFY(names.size() >= 40);
        QVERIFY(names[0].find("__attribute__((constructor))") != std::string::npos);
    }

    void renamingLeavesSourcesIdentical_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {"graphs/resnet18_infer.txt", "graphs/resnet18_train_bw.txt",
                              "graphs/gpt2_annotated_fw.txt", "graphs/gpt2_annotated_bw.txt",
                              "graphs/gpt2_export.txt", "export/small_mlp_export_graph.txt",
                              "export/small_mlp.pt2"}) {
            QTest::newRow(f) << QString(f);
        }
    }

    void renamingLeavesSourcesIdentical()
    {
        QFETCH(QString, file);
        const GraphPtr g = loadFixture(file.toStdString());
        QVERIFY(g);
        const auto regions = partition::proposeRegions(*g).regions;
        std::vector<std::optional<Printed>> before;
        int printed = 0;
        for (const auto& r : regions) {
            before.push_back(print(*g, r.id, r.nodes));
            printed += before.back() ? 1 : 0;
        }
        QVERIFY2(printed > 0, "no region of the fixture is generated");
        NameMaker names(kSeed ^ std::hash<std::string>{}(file.toStdString()), injectionNames());
        for (int it = 0; it < kIterations; ++it) {
            std::vector<std::string> fresh;
            for (NodeId id = 0; id < g->size(); ++id) {
                fresh.push_back(names.make(id));
            }
            const GraphPtr h = renamed(*g, fresh);
            QVERIFY2(h, "the renamed graph does not build");
            for (std::size_t r = 0; r < regions.size(); ++r) {
                const std::string id = names.make(g->size() + r);
                const auto after = print(*h, id, regions[r].nodes);
                const std::string where = "seed " + std::to_string(kSeed) + ", iteration " +
                                          std::to_string(it) + ", region " + regions[r].id;
                QVERIFY2(before[r].has_value() == after.has_value(), where.c_str());
                if (!after) {
                    continue;
                }
                QVERIFY2(before[r]->canon == after->canon, where.c_str());
                QVERIFY2(before[r]->schedule == after->schedule, where.c_str());
                QVERIFY2(before[r]->cpp == after->cpp,
                         (where + " (C++) " + firstDifference(before[r]->cpp, after->cpp)).c_str());
                QVERIFY2(before[r]->cuda == after->cuda,
                         (where + " (CUDA) " + firstDifference(before[r]->cuda, after->cuda))
                             .c_str());
                checkNoInputText(*after, id, *h, regions[r], where);
            }
        }
    }

    void constantsPrintAsValidLiterals()
    {
        // Crafted constants: NaN, infinities, values beyond float's range, subnormals, -0, and
        // the int64 edges (INT64_MIN's digits alone do not fit an integer literal).
        const std::vector<double> reals = {std::nan(""), -std::nan(""), HUGE_VAL, -HUGE_VAL,
                                           1e300, -1e300, 3.4028235e38, 4e38, 1e-320, -0.0};
        const std::vector<std::int64_t> ints = {std::numeric_limits<std::int64_t>::min(),
                                                std::numeric_limits<std::int64_t>::max(), -1};
        for (int k = 0; k < int(reals.size() + ints.size()); ++k) {
            const bool real = k < int(reals.size());
            GraphBuilder b;
            TensorMeta m;
            m.dtype = real ? DType::Float32 : DType::Int64;
            m.sizes = {SymInt::of(4)};
            const NodeId x = b.placeholder("x", m);
            const Argument c = real ? Argument::real(reals[std::size_t(k)])
                                    : Argument::integer(ints[std::size_t(k) - reals.size()]);
            const NodeId add = b.call("add", "aten::add.Tensor", {Argument::ref(x), c}, {}, m);
            b.output({Argument::ref(add)});
            auto g = b.build();
            QVERIFY(g);
            const auto p = print(**g, "r0", {add});
            QVERIFY2(p, std::to_string(k).c_str());
            for (const std::string* src : {&p->cpp, &p->cuda}) {
                const auto problem = codegen::source::sourceProblem(*src);
                QVERIFY2(!problem, problem ? problem->c_str() : "");
                // No literal out of its type's range, no NaN or infinity spelt as digits.
                for (const char* bad : {"9223372036854775808", "e+300", "(nan", "(-nan",
                                        "(inf", "(-inf"}) {
                    QVERIFY2(src->find(bad) == std::string::npos, (std::to_string(k) + ": " +
                                                                   bad).c_str());
                }
            }
            if (!real && ints[std::size_t(k) - reals.size()] < -1) {
                QVERIFY(p->cpp.find("(-INT64_C(9223372036854775807) - 1)") != std::string::npos);
            }
        }
    }

private:
    // No name of a node the region reads or computes, and not the region id, is in a source.
    void checkNoInputText(const Printed& p, const std::string& id, const Graph& g,
                          const partition::Region& r, const std::string& where)
    {
        std::vector<std::string> texts{id};
        for (NodeId n : r.nodes) {
            texts.push_back(g.node(n).name);
        }
        for (NodeId n : r.inputs) {
            texts.push_back(g.node(n).name);
        }
        for (const std::string* src : {&p.cpp, &p.cuda}) {
            const auto problem = codegen::source::sourceProblem(*src);
            QVERIFY2(!problem, (where + ": " + problem.value_or("")).c_str());
            for (const auto& t : texts) {
                QVERIFY2(src->find(t) == std::string::npos,
                         (where + ": an input name is in the source").c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestSourceInvariance)
#include "tst_source_invariance.moc"

FXSCOPE_TEST_END
