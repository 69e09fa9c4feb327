// Each composite operator against a reference computed by hand in the test: batch norm
// statistics from their definitions, attention from explicit loops (forward) and from autograd
// over the textbook formula (backward), causal masks, logsumexp shapes and padding.
#include "exec_test_util.h"
#include "tests/test_file.h"

#include <QtTest>

#include <cmath>
#include <limits>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::exec;
using namespace fxs::exec::test;
using graph::Argument;
using graph::DType;

namespace {

// softmax(q k^T / sqrt(d) [causal]) v for [B, H, L, E] tensors, with plain loops in double;
// also returns the logsumexp of each row.
std::pair<at::Tensor, at::Tensor> attentionByHand(const at::Tensor& q, const at::Tensor& k,
                                                  const at::Tensor& v, bool causal)
{
    auto Q = q.to(at::kDouble).contiguous();
    auto K = k.to(at::kDouble).contiguous();
    auto V = v.to(at::kDouble).contiguous();
    const auto B = q.size(0), H = q.size(1), L = q.size(2), E = q.size(3), S = k.size(2);
    const auto Ev = v.size(3);
    auto out = at::zeros({B, H, L, Ev}, at::kDouble);
    auto lse = at::zeros({B, H, L}, at::kDouble);
    auto qa = Q.accessor<double, 4>();
    auto ka = K.accessor<double, 4>();
    auto va = V.accessor<double, 4>();
    auto oa = out.accessor<double, 4>();
    auto la = lse.accessor<double, 3>();
    for (int b = 0; b < B; ++b) {
        for (int h = 0; h < H; ++h) {
            for (int i = 0; i < L; ++i) {
                std::vector<double> s(S, -std::numeric_limits<double>::infinity());
                double m = -std::numeric_limits<double>::infinity();
                for (int j = 0; j < S; ++j) {
                    if (causal && j > i) {
                        continue;
                    }
                    double dot = 0;
                    for (int e = 0; e < E; ++e) {
                        dot += qa[b][h][i][e] * ka[b][h][j][e];
                    }
                    s[j] = dot / std::sqrt(static_cast<double>(E));
                    m = std::max(m, s[j]);
                }
                double z = 0;
                for (int j = 0; j < S; ++j) {
                    z += std::exp(s[j] - m);
                }
                la[b][h][i] = m + std::log(z);
                for (int j = 0; j < S; ++j) {
                    const double p = std::exp(s[j] - m) / z;
                    for (int e = 0; e < Ev; ++e) {
                        oa[b][h][i][e] += p * va[b][h][j][e];
                    }
                }
            }
        }
    }
    return {out, lse};
}

struct Sdpa {
    at::Tensor q, k, v;
};

Sdpa randomQkv(std::int64_t L = 5)
{
    at::manual_seed(7);
    return {at::randn({2, 3, L, 4}), at::randn({2, 3, L, 4}), at::randn({2, 3, L, 4})};
}

// A graph with placeholders q, k, v (and extras), one node `op`, getitems 0..n-1 returned.
graph::GraphPtr attentionGraph(const std::string& target, std::vector<Argument> extra,
                               std::vector<std::pair<std::string, Argument>> kwargs, int outputs,
                               std::vector<std::string> inputs = {"q", "k", "v"})
{
    graph::GraphBuilder b;
    std::vector<Argument> args;
    for (const auto& name : inputs) {
        args.push_back(Argument::ref(b.placeholder(name)));
    }
    for (auto& a : extra) {
        args.push_back(std::move(a));
    }
    const auto op = b.call("op", target, std::move(args), std::move(kwargs));
    std::vector<Argument> ret;
    if (outputs == 0) {
        ret.push_back(Argument::ref(op));
    }
    for (int i = 0; i < outputs; ++i) {
        ret.push_back(Argument::ref(b.getitem("g" + std::to_string(i), op, i)));
    }
    b.output(std::move(ret));
    return b.build().value();
}

RunReport runWith(const graph::GraphPtr& g, std::vector<std::pair<std::string, at::Tensor>> in)
{
    RunOptions o;
    o.inputs = storeOf(in);
    auto r = Interpreter::run(*g, o);
    if (!r.ok()) {
        qWarning("%s", r.error().toString().c_str());
        return {};
    }
    return *r;
}

} // namespace

class TestComposites : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void batchNormFunctionalStatistics()
    {
        at::manual_seed(1);
        auto x = at::randn({4, 3, 2, 2});
        auto w = at::rand({3}) + 0.5;
        auto bias = at::randn({3});
        auto rm = at::randn({3});
        auto rv = at::rand({3}) + 0.5;
        const auto rmBefore = rm.clone();
        auto g =
            attentionGraph("aten::_native_batch_norm_legit_functional.default",
                           {Argument::boolean(true), Argument::real(0.1), Argument::real(1e-5)}, {},
                           5, {"x", "w", "b", "rm", "rv"});
        auto r = runWith(g, {{"x", x}, {"w", w}, {"b", bias}, {"rm", rm}, {"rv", rv}});
        QVERIFY(r.ok);
        // By hand: statistics over N, H, W per channel; n = 16 values per channel.
        auto xd = x.to(at::kDouble);
        auto mean = xd.mean({0, 2, 3});
        auto var = (xd - mean.view({1, 3, 1, 1})).pow(2).sum({0, 2, 3}) / 16.0;
        auto rstd = 1.0 / (var + 1e-5).sqrt();
        auto out = (xd - mean.view({1, 3, 1, 1})) * rstd.view({1, 3, 1, 1}) *
                       w.to(at::kDouble).view({1, 3, 1, 1}) +
                   bias.to(at::kDouble).view({1, 3, 1, 1});
        QVERIFY(close(outputTensor(r, 0), out));
        QVERIFY(close(outputTensor(r, 1), mean));
        QVERIFY(close(outputTensor(r, 2), rstd, 1e-4));
        QVERIFY(close(outputTensor(r, 3), 0.9 * rm.to(at::kDouble) + 0.1 * mean));
        QVERIFY(close(outputTensor(r, 4), 0.9 * rv.to(at::kDouble) + 0.1 * var * 16.0 / 15.0));
        QVERIFY(at::equal(rm, rmBefore)); // functional: inputs untouched
    }

    void batchNormNoTraining()
    {
        at::manual_seed(2);
        auto x = at::randn({2, 3, 4});
        auto w = at::randn({3});
        auto bias = at::randn({3});
        auto rm = at::randn({3});
        auto rv = at::rand({3}) + 0.5;
        auto g = attentionGraph("aten::_native_batch_norm_legit_no_training.default",
                                {Argument::real(0.1), Argument::real(1e-5)}, {}, 1,
                                {"x", "w", "b", "rm", "rv"});
        auto r = runWith(g, {{"x", x}, {"w", w}, {"b", bias}, {"rm", rm}, {"rv", rv}});
        QVERIFY(r.ok);
        auto v = [](const at::Tensor& t) { return t.to(at::kDouble).view({1, 3, 1}); };
        auto expected = (x.to(at::kDouble) - v(rm)) / (v(rv) + 1e-5).sqrt() * v(w) + v(bias);
        QVERIFY(close(outputTensor(r, 0), expected));
    }

    void scaledDotProductAttentionCausal()
    {
        auto [q, k, v] = randomQkv();
        auto g = attentionGraph("aten::scaled_dot_product_attention.default", {},
                                {{"is_causal", Argument::boolean(true)}}, 0);
        auto r = runWith(g, {{"q", q}, {"k", k}, {"v", v}});
        QVERIFY(r.ok);
        QVERIFY(close(outputTensor(r, 0), attentionByHand(q, k, v, true).first));
        // Without the mask the result differs (the mask matters).
        QVERIFY(!close(outputTensor(r, 0), attentionByHand(q, k, v, false).first));
    }

    void efficientAttentionForwardShapesAndLogsumexp()
    {
        auto [q, k, v] = randomQkv(5);
        auto g = attentionGraph("aten::_scaled_dot_product_efficient_attention.default",
                                {Argument::none(), Argument::boolean(true), Argument::real(0.0),
                                 Argument::boolean(true)},
                                {}, 4);
        auto r = runWith(g, {{"q", q}, {"k", k}, {"v", v}});
        QVERIFY(r.ok);
        auto [out, lse] = attentionByHand(q, k, v, true);
        auto o = outputTensor(r, 0);
        QVERIFY(close(o, out));
        // The fused kernel's layout: [B, L, H, E] memory seen as [B, H, L, E].
        QCOMPARE(o.strides().vec(), (std::vector<std::int64_t>{5 * 3 * 4, 4, 3 * 4, 1}));
        auto l = outputTensor(r, 1);
        QCOMPARE(l.sizes().vec(), (std::vector<std::int64_t>{2, 3, 32})); // padded to 32
        QVERIFY(close(l.narrow(-1, 0, 5), lse));
        QVERIFY(l.narrow(-1, 5, 27).isinf().all().item<bool>());
        QCOMPARE(outputTensor(r, 2).dim(), 0L); // philox seed / offset: 0-dim int64
        QCOMPARE(outputTensor(r, 3).scalar_type(), at::kLong);
    }

    void efficientAttentionBackwardMatchesAutograd()
    {
        auto [q, k, v] = randomQkv(6);
        at::manual_seed(11);
        auto dout = at::randn({2, 3, 6, 4});
        // Reference: autograd through the textbook formula with a causal mask.
        auto qd = q.to(at::kDouble).requires_grad_();
        auto kd = k.to(at::kDouble).requires_grad_();
        auto vd = v.to(at::kDouble).requires_grad_();
        auto s = at::matmul(qd, kd.transpose(-2, -1)) / 2.0; // sqrt(E) = 2
        auto causal = at::ones({6, 6}, at::kBool).tril().logical_not();
        auto p = at::softmax(s.masked_fill(causal, -INFINITY), -1);
        auto out = at::matmul(p, vd);
        out.backward(dout.to(at::kDouble));
        auto lse = at::logsumexp(s.masked_fill(causal, -INFINITY), -1).detach();
        auto lsePadded = at::full({2, 3, 32}, INFINITY);
        lsePadded.narrow(-1, 0, 6).copy_(lse);
        graph::GraphBuilder b;
        std::vector<Argument> args;
        for (const char* n : {"dout", "q", "k", "v"}) {
            args.push_back(Argument::ref(b.placeholder(n)));
        }
        args.push_back(Argument::none()); // attn_bias
        for (const char* n : {"out", "lse", "seed", "offset"}) {
            args.push_back(Argument::ref(b.placeholder(n)));
        }
        args.push_back(Argument::real(0.0));
        args.push_back(Argument::list({Argument::boolean(true), Argument::boolean(true),
                                       Argument::boolean(true), Argument::boolean(false)}));
        args.push_back(Argument::boolean(true));
        const auto op =
            b.call("bw", "aten::_scaled_dot_product_efficient_attention_backward.default",
                   std::move(args));
        b.output({Argument::ref(b.getitem("dq", op, 0)), Argument::ref(b.getitem("dk", op, 1)),
                  Argument::ref(b.getitem("dv", op, 2)), Argument::ref(b.getitem("db", op, 3))});
        auto seed = at::zeros({}, at::kLong);
        auto r = runWith(b.build().value(),
                         {{"dout", dout}, {"q", q}, {"k", k}, {"v", v},
                          {"out", out.detach().to(at::kFloat)}, {"lse", lsePadded},
                          {"seed", seed}, {"offset", seed}});
        QVERIFY(r.ok);
        QVERIFY(close(outputTensor(r, 0), qd.grad(), 1e-4));
        QVERIFY(close(outputTensor(r, 1), kd.grad(), 1e-4));
        QVERIFY(close(outputTensor(r, 2), vd.grad(), 1e-4));
        QVERIFY(!outputTensor(r, 3).defined()); // no bias gradient asked for
        QCOMPARE(r.outputs[3].value, std::string("None"));
    }

    void flashAttentionForwardAndBackward()
    {
        auto [q, k, v] = randomQkv(4);
        auto g = attentionGraph("aten::_scaled_dot_product_flash_attention.default",
                                {Argument::real(0.0), Argument::boolean(false)}, {}, 2);
        auto r = runWith(g, {{"q", q}, {"k", k}, {"v", v}});
        QVERIFY(r.ok);
        auto [out, lse] = attentionByHand(q, k, v, false);
        QVERIFY(close(outputTensor(r, 0), out));
        QCOMPARE(outputTensor(r, 1).sizes().vec(),
                 (std::vector<std::int64_t>{2, 3, 4})); // unpadded
        QVERIFY(close(outputTensor(r, 1), lse));

        auto qd = q.to(at::kDouble).requires_grad_();
        auto od =
            at::matmul(at::softmax(at::matmul(qd, k.to(at::kDouble).transpose(-2, -1)) / 2.0, -1),
                       v.to(at::kDouble));
        auto dout = at::ones_like(od);
        od.backward(dout);
        graph::GraphBuilder b;
        std::vector<Argument> args;
        for (const char* n : {"dout", "q", "k", "v", "out", "lse"}) {
            args.push_back(Argument::ref(b.placeholder(n)));
        }
        for (auto a : {Argument::none(), Argument::none(), Argument::integer(4),
                       Argument::integer(4), Argument::real(0.0), Argument::boolean(false)}) {
            args.push_back(a);
        }
        args.push_back(Argument::ref(b.placeholder("seed")));
        args.push_back(Argument::ref(b.placeholder("offset")));
        const auto op = b.call("bw", "aten::_scaled_dot_product_flash_attention_backward.default",
                               std::move(args));
        b.output({Argument::ref(b.getitem("dq", op, 0))});
        auto seed = at::zeros({}, at::kLong);
        auto rb = runWith(b.build().value(),
                          {{"dout", dout.to(at::kFloat)}, {"q", q}, {"k", k}, {"v", v},
                           {"out", od.detach().to(at::kFloat)}, {"lse", lse.to(at::kFloat)},
                           {"seed", seed}, {"offset", seed}});
        QVERIFY(rb.ok);
        QVERIFY(close(outputTensor(rb, 0), qd.grad(), 1e-4));
    }

    void flashAttentionForCpu()
    {
        auto [q, k, v] = randomQkv(5);
        auto g = attentionGraph("aten::_scaled_dot_product_flash_attention_for_cpu.default",
                                {Argument::real(0.0), Argument::boolean(true)}, {}, 2);
        auto r = runWith(g, {{"q", q}, {"k", k}, {"v", v}});
        QVERIFY(r.ok);
        auto [out, lse] = attentionByHand(q, k, v, true);
        QVERIFY(close(outputTensor(r, 0), out));
        QCOMPARE(outputTensor(r, 1).sizes().vec(), (std::vector<std::int64_t>{2, 3, 5}));
        QVERIFY(close(outputTensor(r, 1), lse));
    }

    void batchNormLegitVariants()
    {
        at::manual_seed(5);
        auto x = at::randn({4, 2, 3});
        auto rm = at::zeros({2});
        auto rv = at::ones({2});
        // .default, training: updates the running stats in place (momentum 0.5).
        auto g =
            attentionGraph("aten::_native_batch_norm_legit.default",
                           {Argument::boolean(true), Argument::real(0.5), Argument::real(1e-5)}, {},
                           1, {"x", "w", "b", "rm", "rv"});
        auto r = runWith(g, {{"x", x}, {"w", at::ones({2})}, {"b", at::zeros({2})}, {"rm", rm},
                             {"rv", rv}});
        QVERIFY(r.ok);
        auto mean = x.to(at::kDouble).mean(at::IntArrayRef{0, 2});
        QVERIFY(close(rm, 0.5 * mean));
        // .no_stats: batch statistics only, weight and bias None.
        graph::GraphBuilder b;
        const auto xi = b.placeholder("x");
        const auto op =
            b.call("op", "aten::_native_batch_norm_legit.no_stats",
                   {Argument::ref(xi), Argument::none(), Argument::none(), Argument::boolean(true),
                    Argument::real(0.1), Argument::real(1e-5)});
        b.output({Argument::ref(b.getitem("out", op, 0))});
        auto rn = runWith(b.build().value(), {{"x", x}});
        QVERIFY(rn.ok);
        auto xd = x.to(at::kDouble);
        auto var = (xd - mean.view({1, 2, 1})).pow(2).mean(at::IntArrayRef{0, 2});
        QVERIFY(close(outputTensor(rn, 0),
                      (xd - mean.view({1, 2, 1})) / (var.view({1, 2, 1}) + 1e-5).sqrt()));
    }

    void safeSoftmaxAndUnsafeIndex()
    {
        const double inf = std::numeric_limits<double>::infinity();
        auto x = at::tensor({0.0, 1.0, 2.0, -inf, -inf, -inf}).view({2, 3});
        auto g =
            attentionGraph("aten::_safe_softmax.default", {Argument::integer(-1)}, {}, 0, {"x"});
        auto r = runWith(g, {{"x", x}});
        QVERIFY(r.ok);
        // Row 0 by hand: e^i / (1 + e + e^2); row 1 fully masked: zeros, not NaN.
        const double z = 1 + std::exp(1.0) + std::exp(2.0);
        auto expected = at::tensor({1 / z, std::exp(1.0) / z, std::exp(2.0) / z, 0.0, 0.0, 0.0});
        QVERIFY(close(outputTensor(r, 0), expected.view({2, 3})));

        graph::GraphBuilder b;
        const auto t = b.placeholder("t");
        const auto idx = b.placeholder("idx");
        const auto op = b.call("op", "aten::_unsafe_index.Tensor",
                               {Argument::ref(t), Argument::list({Argument::ref(idx)})});
        b.output({Argument::ref(op)});
        auto ri = runWith(b.build().value(), {{"t", at::tensor({10.0, 20.0, 30.0})},
                                              {"idx", at::tensor({2, 0, 2}, at::kLong)}});
        QVERIFY(ri.ok);
        QVERIFY(close(outputTensor(ri, 0), at::tensor({30.0, 10.0, 30.0})));
    }
};

QTEST_GUILESS_MAIN(TestComposites)
#include "tst_composites.moc"

FXSCOPE_TEST_END
