// One cat and one product per matrix-product group (matmul_fusion.h).
#include "core/compile/matmul_fusion.h"

#include "core/exec/direct_calls.h"
#include "core/exec/torch_bridge.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#if defined(FXSCOPE_TORCH_CUDA)
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <algorithm>
#include <array>
#include <mutex>

namespace fxs::compile {
namespace {

bool sameTensor(const at::Tensor& a, const at::Tensor& b)
{
    return a.data_ptr() == b.data_ptr() && a.sizes() == b.sizes() && a.strides() == b.strides() &&
           a.scalar_type() == b.scalar_type() && a.device() == b.device();
}

// Whether every tensor is the transpose of a contiguous matrix (a weight's `t()`, a
// gradient's `permute`): then they are laid side by side as their transposes, so the product
// reads them as it read each before.
bool allTransposed(const std::vector<at::Tensor>& ts)
{
    return std::all_of(ts.begin(), ts.end(), [](const at::Tensor& t) {
        return t.dim() == 2 && t.t().is_contiguous() && !t.is_contiguous();
    });
}

// Side by side along `dim` (1: columns, 0: rows).
at::Tensor sideBySide(const std::vector<at::Tensor>& ts, int64_t dim)
{
    if (allTransposed(ts)) {
        std::vector<at::Tensor> tr;
        tr.reserve(ts.size());
        for (const auto& t : ts) {
            tr.push_back(t.t());
        }
        return at::cat(tr, 1 - dim).t();
    }
    return at::cat(ts, dim);
}

// One side's operands laid side by side, kept from an earlier run (matmul_fusion.h).
struct Kept {
    std::vector<at::Tensor> sources; // held, so that their memory is not reused while kept
    std::vector<const void*> data;   // their data pointers when joined
    std::vector<std::int64_t> versions;
    at::Tensor joined;
    std::int64_t dim = 0;    // joined along
    // The CUDA stream that joined them: another one joins anew (a captured copy moves to it).
    std::int64_t stream = 0;
    bool off = false;        // stopped: the operands came back as other tensors
    // A CUDA graph captured a product reading `joined`: from then on its memory is the one the
    // replays read, so it is written in place (refreshKept), never replaced.
    bool captured = false;
};

struct KeptSides {
    std::mutex mutex;
    std::array<Kept, 2> side;
    std::vector<at::Tensor> pinned; // joined copies a capture read, dropped since: kept alive
};

bool capturing(const at::Tensor& t)
{
#if defined(FXSCOPE_TORCH_CUDA)
    return t.is_cuda() &&
           c10::cuda::currentStreamCaptureStatusMayInitCtx() != c10::cuda::CaptureStatus::None;
#else
    (void)t;
    return false;
#endif
}

std::int64_t streamOf(const at::Tensor& t)
{
#if defined(FXSCOPE_TORCH_CUDA)
    if (t.is_cuda()) {
        return c10::cuda::getCurrentCUDAStream(t.device().index()).id();
    }
#else
    (void)t;
#endif
    return 0;
}

// Moves a captured copy to `stream`: the stream that used it last (a replay reads it there) is
// waited for first, so the copy is neither rewritten nor read under work still in flight.
void adoptStream(Kept& k, std::int64_t stream)
{
#if defined(FXSCOPE_TORCH_CUDA)
    if (k.stream != stream && k.joined.is_cuda()) {
        const c10::Stream last(c10::Stream::UNSAFE, k.joined.device(), k.stream);
        c10::cuda::CUDAStream(c10::cuda::CUDAStream::UNCHECKED, last).synchronize();
    }
#endif
    k.stream = stream;
}

// A captured side made current on this stream (adoptStream), and joined again into the same
// memory where its sources changed in place since (outside any capture); an error where a
// source now has other memory (set_, resize_): the captured graph would read the copy of the
// old one.
Status refreshKept(Kept& k)
{
    if (!k.joined.defined() || !k.captured) {
        return {};
    }
    adoptStream(k, streamOf(k.joined));
    bool changed = false;
    for (std::size_t i = 0; i < k.sources.size(); ++i) {
        if (k.sources[i].data_ptr() != k.data[i]) {
            return makeError(ErrorCode::Runtime,
                             "a grouped matrix-product operand was resized or re-pointed since "
                             "a CUDA graph captured its side-by-side copy; capture the graph "
                             "again");
        }
        changed = changed || k.sources[i]._version() != k.versions[i];
    }
    if (!changed) {
        return {};
    }
    c10::InferenceMode inference; // the copy was made in a run: an inference tensor
    k.joined.copy_(sideBySide(k.sources, k.dim));
    for (std::size_t i = 0; i < k.sources.size(); ++i) {
        k.versions[i] = k.sources[i]._version();
    }
    return {};
}

// The same memory and layout as a kept source (its version is compared apart; both have
// storage).
bool sameMemory(const at::Tensor& t, const at::Tensor& kept)
{
    return t.storage().unsafeGetStorageImpl() == kept.storage().unsafeGetStorageImpl() &&
           t.storage_offset() == kept.storage_offset() && sameTensor(t, kept);
}

struct GroupCall {
    int shared = 0;                 // MatmulGroup::shared
    std::vector<int64_t> rootSizes; // a sum's result
    bool sameByGraph = true; // the shared operands are one value: no comparison
    std::vector<std::size_t> left;  // per member: index into the substitute's inputs
    std::vector<std::size_t> right;
    std::array<bool, 2> keep{false, false}; // MatmulGroup::inputOperands
    std::shared_ptr<KeptSides> kept;
};

// `ts` (the operands of `side`) side by side along `dim`: the kept ones when they are the same
// unchanged tensors as before (`reused` is then set), else joined now and kept when allowed.
at::Tensor joinedOperands(const GroupCall& call, int side, const std::vector<at::Tensor>& ts,
                          int64_t dim, bool& reused)
{
    const bool keepable =
        call.keep[std::size_t(side)] && call.kept &&
        std::all_of(ts.begin(), ts.end(), [](const at::Tensor& t) {
            return t.has_storage() && !t.is_inference();
        });
    if (!keepable) {
        return sideBySide(ts, dim);
    }
    const bool capture = capturing(ts[0]);
    std::lock_guard<std::mutex> lock(call.kept->mutex);
    Kept& k = call.kept->side[std::size_t(side)];
    // Stops keeping; a copy a capture read stays alive for its replays.
    const auto stop = [&] {
        if (k.captured) {
            call.kept->pinned.push_back(k.joined);
        }
        k = Kept{};
        k.off = true;
    };
    if (k.off) {
        return sideBySide(ts, dim);
    }
    const std::int64_t stream = streamOf(ts[0]);
    if (k.joined.defined()) {
        const bool memory = k.sources.size() == ts.size() &&
                            std::equal(ts.begin(), ts.end(), k.sources.begin(), sameMemory);
        if (!memory) {
            stop(); // other tensors: not an input kept across runs here
            return sideBySide(ts, dim);
        }
        if (k.captured && !capture) {
            // The memory a capture reads: used on this stream from now on, and joined again in
            // place where its sources changed.
            if (!refreshKept(k)) {
                stop();
                return sideBySide(ts, dim);
            }
        }
        bool same = k.stream == stream;
        for (std::size_t i = 0; i < ts.size(); ++i) {
            same = same && ts[i]._version() == k.versions[i];
        }
        if (same) {
            // A capture reads the kept copy (joined on the capture's stream before it began),
            // which is then refreshed in place before each replay (refreshKept).
            k.captured = k.captured || capture;
            reused = true;
            return k.joined;
        }
    }
    if (capture) {
        return sideBySide(ts, dim); // joined inside the capture: every replay joins them
    }
    at::Tensor joined = sideBySide(ts, dim);
    if (joined.nbytes() > std::size_t(kMaxKeptBytes)) {
        stop();
        return joined;
    }
    k = Kept{};
    k.sources = ts;
    for (const auto& t : ts) {
        k.data.push_back(t.data_ptr());
        k.versions.push_back(t._version());
    }
    k.joined = joined;
    k.dim = dim;
    k.stream = stream;
    return joined;
}

Result<std::vector<exec::TensorHandle>> runGroup(const GroupCall& call,
                                                 const std::vector<exec::TensorHandle>& in,
                                                 std::atomic<long>* fused,
                                                 std::atomic<long>* separate,
                                                 std::atomic<long>* kept, bool direct)
{
    bool reused = false;
    const auto count = [&]() {
        if (fused) {
            ++*fused;
        }
        if (reused && kept) {
            ++*kept;
        }
    };
    const std::size_t n = call.left.size();
    std::vector<at::Tensor> a;
    std::vector<at::Tensor> b;
    for (std::size_t i = 0; i < n; ++i) {
        if (call.left[i] >= in.size() || call.right[i] >= in.size() ||
            !in[call.left[i]].defined() || !in[call.right[i]].defined()) {
            return makeError(ErrorCode::Internal, "a matrix-product group lacks an operand");
        }
        a.push_back(exec::tensorOf(in[call.left[i]]));
        b.push_back(exec::tensorOf(in[call.right[i]]));
    }
    if (call.shared == 3) {
        // Independent products of one shape: one batched call where cuBLAS takes them (in a
        // CUDA graph capture too: the stream writes their addresses, which the capture
        // records), else one by one.
        std::vector<at::Tensor> products;
        if (direct) {
            products = exec::detail::directBatchedMatmul(a, b);
        }
        const bool batched = !products.empty();
        if (!batched) {
            for (std::size_t i = 0; i < n; ++i) {
                products.push_back(exec::detail::matmul(a[i], b[i], direct));
            }
        }
        if (auto* counter = batched ? fused : separate) {
            ++*counter;
        }
        std::vector<exec::TensorHandle> out;
        out.reserve(n);
        for (auto& p : products) {
            out.push_back(exec::makeHandle(std::move(p)));
        }
        return out;
    }
    if (call.shared == 2) {
        // [M, K_i] side by side times [K_i, N] stacked: the sum of the products.
        const at::Tensor sum = exec::detail::matmul(joinedOperands(call, 0, a, 1, reused),
                                                    joinedOperands(call, 1, b, 0, reused), direct);
        count();
        return std::vector<exec::TensorHandle>{exec::makeHandle(sum.view(call.rootSizes))};
    }
    const auto& shared = call.shared == 0 ? a : b;
    const auto& others = call.shared == 0 ? b : a;
    const bool one = (call.sameByGraph ||
                      std::all_of(shared.begin(), shared.end(),
                                  [&](const at::Tensor& t) { return sameTensor(t, shared[0]); })) &&
                     std::all_of(others.begin(), others.end(), [&](const at::Tensor& t) {
        return t.dim() == 2 && t.scalar_type() == others[0].scalar_type() &&
               t.device() == others[0].device();
    });
    std::vector<exec::TensorHandle> out;
    out.reserve(n);
    if (!one) {
        if (separate) {
            ++*separate;
        }
        for (std::size_t i = 0; i < n; ++i) {
            out.push_back(exec::makeHandle(exec::detail::matmul(a[i], b[i], direct)));
        }
        return out;
    }
    // Shared left operand [M, K] times [K, N_i] side by side: column blocks of [M, sum N_i].
    // Shared right operand [K, N] under [M_i, K] stacked: row blocks of [sum M_i, N].
    const int64_t dim = call.shared == 0 ? 1 : 0;
    const at::Tensor product =
        call.shared == 0
            ? exec::detail::matmul(a[0], joinedOperands(call, 1, b, 1, reused), direct)
            : exec::detail::matmul(joinedOperands(call, 0, a, 0, reused), b[0], direct);
    count();
    int64_t offset = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const int64_t width = others[i].size(call.shared == 0 ? 1 : 0);
        out.push_back(exec::makeHandle(product.narrow(dim, offset, width)));
        offset += width;
    }
    return out;
}

} // namespace

std::vector<exec::Substitute> matmulSubstitutes(const graph::Graph& graph,
                                                const std::vector<MatmulGroup>& groups,
                                                std::shared_ptr<MatmulGroupRuns> runs)
{
    std::vector<exec::Substitute> subs;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const MatmulGroup& grp = groups[g];
        exec::Substitute s;
        s.name = grp.id;
        s.nodes = grp.nodes;
        s.outputs = grp.nodes;
        if (grp.shared == 2) {
            s.nodes.insert(s.nodes.end(), grp.sumNodes.begin(), grp.sumNodes.end());
            std::sort(s.nodes.begin(), s.nodes.end());
            s.outputs = {grp.root};
        }
        GroupCall call;
        call.shared = grp.shared;
        call.sameByGraph = grp.sameByGraph;
        call.keep = grp.inputOperands;
        call.kept = std::make_shared<KeptSides>();
        if (grp.shared == 2 && grp.root < graph.size()) {
            if (const auto* m = graph.node(grp.root).tensorMeta()) {
                for (const auto& d : m->sizes) {
                    call.rootSizes.push_back(d.value);
                }
            }
        }
        const auto slot = [&](graph::NodeId id) {
            auto it = std::find(s.inputs.begin(), s.inputs.end(), id);
            if (it == s.inputs.end()) {
                s.inputs.push_back(id);
                return s.inputs.size() - 1;
            }
            return std::size_t(it - s.inputs.begin());
        };
        // One value by the graph: every member reads the first member's shared operand (a
        // region may have made each view of it as a buffer of its own).
        const bool first = grp.sameByGraph && grp.shared < 2;
        const auto operand = [&](std::size_t member, int side) {
            const std::size_t m = first && grp.shared == side ? 0 : member;
            return slot(graph.node(grp.nodes[m]).args[std::size_t(side)].node);
        };
        for (std::size_t i = 0; i < grp.nodes.size(); ++i) {
            call.left.push_back(operand(i, 0));
            call.right.push_back(operand(i, 1));
        }
        s.beforeReplay = [kept = call.kept]() -> Status {
            std::lock_guard<std::mutex> lock(kept->mutex);
            for (Kept& k : kept->side) {
                if (Status st = refreshKept(k); !st) {
                    return st;
                }
            }
            return {};
        };
        s.run = [call, runs, g](const std::vector<exec::TensorHandle>& in) {
            return runGroup(call, in, runs ? &runs->fused[g] : nullptr,
                            runs ? &runs->separate[g] : nullptr, runs ? &runs->kept[g] : nullptr,
                            runs && runs->directMatmuls);
        };
        subs.push_back(std::move(s));
    }
    return subs;
}

} // namespace fxs::compile
