// View operators made without the dispatcher (RunOptions::directViews) held to LibTorch's own
// kernels: two thousand random cases an operator — tensors with permuted, sliced, expanded
// and empty geometries, arguments in and out of range — where the direct form must give the
// operator's sizes, strides, storage offset, storage, dtype and dispatch keys, decline exactly
// where the operator raises, and raise only where it raises. Then whole graphs: the same
// values with and without direct views, and a run outside InferenceMode leaving views to the
// operator (autograd must know them).
#include "core/exec/direct_views.h"
#include "core/exec/executor.h"
#include "exec_test_util.h"
#include "tests/test_file.h"

#include <QtTest>

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <limits>
#include <random>
#include <string>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::exec;
using namespace fxs::exec::test;
using exec::detail::DirectView;
using exec::detail::Stack;
using graph::Argument;
using graph::NodeId;

namespace {

using Rng = std::mt19937_64;

std::int64_t pick(Rng& rng, std::int64_t lo, std::int64_t hi) // in [lo, hi]
{
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

c10::IValue intList(const std::vector<std::int64_t>& v)
{
    return c10::IValue(c10::List<std::int64_t>(v));
}

// A float tensor of 0-4 dimensions (sizes 0-4) made contiguous, then perhaps transposed,
// narrowed (a storage offset) or expanded (zero strides) by LibTorch's own operators. Half are
// normal tensors (made outside InferenceMode, as a graph's inputs and weights are), half
// inference tensors (made in a run).
at::Tensor randomTensor(Rng& rng)
{
    c10::InferenceMode mode(pick(rng, 0, 1) == 0);
    const std::int64_t rank = pick(rng, 0, 4);
    std::vector<std::int64_t> sizes;
    for (std::int64_t i = 0; i < rank; ++i) {
        sizes.push_back(pick(rng, 0, 9) == 0 ? 0 : pick(rng, 1, 4));
    }
    at::Tensor t = at::randn(sizes);
    if (rank >= 2 && pick(rng, 0, 2) == 0) {
        t = t.transpose(0, rank - 1);
    }
    if (rank >= 1 && pick(rng, 0, 2) == 0) {
        const std::int64_t d = pick(rng, 0, rank - 1);
        if (t.size(d) >= 2) {
            t = t.narrow(d, 1, t.size(d) - 1);
        }
    }
    if (rank >= 1 && pick(rng, 0, 3) == 0) {
        const std::int64_t d = pick(rng, 0, rank - 1);
        if (t.size(d) == 1) {
            std::vector<std::int64_t> to(t.sizes().begin(), t.sizes().end());
            to[d] = 3;
            t = t.expand(to);
        }
    }
    return t;
}

// A shape of `numel` elements over 0-4 dimensions (its factors shuffled), sometimes with one
// size -1, sometimes wrong.
std::vector<std::int64_t> randomShape(Rng& rng, std::int64_t numel)
{
    std::vector<std::int64_t> shape(pick(rng, 0, 4), 1);
    if (numel == 0) {
        shape.push_back(0);
    } else if (shape.empty()) {
        shape.push_back(numel);
    } else {
        std::int64_t rest = numel;
        for (std::int64_t f = 2; rest > 1; ++f) {
            while (rest % f == 0) {
                shape[pick(rng, 0, shape.size() - 1)] *= f;
                rest /= f;
            }
        }
    }
    std::shuffle(shape.begin(), shape.end(), rng);
    if (pick(rng, 0, 3) == 0) {
        shape[pick(rng, 0, shape.size() - 1)] = -1;
    }
    if (pick(rng, 0, 7) == 0) {
        shape.push_back(pick(rng, 2, 3)); // too many elements (or -1 that cannot divide)
    }
    return shape;
}

struct Case {
    const char* name;
    const char* overload;
};

// The operator's arguments after `self`, random, often out of range.
Stack randomArguments(Rng& rng, const Case& c, const at::Tensor& self)
{
    const std::int64_t r = self.dim();
    const std::string name = c.name;
    auto dim = [&](std::int64_t extra) { return pick(rng, -r - 1 - extra, r + extra); };
    if (name == "aten::transpose") {
        return {dim(0), dim(0)};
    }
    if (name == "aten::permute") {
        std::vector<std::int64_t> dims(r);
        for (std::int64_t i = 0; i < r; ++i) {
            dims[i] = pick(rng, 0, 1) ? i : i - r; // also as negative dimensions
        }
        std::shuffle(dims.begin(), dims.end(), rng);
        if (r > 1 && pick(rng, 0, 5) == 0) {
            dims[0] = dims[1]; // a dimension twice
        }
        if (pick(rng, 0, 9) == 0) {
            dims.push_back(0); // one too many
        }
        return {intList(dims)};
    }
    if (name == "aten::view" || name == "aten::_unsafe_view") {
        return {intList(randomShape(rng, self.numel()))};
    }
    if (name == "aten::unsqueeze") {
        return {dim(1)};
    }
    if (name == "aten::squeeze") {
        return {dim(0)};
    }
    if (name == "aten::expand") {
        std::vector<std::int64_t> to;
        for (std::int64_t i = pick(rng, 0, 2); i > 0; --i) {
            to.push_back(pick(rng, 0, 6) == 0 ? -1 : pick(rng, 1, 3)); // new leading sizes
        }
        for (std::int64_t d = 0; d < r; ++d) {
            const std::int64_t s = self.size(d);
            const std::int64_t roll = pick(rng, 0, 5);
            to.push_back(roll == 0 ? -1 : roll == 1 ? s + 1 : roll == 2 && s == 1 ? 4 : s);
        }
        if (r > 0 && pick(rng, 0, 9) == 0) {
            to.erase(to.begin()); // fewer sizes than dimensions
        }
        return {intList(to), false};
    }
    if (name == "aten::slice") {
        auto bound = [&]() -> c10::IValue {
            const std::int64_t roll = pick(rng, 0, 5);
            if (roll == 0) {
                return c10::IValue();
            }
            return roll == 1 ? std::numeric_limits<std::int64_t>::max() : pick(rng, -6, 6);
        };
        c10::IValue start = bound();
        c10::IValue end = bound();
        return {dim(0), start, end, pick(rng, 0, 7) == 0 ? pick(rng, -1, 0) : pick(rng, 1, 3)};
    }
    if (name == "aten::select") {
        const std::int64_t d = pick(rng, -r - 1, r);
        const std::int64_t size = r > 0 && d >= -r && d < r ? self.size(d) : 4;
        return {d, pick(rng, -size - 1, size)};
    }
    return {}; // t, detach, alias
}

bool sameView(const at::Tensor& a, const at::Tensor& b)
{
    return a.sizes() == b.sizes() && a.strides() == b.strides() &&
           a.storage_offset() == b.storage_offset() &&
           a.storage().unsafeGetStorageImpl() == b.storage().unsafeGetStorageImpl() &&
           a.dtype() == b.dtype() && a.key_set() == b.key_set() &&
           a.is_inference() == b.is_inference() && a.is_contiguous() == b.is_contiguous();
}

std::string describe(const Case& c, const at::Tensor& self, const Stack& args)
{
    std::string s = std::string(c.name) + "." + c.overload + " on sizes " +
                    c10::str(self.sizes()) + " strides " + c10::str(self.strides()) + " args";
    for (const auto& a : args) {
        s += " " + c10::str(a);
    }
    return s;
}

Stack withSelf(const at::Tensor& self, const Stack& args)
{
    Stack s{self};
    s.insert(s.end(), args.begin(), args.end());
    return s;
}

} // namespace

class TestDirectViews : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void directFormsAreTheOperators_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("overload");
        for (const Case& c : {Case{"aten::t", ""}, Case{"aten::transpose", "int"},
                              Case{"aten::permute", ""}, Case{"aten::view", ""},
                              Case{"aten::_unsafe_view", ""}, Case{"aten::unsqueeze", ""},
                              Case{"aten::squeeze", "dim"}, Case{"aten::expand", ""},
                              Case{"aten::slice", "Tensor"}, Case{"aten::select", "int"},
                              Case{"aten::detach", ""}, Case{"aten::alias", ""}}) {
            QTest::newRow((std::string(c.name) + "." + c.overload).c_str())
                << QString(c.name) << QString(c.overload);
        }
    }

    void directFormsAreTheOperators()
    {
        QFETCH(QString, name);
        QFETCH(QString, overload);
        const std::string n = name.toStdString(), o = overload.toStdString();
        const Case c{n.c_str(), o.c_str()};
        const auto op = c10::Dispatcher::singleton().findSchema({n, o});
        QVERIFY(op.has_value());
        Rng rng(std::hash<std::string>()(n + o));
        c10::InferenceMode inference;
        int made = 0, raised = 0, normal = 0;
        for (int i = 0; i < 2000; ++i) {
            const at::Tensor self = randomTensor(rng);
            const Stack args = randomArguments(rng, c, self);
            const std::string what = describe(c, self, args);
            Stack byOp = withSelf(self, args);
            bool opRaised = false;
            try {
                op->callBoxed(&byOp);
            } catch (const std::exception&) {
                opRaised = true;
            }
            Stack direct = withSelf(self, args);
            DirectView result = DirectView::Declined;
            try {
                result = exec::detail::makeViewDirectly(n, o, direct);
            } catch (const std::exception& e) {
                QVERIFY2(opRaised, (what + ": the direct form raised " + e.what()).c_str());
                ++raised;
                continue;
            }
            QVERIFY2(result != DirectView::NoDirectForm, what.c_str());
            if (result == DirectView::Declined) {
                QVERIFY2(opRaised, (what + ": declined where the operator succeeds").c_str());
                QCOMPARE(direct.size(), args.size() + 1); // left alone for the operator
                ++raised;
                continue;
            }
            QVERIFY2(!opRaised, (what + ": made where the operator raises").c_str());
            QCOMPARE(direct.size(), std::size_t(1));
            QCOMPARE(byOp.size(), std::size_t(1));
            const at::Tensor mine = direct[0].toTensor(), theirs = byOp[0].toTensor();
            QVERIFY2(sameView(mine, theirs),
                     (what + ": sizes " + c10::str(mine.sizes()) + " strides " +
                      c10::str(mine.strides()) + " offset " +
                      std::to_string(mine.storage_offset()) + ", the operator's " +
                      c10::str(theirs.sizes()) + " " + c10::str(theirs.strides()) + " " +
                      std::to_string(theirs.storage_offset()))
                         .c_str());
            QVERIFY(mine.unsafeGetTensorImpl() != self.unsafeGetTensorImpl());
            if (!self.is_inference()) {
                // A view of a normal tensor shares its version counter, as the operator's
                // does: an in-place change of the input is seen through the view (a kept
                // copy of the view's values is then known to be stale). _unsafe_view's result
                // keeps a counter of its own, the operator's too.
                self.unsafeGetTensorImpl()->bump_version();
                QCOMPARE(theirs._version() == self._version(), n != "aten::_unsafe_view");
                QVERIFY2(mine._version() == theirs._version(), what.c_str());
                self.unsafeGetTensorImpl()->bump_version();
                QVERIFY2(mine._version() == theirs._version(), what.c_str());
                ++normal;
            }
            ++made;
        }
        // Most cases are made directly, and the generator reaches the operators' errors.
        QVERIFY2(made > 500, std::to_string(made).c_str());
        QVERIFY2(normal > 200, std::to_string(normal).c_str());
        if (n != "aten::t" && n != "aten::detach" && n != "aten::alias") {
            QVERIFY2(raised > 20, std::to_string(raised).c_str());
        }
    }

    void graphsRunAlikeWithAndWithoutDirectViews()
    {
        // y = mm(x, t(w)) viewed, sliced, unsqueezed, expanded, permuted; returns views too.
        graph::GraphBuilder b;
        const NodeId x = b.placeholder("x");
        const NodeId w = b.placeholder("w");
        const NodeId wt = b.call("t", "aten::t.default", {Argument::ref(w)});
        const NodeId mm = b.call("mm", "aten::mm.default", {Argument::ref(x), Argument::ref(wt)});
        const NodeId v = b.call("view", "aten::view.default",
                                {Argument::ref(mm), Argument::list({Argument::integer(2),
                                                                    Argument::integer(3),
                                                                    Argument::integer(4)})});
        const NodeId sl = b.call("slice", "aten::slice.Tensor",
                                 {Argument::ref(v), Argument::integer(2), Argument::integer(1),
                                  Argument::integer(-1), Argument::integer(1)});
        const NodeId un = b.call("unsqueeze", "aten::unsqueeze.default",
                                 {Argument::ref(sl), Argument::integer(1)});
        const NodeId ex = b.call("expand", "aten::expand.default",
                                 {Argument::ref(un), Argument::list({Argument::integer(2),
                                                                     Argument::integer(5),
                                                                     Argument::integer(3),
                                                                     Argument::integer(2)})});
        const NodeId pe = b.call("permute", "aten::permute.default",
                                 {Argument::ref(ex), Argument::list({Argument::integer(3),
                                                                     Argument::integer(0),
                                                                     Argument::integer(2),
                                                                     Argument::integer(1)})});
        const NodeId sum = b.call("mul", "aten::mul.Tensor", {Argument::ref(pe),
                                                              Argument::real(2.0)});
        b.output({Argument::ref(sum), Argument::ref(pe), Argument::ref(wt)});
        auto g = b.build().value();
        const at::Tensor xt = at::randn({6, 5}), wt0 = at::randn({4, 5});
        RunReport runs[2];
        for (bool direct : {true, false}) {
            RunOptions ro;
            ro.inputs = storeOf({{"x", xt}, {"w", wt0}});
            ro.directViews = direct;
            auto r = Interpreter::run(*g, ro);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
            QVERIFY(r->ok);
            runs[direct ? 0 : 1] = *r;
        }
        const at::Tensor expectedView = at::mm(xt, wt0.t())
                                            .view({2, 3, 4})
                                            .slice(2, 1, -1)
                                            .unsqueeze(1)
                                            .expand({2, 5, 3, 2})
                                            .permute({3, 0, 2, 1});
        for (int i = 0; i < 3; ++i) {
            const at::Tensor a = outputTensor(runs[0], i), d = outputTensor(runs[1], i);
            QVERIFY(a.defined() && d.defined());
            QVERIFY(a.sizes() == d.sizes() && a.strides() == d.strides());
            QVERIFY(at::equal(a, d));
        }
        QVERIFY(at::equal(outputTensor(runs[0], 1), expectedView));
        QVERIFY(outputTensor(runs[0], 1).strides() == expectedView.strides());
        QVERIFY(at::equal(outputTensor(runs[0], 0), expectedView * 2));
    }

    void outsideInferenceModeTheOperatorMakesViews()
    {
        // The plan's view steps run outside InferenceMode: autograd must see a view of a
        // tensor that requires grad (the direct form would make a tensor without grad).
        graph::GraphBuilder b;
        const NodeId w = b.placeholder("w");
        const NodeId wt = b.call("t", "aten::t.default", {Argument::ref(w)});
        b.output({Argument::ref(wt)});
        auto g = b.build().value();
        auto plan = exec::detail::buildPlan(*g, c10::Device(c10::kCPU));
        QVERIFY(plan.unsupported.empty());
        exec::detail::runViewsDirectly(plan);
        QVERIFY(plan.steps[1].kind == exec::detail::StepKind::Function); // the view is direct now
        const at::Tensor leaf = at::randn({3, 2}).requires_grad_(true);
        exec::detail::ExecResult res;
        QVERIFY(exec::detail::executePlan(plan, *g, {leaf, c10::IValue()}, {}, res).ok());
        const at::Tensor out = res.outputs.at(0).toTensor();
        QVERIFY(out.requires_grad());
        QVERIFY(out.is_view());
        QVERIFY(out._base().is_same(leaf));
        {
            c10::InferenceMode inference;
            exec::detail::ExecResult fast;
            QVERIFY(exec::detail::executePlan(plan, *g, {leaf, c10::IValue()}, {}, fast).ok());
            const at::Tensor o = fast.outputs.at(0).toTensor();
            QVERIFY(sameView(o, leaf.t()));
        }
    }
};

QTEST_GUILESS_MAIN(TestDirectViews)
#include "tst_direct_views.moc"

FXSCOPE_TEST_END
