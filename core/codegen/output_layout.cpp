// Outputs laid out as eager lays them out: a pointwise kernel whose output eager makes in a
// permuted dense layout (channels_last: [N,C,H,W] with strides [C*H*W, 1, W*C, C]) iterates its
// index space in that memory order, so that its stores (and the loads of inputs in the same
// layout) are unit-stride, and stores into a buffer with those strides. Kernels with reductions
// keep row-major index spaces and contiguous outputs.
#include "core/codegen/lowerer.h"

#include <algorithm>
#include <numeric>

namespace fxs::codegen::detail {
namespace {

bool isIdentity(const std::vector<int>& order)
{
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (order[i] != int(i)) {
            return false;
        }
    }
    return true;
}

// Dense strides for sizes with dims in `order` (outermost first).
std::vector<std::int64_t> denseStrides(const std::vector<std::int64_t>& sizes,
                                       const std::vector<int>& order)
{
    std::vector<std::int64_t> strides(sizes.size(), 1);
    std::int64_t step = 1;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        strides[std::size_t(*it)] = step;
        step *= std::max<std::int64_t>(sizes[std::size_t(*it)], 1);
    }
    return strides;
}

// Old dim -> new dim for an index space permuted by `order` (new dim i is old dim order[i]).
std::vector<int> inverse(const std::vector<int>& order)
{
    std::vector<int> inv(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        inv[std::size_t(order[i])] = int(i);
    }
    return inv;
}

void permuteAccess(Access& a, const std::vector<int>& order, const std::vector<int>& inv)
{
    std::vector<std::int64_t> strides(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        strides[i] = a.strides[std::size_t(order[i])];
    }
    a.strides = std::move(strides);
    for (Guard& g : a.guards) {
        g.dim = inv[std::size_t(g.dim)];
    }
}


// True when output i runs along the index space dim for dim (its dim j along F dim j).
bool spansF(const Lowerer& lw, const RegionProgram& prog, std::size_t i)
{
    if (i >= lw.req.outputs.size() || prog.outputs[i].sizes != lw.F) {
        return false;
    }
    const auto it = lw.values.find(lw.req.outputs[i]);
    if (it == lw.values.end()) {
        return false;
    }
    const std::vector<int> fd = lw.fdimOf(it->second);
    for (std::size_t j = 0; j < fd.size(); ++j) {
        if (fd[j] != int(j) && !(fd[j] == -1 && lw.F[j] == 1)) {
            return false;
        }
    }
    return fd.size() == lw.F.size();
}

// The first output (full index space, a dense permuted layout in eager) that decides the order.
std::optional<std::vector<int>> chosenOrder(const Lowerer& lw, const RegionProgram& prog,
                                            const std::vector<std::vector<std::int64_t>>& want)
{
    for (std::size_t i = 0; i < prog.outputs.size() && i < want.size(); ++i) {
        if (!spansF(lw, prog, i) || want[i].size() != lw.F.size()) {
            continue;
        }
        if (auto order = denseOrder(lw.F, want[i]); order && !isIdentity(*order)) {
            return order;
        }
    }
    return std::nullopt;
}

} // namespace

std::optional<std::vector<int>> denseOrder(const std::vector<std::int64_t>& sizes,
                                           const std::vector<std::int64_t>& strides)
{
    if (sizes.size() != strides.size()) {
        return std::nullopt;
    }
    // Size-1 dims do not move the address: outermost, in index order.
    std::vector<int> ones;
    std::vector<int> moving;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
        (sizes[d] == 1 ? ones : moving).push_back(int(d));
    }
    std::stable_sort(moving.begin(), moving.end(), [&](int a, int b) {
        return strides[std::size_t(a)] > strides[std::size_t(b)];
    });
    std::int64_t expected = 1;
    for (auto it = moving.rbegin(); it != moving.rend(); ++it) {
        if (strides[std::size_t(*it)] != expected) {
            return std::nullopt; // gaps, overlaps or broadcasts: not a dense layout
        }
        expected *= sizes[std::size_t(*it)];
    }
    if (std::is_sorted(moving.begin(), moving.end())) {
        std::vector<int> identity(sizes.size());
        std::iota(identity.begin(), identity.end(), 0);
        return identity; // row-major, whatever strides the size-1 dims have
    }
    ones.insert(ones.end(), moving.begin(), moving.end());
    return ones;
}

void applyOutputLayout(Lowerer& lw, RegionProgram& prog,
                       const std::vector<std::vector<std::int64_t>>& want)
{
    if (!lw.kernel.reductions.empty()) {
        return;
    }
    const auto order = chosenOrder(lw, prog, want);
    if (!order) {
        return;
    }
    for (std::size_t i = 0; i < prog.outputs.size(); ++i) {
        BufferSpec& out = prog.outputs[i];
        Store* store = nullptr;
        for (Store& s : lw.kernel.stores) {
            store = s.access.buffer == int(i) ? &s : store;
        }
        if (!spansF(lw, prog, i) || !store) {
            continue; // stored along part of the index space: contiguous
        }
        const std::vector<std::int64_t>* hint = i < want.size() ? &want[i] : nullptr;
        const auto hinted = hint && !hint->empty() ? denseOrder(out.sizes, *hint) : std::nullopt;
        if (hinted && *hinted == *order) {
            out.strides = *hint; // eager's own strides, size-1 dims included
        } else if (!hint || hint->empty()) {
            out.strides = denseStrides(out.sizes, *order); // read only by later steps
        } else {
            continue; // eager lays it out otherwise: contiguous as before
        }
        store->access.strides = out.strides; // the output spans F dim for dim
    }
    permuteIndexSpace(lw.kernel, *order);
}

namespace {

// Whether F dims d and d+1 can be one dim for access a (its address steps through them as
// through one), and the merged dim's stride.
std::optional<std::int64_t> mergedStride(const Access& a, const std::vector<std::int64_t>& f,
                                         std::size_t d)
{
    if (f[d] == 1) {
        return a.strides[d + 1];
    }
    if (f[d + 1] == 1) {
        return a.strides[d];
    }
    if (a.strides[d] != a.strides[d + 1] * f[d + 1]) {
        return std::nullopt;
    }
    return a.strides[d + 1];
}

// Merges F dims d and d+1 in every access when all of them allow it.
bool mergeDims(Kernel& k, std::size_t d)
{
    std::vector<std::int64_t> merged;
    for (const Load& l : k.loads) {
        auto m = mergedStride(l.access, k.shape, d);
        if (!m) {
            return false;
        }
        merged.push_back(*m);
    }
    for (const Store& s : k.stores) {
        auto m = mergedStride(s.access, k.shape, d);
        if (!m) {
            return false;
        }
        merged.push_back(*m);
    }
    auto apply = [&](Access& a, std::int64_t stride) {
        a.strides[d] = stride;
        a.strides.erase(a.strides.begin() + std::ptrdiff_t(d) + 1);
    };
    std::size_t i = 0;
    for (Load& l : k.loads) {
        apply(l.access, merged[i++]);
    }
    for (Store& s : k.stores) {
        apply(s.access, merged[i++]);
    }
    k.shape[d] *= k.shape[d + 1];
    k.shape.erase(k.shape.begin() + std::ptrdiff_t(d) + 1);
    return true;
}

} // namespace

void coalesceDims(Kernel& k)
{
    const bool indexed = std::any_of(k.exprs.begin(), k.exprs.end(),
                                     [](const Expr& e) { return e.kind == ExprKind::Index; });
    const bool guarded = std::any_of(k.loads.begin(), k.loads.end(),
                                     [](const Load& l) { return !l.access.guards.empty(); });
    if (!k.reductions.empty() || indexed || guarded || k.innerDims != 1) {
        return;
    }
    for (std::size_t d = k.shape.size(); d-- > 1;) {
        if (d < k.shape.size()) {
            (void)mergeDims(k, d - 1);
        }
    }
    for (Store& s : k.stores) {
        s.perRow = s.access.strides.back() == 0;
    }
}

void dropUnreadDims(Kernel& k)
{
    if (!k.reductions.empty()) {
        return;
    }
    std::vector<bool> read(k.shape.size(), false);
    auto mark = [&](const Access& a) {
        for (std::size_t d = 0; d < a.strides.size() && d < read.size(); ++d) {
            read[d] = read[d] || a.strides[d] != 0;
        }
        for (const Guard& g : a.guards) {
            read[std::size_t(g.dim)] = true;
        }
    };
    for (const Load& l : k.loads) {
        mark(l.access);
    }
    for (const Store& s : k.stores) {
        mark(s.access);
    }
    for (const Expr& e : k.exprs) {
        if (e.kind == ExprKind::Index) {
            read[std::size_t(e.index)] = true;
        }
    }
    for (std::size_t d = 0; d < k.shape.size(); ++d) {
        k.shape[d] = read[d] ? k.shape[d] : 1;
    }
}

void permuteIndexSpace(Kernel& k, const std::vector<int>& order)
{
    const std::vector<int> inv = inverse(order);
    std::vector<std::int64_t> shape(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        shape[i] = k.shape[std::size_t(order[i])];
    }
    k.shape = std::move(shape);
    for (Load& l : k.loads) {
        permuteAccess(l.access, order, inv);
    }
    for (Store& s : k.stores) {
        permuteAccess(s.access, order, inv);
        s.perRow = s.access.strides.back() == 0;
    }
    for (Expr& e : k.exprs) {
        if (e.kind == ExprKind::Index) {
            e.index = inv[std::size_t(e.index)];
        }
    }
}

} // namespace fxs::codegen::detail
