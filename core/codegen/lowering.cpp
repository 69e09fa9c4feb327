#include "core/codegen/lowering.h"

#include "core/codegen/lowerer.h"

#include <algorithm>
#include <set>

namespace fxs::codegen {

using detail::Lowerer;
using detail::Val;

namespace {

std::int64_t numel(const std::vector<std::int64_t>& s)
{
    std::int64_t n = 1;
    for (auto d : s) {
        n *= d;
    }
    return n;
}

Result<std::vector<BufferSpec>> inputSpecsFromMeta(const LoweringRequest& req)
{
    std::vector<BufferSpec> specs;
    for (graph::NodeId id : req.inputs) {
        const graph::Node& n = req.graph->node(id);
        auto b = bufferSpecFromMeta(n);
        if (!b) {
            return makeError(ErrorCode::Unsupported, "input has no concrete tensor meta of a "
                                                     "supported dtype", req.regionId + ":" + n.name);
        }
        specs.push_back(std::move(*b));
    }
    return specs;
}

// F: the largest shape among the region's computed values (highest rank among equal numels).
std::vector<std::int64_t> indexSpace(const LoweringRequest& req,
                                     const std::vector<BufferSpec>& inputs)
{
    std::vector<std::int64_t> best;
    auto consider = [&](const std::vector<std::int64_t>& s) {
        const auto a = numel(s);
        const auto b = numel(best);
        if (a > b || (a == b && s.size() > best.size())) {
            best = s;
        }
    };
    auto sizesOf = [](const graph::TensorMeta* m) {
        std::optional<std::vector<std::int64_t>> s;
        if (m && !m->hasSymbolicSizes()) {
            s.emplace();
            for (const auto& d : m->sizes) {
                s->push_back(d.value);
            }
        }
        return s;
    };
    // Computed values decide, and what reductions read (the kernel iterates their operand; an
    // unrolled reduction's kept dims only); inputs may be larger than what the region reads of
    // them (slices). Copies of views of inputs are views too (copyOfInputView), unless nothing
    // else is computed. What depends on an expand that adds dims to F (expand_ops.cpp) gets them
    // when lowered.
    const std::set<graph::NodeId> region(req.order.begin(), req.order.end());
    std::set<graph::NodeId> grown;
    std::set<graph::NodeId> viewsOfInputs;
    std::vector<const graph::TensorMeta*> copies;
    for (graph::NodeId id : req.order) {
        const graph::Node& n = req.graph->node(id);
        const std::string_view base = graph::opBaseName(n.target);
        if (detail::growsIndexSpace(req, region, n) ||
            std::any_of(n.inputs.begin(), n.inputs.end(), [&](auto i) { return grown.count(i); })) {
            grown.insert(id);
        }
        const graph::Node* src = !n.args.empty() && n.args[0].isNode()
                                     ? &req.graph->node(n.args[0].node)
                                     : nullptr;
        const bool ofInput = src && (!region.count(src->id) || viewsOfInputs.count(src->id));
        const bool sameType = src && src->tensorMeta() && n.tensorMeta() &&
                              src->tensorMeta()->dtype == n.tensorMeta()->dtype;
        const bool copyOfInput = detail::isCopyOp(base) && ofInput && sameType;
        if (detail::isViewOp(base) || grown.count(id) || copyOfInput) {
            if (ofInput && !grown.count(id)) {
                viewsOfInputs.insert(id);
            }
            if (copyOfInput && !grown.count(id)) {
                copies.push_back(n.tensorMeta());
            }
            continue;
        }
        const bool reduces = detail::isReductionOp(base) && !n.args.empty() && n.args[0].isNode();
        const auto operand = reduces ? sizesOf(req.graph->node(n.args[0].node).tensorMeta())
                                     : std::nullopt;
        if (auto kept = operand ? detail::unrolledSpace(n, *operand) : std::nullopt) {
            consider(*kept);
            continue;
        }
        if (auto s = sizesOf(n.tensorMeta())) {
            consider(*s);
        }
        if (operand) {
            consider(*operand);
        }
    }
    if (best.empty()) {
        for (const graph::TensorMeta* m : copies) {
            if (auto sizes = sizesOf(m)) {
                consider(*sizes);
            }
        }
    }
    if (best.empty()) {
        for (const auto& in : inputs) {
            consider(in.sizes);
        }
    }
    if (best.empty()) {
        best = {1};
    }
    return best;
}

Status lowerNode(Lowerer& lw, const graph::Node& n)
{
    if (n.getitemOf != graph::kNoNode || graph::opBaseName(n.target) == "getitem") {
        const graph::NodeId parent = n.getitemOf != graph::kNoNode ? n.getitemOf
                                     : n.args.empty()              ? graph::kNoNode
                                                                   : n.args[0].node;
        auto it = lw.values.find(parent);
        if (it == lw.values.end() || it->second.kind != Val::Kind::Tuple || n.getitemIndex < 0) {
            return lw.unsupported(n, "getitem of a value that is not a lowered tuple");
        }
        if (n.getitemIndex >= int(it->second.items.size())) {
            const std::size_t made = it->second.items.size();
            return lw.unsupported(n, "item " + std::to_string(n.getitemIndex) + " of " +
                                         lw.g.node(parent).target +
                                         " is not produced by the code generator (it makes " +
                                         (made == 1 ? std::string("item 0 only")
                                                    : "items 0 to " + std::to_string(made - 1)) +
                                         ")");
        }
        Val item = it->second.items[std::size_t(n.getitemIndex)];
        // The printed meta is authoritative for the element type (CPU keeps mean/rstd in the
        // input's type, CUDA in float); the kernel computes in float either way.
        if (const graph::TensorMeta* m = n.tensorMeta(); m && scalarTypeOf(m->dtype)) {
            item.type = *scalarTypeOf(m->dtype);
        }
        lw.values[n.id] = std::move(item);
        return {};
    }
    if (auto why = opRefusal(n)) {
        return lw.unsupported(n, why->message);
    }
    for (graph::NodeId in : n.inputs) {
        auto it = lw.values.find(in);
        if (it != lw.values.end() && it->second.kind == Val::Kind::Deferred) {
            return lw.unsupported(n, "reads " + lw.g.node(in).name + ", which the program's "
                                     "column kernel makes after this kernel");
        }
    }
    const std::string_view base = graph::opBaseName(n.target);
    if (detail::isViewOp(base) || detail::copyOfInputView(lw, n)) {
        return detail::isViewOp(base) ? detail::lowerView(lw, n) : Status{};
    }
    // A view whose dims are not one stride each is read as a load along consecutive F dims.
    for (graph::NodeId in : n.inputs) {
        auto it = lw.values.find(in);
        if (it != lw.values.end() && !it->second.parts.empty()) {
            auto m = detail::materialized(lw, it->second);
            if (!m) {
                lw.refinedF = detail::refinedSpace(lw, it->second);
                return lw.unsupported(n, "reads a view of an input whose dims are not one stride "
                                         "each along other dims than the kernel's");
            }
            it->second = std::move(*m);
        }
    }
    if (detail::isCatOp(base)) {
        return detail::lowerCat(lw, n);
    }
    if (detail::isConstructorOp(base)) {
        return detail::lowerConstructor(lw, n);
    }
    if (detail::isReductionOp(base)) {
        return detail::lowerReduction(lw, n);
    }
    if (detail::isBatchNormOp(base)) {
        return detail::lowerBatchNorm(lw, n);
    }
    if (detail::isPoolOp(base)) {
        return detail::lowerPool(lw, n);
    }
    return detail::lowerPointwise(lw, n);
}

// The store of output `slot` (node n's value) in the kernel being built.
Result<Store> makeStore(Lowerer& lw, const graph::Node& n, int slot)
{
    if (!lw.values.at(n.id).parts.empty()) {
        auto m = detail::materialized(lw, lw.values.at(n.id));
        if (!m) {
            lw.refinedF = detail::refinedSpace(lw, lw.values.at(n.id));
            return lw.unsupported(n, "a region output that is a view of an input whose dims are "
                                     "not one stride each along other dims than the kernel's");
        }
        lw.values[n.id] = std::move(*m);
    }
    const Val& v = lw.values.at(n.id);
    if (v.kind == Val::Kind::Tuple || v.kind == Val::Kind::Scalar ||
        v.kind == Val::Kind::Deferred) {
        return lw.unsupported(n, "a region output that is not a tensor");
    }
    std::vector<int> fd = lw.fdimOf(v);
    const bool merged = !v.fspan.empty() && v.kind == Val::Kind::Computed;
    if ((!merged && std::any_of(fd.begin(), fd.end(), [](int d) { return d == -2; })) ||
        lw.partial(v)) {
        return lw.unsupported(n, "a region output that does not fit the kernel's index space");
    }
    auto e = lw.exprOf(v, computeTypeOf(v.type));
    if (!e) {
        return e.error();
    }
    Store st;
    st.expr = *e;
    st.type = v.type;
    st.access.buffer = slot;
    const auto cs = contiguousStrides(v.shape);
    st.access.strides = detail::storeStrides(lw, v, cs);
    if (Status s = detail::checkGrownStore(lw, n, st); !s) {
        return s.error();
    }
    const int firstInner = int(lw.F.size()) - lw.kernel.innerDims;
    st.perRow = std::all_of(st.access.strides.begin() + firstInner, st.access.strides.end(),
                            [](std::int64_t s) { return s == 0; });
    return st;
}

// Output `slot`: its buffer, and its store in the kernel (a Deferred value: in the column
// kernel that follows, which `deferred` lists).
Status addStore(Lowerer& lw, const graph::Node& n, int slot, RegionProgram& prog,
                std::vector<std::pair<int, graph::NodeId>>& deferred)
{
    const Val& v = lw.values.at(n.id);
    if (v.kind == Val::Kind::Deferred) {
        auto meta = lw.outMeta(n);
        if (!meta) {
            return meta.error();
        }
        deferred.emplace_back(slot, n.id);
        prog.outputs.push_back(BufferSpec{n.name, meta->first, meta->second,
                                          contiguousStrides(meta->second)});
        return {};
    }
    auto st = makeStore(lw, n, slot);
    if (!st) {
        return st.error();
    }
    lw.kernel.stores.push_back(*st);
    prog.outputs.push_back(BufferSpec{n.name, v.type, v.shape, contiguousStrides(v.shape)});
    return {};
}

void bindInputs(Lowerer& lw, const std::vector<BufferSpec>& specs)
{
    for (std::size_t i = 0; i < lw.req.inputs.size(); ++i) {
        Val v;
        v.kind = Val::Kind::InputView;
        v.input = static_cast<int>(i);
        v.type = specs[i].type;
        v.shape = specs[i].sizes;
        v.strides = specs[i].strides;
        lw.values[lw.req.inputs[i]] = std::move(v);
    }
}

// The region nodes the values `from` are computed from (them included).
std::set<graph::NodeId> ancestorsIn(const LoweringRequest& req,
                                    const std::vector<graph::NodeId>& from)
{
    const std::set<graph::NodeId> region(req.order.begin(), req.order.end());
    std::set<graph::NodeId> seen;
    std::vector<graph::NodeId> todo = from;
    while (!todo.empty()) {
        const graph::NodeId id = todo.back();
        todo.pop_back();
        if (!region.count(id) || !seen.insert(id).second) {
            continue;
        }
        const graph::Node& n = req.graph->node(id);
        todo.insert(todo.end(), n.inputs.begin(), n.inputs.end());
        if (n.getitemOf != graph::kNoNode) {
            todo.push_back(n.getitemOf);
        }
    }
    return seen;
}

// The program's second kernel: the Deferred outputs (a layer norm backward's weight and bias
// gradients) as column reductions over the same index space, recomputing what they read.
Result<Kernel> lowerColumnPart(const LoweringRequest& req, const std::vector<BufferSpec>& specs,
                               const std::vector<std::int64_t>& F,
                               const std::vector<std::pair<int, graph::NodeId>>& deferred)
{
    Lowerer lw(req);
    lw.F = F;
    lw.columnPart = true;
    lw.kernel.name = "kernel0_1";
    lw.kernel.shape = F;
    bindInputs(lw, specs);
    std::vector<graph::NodeId> outs;
    for (const auto& d : deferred) {
        outs.push_back(d.second);
    }
    const std::set<graph::NodeId> needed = ancestorsIn(req, outs);
    for (graph::NodeId id : req.order) {
        if (!needed.count(id)) {
            continue;
        }
        const graph::Node& n = req.graph->node(id);
        if (Status s = lowerNode(lw, n); !s) {
            return s.error();
        }
        if (Status s = detail::checkColumnValue(lw, n); !s) {
            return s.error();
        }
        lw.kernel.nodes.push_back(n.name);
    }
    if (lw.columnDims < 0) {
        return lw.unsupported(req.graph->node(outs.front()), "no column reduction makes it");
    }
    lw.kernel.columns = true;
    lw.kernel.innerDims = int(lw.F.size()) - lw.columnDims;
    for (const auto& [slot, id] : deferred) {
        auto st = makeStore(lw, req.graph->node(id), slot);
        if (!st) {
            return st.error();
        }
        lw.kernel.stores.push_back(*st);
    }
    detail::pruneDeadCode(lw.kernel);
    detail::permuteColumns(lw);
    return std::move(lw.kernel);
}

bool flatAccess(const Access& a, const std::vector<std::int64_t>& contiguous)
{
    const bool zero = std::all_of(a.strides.begin(), a.strides.end(), [](auto s) { return s == 0; });
    bool same = true;
    for (std::size_t d = 0; d < a.strides.size(); ++d) {
        same = same && (a.strides[d] == contiguous[d] || contiguous[d] == 0);
    }
    return zero || same;
}

void chooseLoopShape(Kernel& k)
{
    if (!k.reductions.empty()) {
        return;
    }
    // Size-1 dims do not constrain the flattened order: give them stride 0 in the check.
    std::vector<std::int64_t> cs = contiguousStrides(k.shape);
    for (std::size_t d = 0; d < k.shape.size(); ++d) {
        cs[d] = k.shape[d] == 1 ? 0 : cs[d];
    }
    bool flat = true;
    for (const auto& l : k.loads) {
        flat = flat && flatAccess(l.access, cs);
    }
    for (const auto& s : k.stores) {
        flat = flat && flatAccess(s.access, cs) &&
               !std::all_of(s.access.strides.begin(), s.access.strides.end(),
                            [](auto x) { return x == 0; });
    }
    k.flat = flat;
}

// The region as one kernel (and a column part) over index space F. refined: where a view of an
// input with sub-dims could not be read along F, the F that splits F's dims into those sub-dims
// (empty otherwise).
Result<RegionProgram> lowerInSpace(const LoweringRequest& req, const std::vector<BufferSpec>& specs,
                                   std::vector<std::int64_t> F, std::vector<std::int64_t>& refined)
{
    Lowerer lw(req);
    RegionProgram prog;
    prog.region = req.regionId;
    prog.inputs = specs;
    lw.F = std::move(F);
    lw.kernel.name = "kernel0";
    lw.kernel.shape = lw.F;
    bindInputs(lw, specs);
    for (graph::NodeId id : req.order) {
        if (Status s = lowerNode(lw, req.graph->node(id)); !s) {
            refined = lw.refinedF;
            return s.error();
        }
        if (Status s = detail::checkColumnValue(lw, req.graph->node(id)); !s) {
            return s.error();
        }
        lw.kernel.nodes.push_back(req.graph->node(id).name);
    }
    lw.kernel.innerDims = lw.reducedDims >= 0 ? lw.reducedDims : 1;
    if (lw.columnDims >= 0) {
        lw.kernel.columns = true;
        lw.kernel.innerDims = int(lw.F.size()) - lw.columnDims;
    }
    std::vector<std::pair<int, graph::NodeId>> deferred;
    for (std::size_t i = 0; i < req.outputs.size(); ++i) {
        if (Status s = addStore(lw, req.graph->node(req.outputs[i]), int(i), prog, deferred); !s) {
            refined = lw.refinedF;
            return s.error();
        }
    }
    detail::pruneDeadCode(lw.kernel);
    detail::permuteColumns(lw);
    detail::applyOutputLayout(lw, prog, req.outputStrides);
    detail::dropUnreadDims(lw.kernel);
    chooseLoopShape(lw.kernel);
    if (!lw.kernel.flat) {
        detail::coalesceDims(lw.kernel);
        chooseLoopShape(lw.kernel);
    }
    // A row kernel left with nothing to store (every output deferred) is not launched.
    if (deferred.empty() || !lw.kernel.stores.empty()) {
        prog.kernels.push_back(std::move(lw.kernel));
    }
    if (!deferred.empty() && !lw.grownDims.empty()) {
        // The column part re-lowers its producers against F: not with dims an expand added.
        return lw.unsupported(req.graph->node(lw.grownBy), "an expand along new dims in a region "
                                                           "whose column kernel follows");
    }
    if (!deferred.empty()) {
        auto columns = lowerColumnPart(req, specs, lw.F, deferred);
        if (!columns) {
            return columns.error();
        }
        columns->name = prog.kernels.empty() ? "kernel0" : "kernel0_1";
        prog.kernels.push_back(std::move(*columns));
    }
    return prog;
}

} // namespace

Result<RegionProgram> lowerRegion(const LoweringRequest& req)
{
    if (!req.graph || req.order.empty()) {
        return makeError(ErrorCode::Invalid, "empty region", req.regionId);
    }
    auto specs = req.inputSpecs.empty() ? inputSpecsFromMeta(req)
                                        : Result<std::vector<BufferSpec>>(req.inputSpecs);
    if (!specs) {
        return specs.error();
    }
    if (specs->size() != req.inputs.size()) {
        return makeError(ErrorCode::Invalid, "one input spec per region input is needed",
                         req.regionId);
    }
    std::vector<std::int64_t> refined;
    auto prog = lowerInSpace(req, *specs, indexSpace(req, *specs), refined);
    if (!prog && !refined.empty()) {
        // A view of an input with sub-dims read where F runs along their products: F split
        // into them (GPT-12's [T, B, 3*C] qkv gradient read as [T, B, 3, C]).
        std::vector<std::int64_t> unused;
        auto again = lowerInSpace(req, *specs, refined, unused);
        return again ? again : prog;
    }
    return prog;
}

std::optional<BufferSpec> bufferSpecFromMeta(const graph::Node& n)
{
    const graph::TensorMeta* m = n.tensorMeta();
    auto t = m ? scalarTypeOf(m->dtype) : std::nullopt;
    if (!m || !t || m->hasSymbolicSizes()) {
        return std::nullopt;
    }
    BufferSpec b{n.name, *t, {}, {}};
    for (const auto& s : m->sizes) {
        b.sizes.push_back(s.value);
    }
    if (m->strides) {
        for (const auto& s : *m->strides) {
            b.strides.push_back(s.value);
        }
    } else {
        b.strides = contiguousStrides(b.sizes);
    }
    return b;
}

std::optional<ScalarType> scalarTypeOf(graph::DType t)
{
    switch (t) {
    case graph::DType::Bool: return ScalarType::Bool;
    case graph::DType::Int64: return ScalarType::Int64;
    case graph::DType::Float16: return ScalarType::Float16;
    case graph::DType::BFloat16: return ScalarType::BFloat16;
    case graph::DType::Float32: return ScalarType::Float32;
    case graph::DType::Float64: return ScalarType::Float64;
    default: return std::nullopt;
    }
}

} // namespace fxs::codegen
