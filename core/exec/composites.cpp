// The ONE table of composite operators (see composites.h), and the `operator` builtins.
// Every composite follows PyTorch 2.11's schema and returns what the real operator returns:
// same outputs in the same order, logsumexp shapes and padding, and the output strides of the
// fused kernels (later view ops in a graph rely on them). Dropout is not reproduced: a
// composite given dropout_p > 0 fails the run with a message naming the node.
#include "core/exec/composites.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/frontend/function_schema_parser.h>

#include <cmath>
#include <map>
#include <mutex>

namespace fxs::exec::detail {
namespace {

at::Tensor optTensor(const c10::IValue& v)
{
    return v.isNone() ? at::Tensor() : v.toTensor();
}

c10::optional<double> optDouble(const c10::IValue& v)
{
    return v.isNone() ? c10::nullopt : c10::optional<double>(v.toDouble());
}

template <class... T>
void pushAll(Stack& stack, T&&... values)
{
    stack.clear();
    (stack.emplace_back(std::forward<T>(values)), ...);
}

// ---- batch norm -------------------------------------------------------------------------

// (input, weight?, bias?, running_mean, running_var, training, momentum, eps)
// -> (out, save_mean, save_rstd, new_running_mean, new_running_var); inputs untouched.
void batchNormFunctional(Stack& s)
{
    at::Tensor rm = s[3].toTensor().clone();
    at::Tensor rv = s[4].toTensor().clone();
    auto r = at::native_batch_norm(s[0].toTensor(), optTensor(s[1]), optTensor(s[2]), rm, rv,
                                   s[5].toBool(), s[6].toDouble(), s[7].toDouble());
    pushAll(s, std::get<0>(r), std::get<1>(r), std::get<2>(r), rm, rv);
}

// (input, weight?, bias?, running_mean, running_var, momentum, eps) -> (out, mean, rstd)
void batchNormNoTraining(Stack& s)
{
    auto r = at::native_batch_norm(s[0].toTensor(), optTensor(s[1]), optTensor(s[2]),
                                   s[3].toTensor(), s[4].toTensor(), false, s[5].toDouble(),
                                   s[6].toDouble());
    pushAll(s, std::get<0>(r), std::get<1>(r), std::get<2>(r));
}

// (input, weight?, bias?, running_mean!, running_var!, training, momentum, eps): updates the
// running stats in place, like the real op.
void batchNormLegit(Stack& s)
{
    auto r = at::native_batch_norm(s[0].toTensor(), optTensor(s[1]), optTensor(s[2]),
                                   s[3].toTensor(), s[4].toTensor(), s[5].toBool(),
                                   s[6].toDouble(), s[7].toDouble());
    pushAll(s, std::get<0>(r), std::get<1>(r), std::get<2>(r));
}

// .no_stats: (input, weight?, bias?, training, momentum, eps)
void batchNormLegitNoStats(Stack& s)
{
    auto r = at::native_batch_norm(s[0].toTensor(), optTensor(s[1]), optTensor(s[2]), {}, {},
                                   s[3].toBool(), s[4].toDouble(), s[5].toDouble());
    pushAll(s, std::get<0>(r), std::get<1>(r), std::get<2>(r));
}

// ---- attention --------------------------------------------------------------------------

void requireNoDropout(const c10::IValue& p)
{
    TORCH_CHECK(p.toDouble() == 0.0,
                "fxscope's attention composites do not reproduce dropout (dropout_p=", p.toDouble(),
                ")");
}

// Masked, scaled scores q k^T in float32 or wider: [B, H, L, S]. `mask` is the attn_mask of
// scaled_dot_product_attention (bool: keep where true; float: added) or an attention bias.
at::Tensor attentionScores(const at::Tensor& q, const at::Tensor& k, const at::Tensor& mask,
                           bool causal, c10::optional<double> scale)
{
    const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
    at::Tensor scores = at::matmul(q, k.transpose(-2, -1)) * sc;
    if (causal) {
        // Top-left aligned, as torch.nn.functional.scaled_dot_product_attention documents.
        const auto L = q.size(-2);
        const auto S = k.size(-2);
        at::Tensor keep = at::ones({L, S}, q.options().dtype(at::kBool)).tril();
        scores = scores.masked_fill(keep.logical_not(), -std::numeric_limits<double>::infinity());
    }
    if (mask.defined()) {
        scores =
            mask.scalar_type() == at::kBool
                ? scores.masked_fill(mask.logical_not(), -std::numeric_limits<double>::infinity())
                : scores + mask;
    }
    return scores;
}

// The fused kernels write their output as [B, L, H, E] memory viewed as [B, H, L, E].
at::Tensor asBlheLayout(const at::Tensor& bhle)
{
    return bhle.transpose(1, 2).contiguous().transpose(1, 2);
}

// (B, H, L) logsumexp padded to a multiple of `align` with +inf (the efficient kernel's
// layout; align 1 = unpadded, as flash returns it).
at::Tensor paddedLse(const at::Tensor& lse, std::int64_t align)
{
    const auto L = lse.size(-1);
    const auto padded = (L + align - 1) / align * align;
    if (padded == L) {
        return lse.contiguous();
    }
    at::Tensor out = at::full({lse.size(0), lse.size(1), padded},
                              std::numeric_limits<double>::infinity(), lse.options());
    out.narrow(-1, 0, L).copy_(lse);
    return out;
}

struct AttentionFw {
    at::Tensor out; // [B, H, L, Ev]
    at::Tensor lse; // [B, H, L], float32
};

AttentionFw attentionForward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const at::Tensor& mask, bool causal, c10::optional<double> scale)
{
    at::Tensor scores = attentionScores(q, k, mask, causal, scale).to(at::kFloat);
    at::Tensor lse = at::logsumexp(scores, -1);
    at::Tensor probs = at::exp(scores - lse.unsqueeze(-1)).nan_to_num(0.0);
    return {at::matmul(probs.to(v.scalar_type()), v), lse};
}

struct AttentionBw {
    at::Tensor dq, dk, dv, dbias;
};

// Gradients from the saved output and logsumexp, as the fused backward kernels compute them.
AttentionBw attentionBackward(const at::Tensor& dout, const at::Tensor& q, const at::Tensor& k,
                              const at::Tensor& v, const at::Tensor& out, const at::Tensor& lse,
                              const at::Tensor& mask, bool causal, c10::optional<double> scale)
{
    const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
    const auto L = q.size(-2);
    at::Tensor scores = attentionScores(q, k, mask, causal, scale).to(at::kFloat);
    at::Tensor l = lse.narrow(-1, 0, L).to(at::kFloat).unsqueeze(-1);
    at::Tensor probs = at::exp(scores - l).nan_to_num(0.0);
    at::Tensor doF = dout.to(at::kFloat);
    at::Tensor dv = at::matmul(probs.transpose(-2, -1), doF);
    at::Tensor dp = at::matmul(doF, v.to(at::kFloat).transpose(-2, -1));
    at::Tensor delta = (doF * out.to(at::kFloat)).sum(-1, true);
    at::Tensor ds = probs * (dp - delta);
    at::Tensor dq = at::matmul(ds, k.to(at::kFloat)) * sc;
    at::Tensor dk = at::matmul(ds.transpose(-2, -1), q.to(at::kFloat)) * sc;
    return {dq.to(q.scalar_type()), dk.to(k.scalar_type()), dv.to(v.scalar_type()), ds};
}

// Grouped-query attention: repeat key/value heads to match the query's.
at::Tensor expandHeads(const at::Tensor& kv, std::int64_t qHeads)
{
    const auto h = kv.size(-3);
    return h == qHeads ? kv : kv.repeat_interleave(qHeads / h, -3);
}

// (query, key, value, attn_mask?, dropout_p, is_causal, *, scale?, enable_gqa) -> Tensor
void sdpa(Stack& s)
{
    requireNoDropout(s[4]);
    const at::Tensor q = s[0].toTensor();
    at::Tensor k = s[1].toTensor();
    at::Tensor v = s[2].toTensor();
    if (s[7].toBool()) {
        k = expandHeads(k, q.size(-3));
        v = expandHeads(v, q.size(-3));
    }
    auto fw = attentionForward(q, k, v, optTensor(s[3]), s[5].toBool(), optDouble(s[6]));
    pushAll(s, fw.out);
}

// (query, key, value, attn_bias?, compute_log_sumexp, dropout_p, is_causal, *, scale?)
// -> (output, log_sumexp, philox_seed, philox_offset)
void efficientAttention(Stack& s)
{
    requireNoDropout(s[5]);
    const at::Tensor q = s[0].toTensor();
    auto fw = attentionForward(q, s[1].toTensor(), s[2].toTensor(), optTensor(s[3]),
                               s[6].toBool(), optDouble(s[7]));
    at::Tensor lse = s[4].toBool() ? paddedLse(fw.lse, 32)
                                   : at::empty({q.size(0), q.size(1), 0}, fw.lse.options());
    at::Tensor seed = at::zeros({}, q.options().dtype(at::kLong));
    pushAll(s, asBlheLayout(fw.out), lse, seed, seed.clone());
}

// (grad_out, query, key, value, attn_bias, out, logsumexp, philox_seed, philox_offset,
//  dropout_p, grad_input_mask[4], is_causal, *, scale?) -> (dq, dk, dv, dbias)
void efficientAttentionBackward(Stack& s)
{
    requireNoDropout(s[9]);
    const at::Tensor bias = optTensor(s[4]);
    auto g = attentionBackward(s[0].toTensor(), s[1].toTensor(), s[2].toTensor(), s[3].toTensor(),
                               s[5].toTensor(), s[6].toTensor(), bias, s[11].toBool(),
                               optDouble(s[12]));
    const auto mask = s[10].toBoolList();
    at::Tensor dbias = mask.size() > 3 && mask.get(3) && bias.defined()
                           ? g.dbias.sum_to_size(bias.sizes()).to(bias.scalar_type())
                           : at::Tensor();
    pushAll(s, asBlheLayout(g.dq), asBlheLayout(g.dk), asBlheLayout(g.dv), dbias);
}

// (query, key, value, dropout_p, is_causal, return_debug_mask, *, scale?) -> (output,
//  logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, rng_state, unused, debug_attn_mask)
void flashAttention(Stack& s)
{
    requireNoDropout(s[3]);
    const at::Tensor q = s[0].toTensor();
    const at::Tensor k = s[1].toTensor();
    auto fw = attentionForward(q, k, s[2].toTensor(), {}, s[4].toBool(), optDouble(s[6]));
    at::Tensor rng = at::zeros({}, q.options().dtype(at::kLong));
    pushAll(s, asBlheLayout(fw.out), fw.lse.contiguous(), at::Tensor(), at::Tensor(), q.size(-2),
            k.size(-2), rng, rng.clone(), at::empty({0}, q.options()));
}

// (grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p,
//  is_causal, philox_seed, philox_offset, *, scale?) -> (dq, dk, dv)
void flashAttentionBackward(Stack& s)
{
    requireNoDropout(s[10]);
    auto g = attentionBackward(s[0].toTensor(), s[1].toTensor(), s[2].toTensor(), s[3].toTensor(),
                               s[4].toTensor(), s[5].toTensor(), {}, s[11].toBool(),
                               optDouble(s[14]));
    pushAll(s, asBlheLayout(g.dq), asBlheLayout(g.dk), asBlheLayout(g.dv));
}

// (query, key, value, dropout_p, is_causal, *, attn_mask?, scale?) -> (output, logsumexp)
void flashAttentionCpu(Stack& s)
{
    requireNoDropout(s[3]);
    auto fw = attentionForward(s[0].toTensor(), s[1].toTensor(), s[2].toTensor(),
                               optTensor(s[5]), s[4].toBool(), optDouble(s[6]));
    pushAll(s, asBlheLayout(fw.out), fw.lse.contiguous());
}

// (grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, *, attn_mask?, scale?)
void flashAttentionCpuBackward(Stack& s)
{
    requireNoDropout(s[6]);
    auto g = attentionBackward(s[0].toTensor(), s[1].toTensor(), s[2].toTensor(), s[3].toTensor(),
                               s[4].toTensor(), s[5].toTensor(), optTensor(s[8]), s[7].toBool(),
                               optDouble(s[9]));
    pushAll(s, asBlheLayout(g.dq), asBlheLayout(g.dk), asBlheLayout(g.dv));
}

// (self, dim, dtype?) -> softmax whose fully masked rows are 0 instead of NaN.
void safeSoftmax(Stack& s)
{
    const at::Tensor x = s[0].toTensor();
    const auto dim = s[1].toInt();
    at::Tensor out = s[2].isNone() ? at::softmax(x, dim)
                                   : at::softmax(x, dim, s[2].toScalarType());
    at::Tensor allMasked = x.eq(-std::numeric_limits<double>::infinity()).all(dim, true);
    pushAll(s, out.masked_fill(allMasked, 0));
}

// (self, indices) -> index.Tensor
void unsafeIndex(Stack& s)
{
    pushAll(s, at::index(s[0].toTensor(), s[1].to<c10::List<c10::optional<at::Tensor>>>()));
}

// Size queries of dynamic-shape graphs; LibTorch 1.13 has them only as JIT operators.
void symSize(Stack& s)
{
    const auto t = s[0].toTensor();
    const auto d = c10::maybe_wrap_dim(s[1].toInt(), t.dim());
    pushAll(s, t.size(d));
}

void symStride(Stack& s)
{
    const auto t = s[0].toTensor();
    const auto d = c10::maybe_wrap_dim(s[1].toInt(), t.dim());
    pushAll(s, t.stride(d));
}

void symNumel(Stack& s)
{
    pushAll(s, s[0].toTensor().numel());
}

void symStorageOffset(Stack& s)
{
    pushAll(s, s[0].toTensor().storage_offset());
}

} // namespace

const std::vector<Composite>& composites()
{
    static const std::vector<Composite> table = {
        {"aten::_native_batch_norm_legit_functional", "",
         "aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, "
         "Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) -> "
         "(Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)",
         batchNormFunctional, "native_batch_norm on copies of the running stats"},
        {"aten::_native_batch_norm_legit_no_training", "",
         "aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, "
         "Tensor running_mean, Tensor running_var, float momentum, float eps) -> "
         "(Tensor, Tensor, Tensor)",
         batchNormNoTraining, "native_batch_norm(training=False)"},
        {"aten::_native_batch_norm_legit", "",
         "aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, "
         "Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, "
         "float eps) -> (Tensor, Tensor, Tensor)",
         batchNormLegit, "native_batch_norm (running stats updated in place)"},
        {"aten::_native_batch_norm_legit", "no_stats",
         "aten::_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, "
         "bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
         batchNormLegitNoStats, "native_batch_norm without running stats"},
        {"aten::scaled_dot_product_attention", "",
         "aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
         "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, "
         "float? scale=None, bool enable_gqa=False) -> Tensor",
         sdpa, "softmax(q k^T * scale + mask) v; causal mask top-left"},
        {"aten::_scaled_dot_product_efficient_attention", "",
         "aten::_scaled_dot_product_efficient_attention(Tensor query, Tensor key, Tensor value, "
         "Tensor? attn_bias, bool compute_log_sumexp, float dropout_p=0.0, "
         "bool is_causal=False, *, float? scale=None) -> (Tensor output, Tensor log_sumexp, "
         "Tensor philox_seed, Tensor philox_offset)",
         efficientAttention, "math attention; logsumexp padded to 32 with +inf; [B,L,H,E] layout"},
        {"aten::_scaled_dot_product_efficient_attention_backward", "",
         "aten::_scaled_dot_product_efficient_attention_backward(Tensor grad_out_, Tensor query, "
         "Tensor key, Tensor value, Tensor attn_bias, Tensor out, Tensor logsumexp, "
         "Tensor philox_seed, Tensor philox_offset, float dropout_p, bool[4] grad_input_mask, "
         "bool is_causal=False, *, float? scale=None) -> (Tensor, Tensor, Tensor, Tensor)",
         efficientAttentionBackward,
         "P = exp(S - lse); dV = P^T dO; dS = P (dO V^T - rowsum(dO O))"},
        {"aten::_scaled_dot_product_flash_attention", "",
         "aten::_scaled_dot_product_flash_attention(Tensor query, Tensor key, Tensor value, "
         "float dropout_p=0.0, bool is_causal=False, bool return_debug_mask=False, *, "
         "float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, "
         "Tensor cum_seq_k, SymInt max_q, SymInt max_k, Tensor rng_state, Tensor unused, "
         "Tensor debug_attn_mask)",
         flashAttention, "math attention; logsumexp unpadded; [B,L,H,E] layout"},
        {"aten::_scaled_dot_product_flash_attention_backward", "",
         "aten::_scaled_dot_product_flash_attention_backward(Tensor grad_out, Tensor query, "
         "Tensor key, Tensor value, Tensor out, Tensor logsumexp, Tensor cum_seq_q, "
         "Tensor cum_seq_k, SymInt max_q, SymInt max_k, float dropout_p, bool is_causal, "
         "Tensor philox_seed, Tensor philox_offset, *, float? scale=None) -> "
         "(Tensor grad_query, Tensor grad_key, Tensor grad_value)",
         flashAttentionBackward, "as the efficient backward, without bias"},
        {"aten::_scaled_dot_product_flash_attention_for_cpu", "",
         "aten::_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, "
         "Tensor value, float dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, "
         "float? scale=None) -> (Tensor output, Tensor logsumexp)",
         flashAttentionCpu, "math attention; logsumexp unpadded"},
        {"aten::_scaled_dot_product_flash_attention_for_cpu_backward", "",
         "aten::_scaled_dot_product_flash_attention_for_cpu_backward(Tensor grad_out, "
         "Tensor query, Tensor key, Tensor value, Tensor out, Tensor logsumexp, float dropout_p, "
         "bool is_causal, *, Tensor? attn_mask=None, float? scale=None) -> "
         "(Tensor grad_query, Tensor grad_key, Tensor grad_value)",
         flashAttentionCpuBackward, "as the efficient backward"},
        {"aten::_safe_softmax", "",
         "aten::_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", safeSoftmax,
         "softmax, fully masked rows set to 0"},
        {"aten::_unsafe_index", "Tensor",
         "aten::_unsafe_index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", unsafeIndex,
         "index.Tensor"},
        {"aten::sym_size", "int", "aten::sym_size.int(Tensor self, int dim) -> SymInt", symSize,
         "Tensor::size(dim)"},
        {"aten::sym_stride", "int", "aten::sym_stride.int(Tensor self, int dim) -> SymInt",
         symStride, "Tensor::stride(dim)"},
        {"aten::sym_numel", "", "aten::sym_numel(Tensor self) -> SymInt", symNumel,
         "Tensor::numel()"},
        {"aten::sym_storage_offset", "", "aten::sym_storage_offset(Tensor self) -> SymInt",
         symStorageOffset, "Tensor::storage_offset()"},
    };
    return table;
}

const Composite* findComposite(std::string_view name, std::string_view overload)
{
    for (const auto& c : composites()) {
        if (name == c.name && overload == c.overload) {
            return &c;
        }
    }
    return nullptr;
}

const c10::FunctionSchema& compositeSchema(const Composite& c)
{
    static std::mutex mutex;
    static std::map<const Composite*, c10::FunctionSchema> cache;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(&c);
    if (it == cache.end()) {
        it = cache.emplace(&c, torch::jit::parseSchema(c.schema)).first;
    }
    return it->second;
}

} // namespace fxs::exec::detail
