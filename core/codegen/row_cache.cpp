#include "core/codegen/row_cache.h"

#include <algorithm>

namespace fxs::codegen::detail {
namespace {

constexpr std::int64_t kMaxBufferedElements = 16384; // per buffer; 64 KiB of floats

std::vector<int> loopRoots(const Kernel& k, std::size_t loop)
{
    if (loop < k.reductions.size()) {
        return {k.reductions[loop].operand};
    }
    std::vector<int> roots;
    for (const auto& s : k.stores) {
        if (!s.perRow) {
            roots.push_back(s.expr);
        }
    }
    return roots;
}

} // namespace

std::vector<bool> varyingExprs(const Kernel& k)
{
    const std::size_t first = k.shape.size() - std::size_t(k.innerDims);
    std::vector<bool> v(k.exprs.size(), false);
    for (std::size_t i = 0; i < k.exprs.size(); ++i) {
        const Expr& e = k.exprs[i];
        if (e.kind == ExprKind::Load) {
            const auto& st = k.loads[std::size_t(e.index)].access.strides;
            for (std::size_t d = k.flat ? 0 : first; d < st.size(); ++d) {
                v[i] = v[i] || (st[d] != 0 && k.shape[d] != 1);
            }
        } else if (e.kind == ExprKind::Index) {
            const std::size_t d = std::size_t(e.index);
            v[i] = (k.flat || d >= first) && k.shape[d] != 1;
        } else if (e.kind == ExprKind::Op) {
            v[i] = std::any_of(e.args.begin(), e.args.end(), [&](int a) { return v[std::size_t(a)]; });
        }
    }
    return v;
}

std::vector<bool> neededExprs(const Kernel& k, const std::vector<int>& roots,
                              const std::set<int>& stopAt)
{
    std::vector<bool> need(k.exprs.size(), false);
    std::vector<int> stack(roots);
    while (!stack.empty()) {
        const int id = stack.back();
        stack.pop_back();
        if (need[std::size_t(id)]) {
            continue;
        }
        need[std::size_t(id)] = true;
        if (stopAt.count(id) == 0) {
            const auto& args = k.exprs[std::size_t(id)].args;
            stack.insert(stack.end(), args.begin(), args.end());
        }
    }
    return need;
}

RowCachePlan planRowCache(const Kernel& k)
{
    RowCachePlan plan;
    const std::size_t loops = k.reductions.size() + 1;
    plan.loopOf.assign(k.exprs.size(), -1);
    plan.reads.resize(loops);
    if (k.flat || k.reductions.empty() || k.inner() > kMaxBufferedElements) {
        return plan;
    }
    plan.enabled = true;
    const std::vector<bool> varying = varyingExprs(k);
    for (std::size_t loop = 0; loop < loops; ++loop) {
        std::vector<int> stack = loopRoots(k, loop);
        std::set<int> seen;
        while (!stack.empty()) {
            const int id = stack.back();
            stack.pop_back();
            if (!seen.insert(id).second) {
                continue;
            }
            const Expr& e = k.exprs[std::size_t(id)];
            const int first = plan.loopOf[std::size_t(id)];
            if (first >= 0 && first < int(loop) && e.kind == ExprKind::Op &&
                varying[std::size_t(id)]) {
                plan.cached.insert(id);
                plan.reads[loop].insert(id);
                continue; // its operands are not needed again in this loop
            }
            if (first < 0) {
                plan.loopOf[std::size_t(id)] = int(loop);
            }
            stack.insert(stack.end(), e.args.begin(), e.args.end());
        }
    }
    return plan;
}

} // namespace fxs::codegen::detail
