#include "core/codegen/lowering.h"

#include "core/codegen/lowerer.h"

#include <algorithm>
#include <set>

namespace fxs::codegen {

using detail::Lowerer;
using detail::Val;

namespace detail {

Error Lowerer::unsupported(const graph::Node& n, const std::string& why) const
{
    Error e = makeError(ErrorCode::Unsupported, why, req.regionId + ":" + n.name);
    e.found = n.target;
    return e;
}

Result<std::pair<ScalarType, std::vector<std::int64_t>>> Lowerer::outMeta(
    const graph::Node& n) const
{
    const graph::TensorMeta* m = n.tensorMeta();
    if (!m || m->hasSymbolicSizes()) {
        return unsupported(n, "the node has no concrete tensor meta");
    }
    auto t = scalarTypeOf(m->dtype);
    if (!t) {
        return unsupported(n, "dtype " + std::string(graph::dtypeTorchName(m->dtype)) +
                                  " is not supported by the code generator");
    }
    std::vector<std::int64_t> sizes;
    for (const auto& s : m->sizes) {
        sizes.push_back(s.value);
    }
    return std::make_pair(*t, sizes);
}

Result<Val> Lowerer::operand(const graph::Node& n, std::size_t argIndex) const
{
    if (argIndex >= n.args.size()) {
        return unsupported(n, "missing argument " + std::to_string(argIndex));
    }
    const graph::Argument& a = n.args[argIndex];
    Val v;
    switch (a.kind) {
    case graph::ArgKind::Node: {
        auto it = values.find(a.node);
        if (it == values.end()) {
            return unsupported(n, "argument " + std::to_string(argIndex) + " is not available");
        }
        return it->second;
    }
    case graph::ArgKind::Int:
    case graph::ArgKind::Bool:
        v.kind = Val::Kind::Scalar;
        v.number = a.kind == graph::ArgKind::Int ? double(a.i) : double(a.b);
        v.integral = true;
        return v;
    case graph::ArgKind::Float:
        v.kind = Val::Kind::Scalar;
        v.number = a.f;
        return v;
    default:
        return unsupported(n, "argument " + std::to_string(argIndex) + " is not a tensor or number");
    }
}

Result<Val> Lowerer::kwargOrArg(const graph::Node& n, std::string_view key,
                                std::size_t argIndex) const
{
    for (std::size_t k = 0; k < n.kwargs.size(); ++k) {
        if (n.kwargs[k].first == key) {
            graph::Node tmp;
            tmp.name = n.name;
            tmp.target = n.target;
            tmp.args = {n.kwargs[k].second};
            return operand(tmp, 0);
        }
    }
    return operand(n, argIndex);
}

int Lowerer::addExpr(Expr e)
{
    // Reuse identical expressions (common subexpressions: the same load or op twice).
    for (std::size_t i = 0; i < kernel.exprs.size(); ++i) {
        const Expr& o = kernel.exprs[i];
        if (o.kind == e.kind && o.type == e.type && o.op == e.op && o.args == e.args &&
            o.index == e.index && (o.value == e.value || (o.value != o.value && e.value != e.value))) {
            return static_cast<int>(i);
        }
    }
    kernel.exprs.push_back(std::move(e));
    return static_cast<int>(kernel.exprs.size() - 1);
}

int Lowerer::constant(double v, ComputeType t)
{
    Expr e;
    e.kind = ExprKind::Const;
    e.type = t;
    e.value = t == ComputeType::Bool ? double(v != 0) : v;
    return addExpr(std::move(e));
}

int Lowerer::op(std::string name, ComputeType t, std::vector<int> args)
{
    Expr e;
    e.kind = ExprKind::Op;
    e.type = t;
    e.op = std::move(name);
    e.args = std::move(args);
    return addExpr(std::move(e));
}

int Lowerer::cast(int expr, ComputeType to)
{
    return typeOfExpr(expr) == to ? expr : op("cast", to, {expr});
}

std::optional<std::vector<int>> Lowerer::alignToF(const std::vector<std::int64_t>& shape) const
{
    const int n = static_cast<int>(F.size());
    const int m = static_cast<int>(shape.size());
    if (m > n) {
        return std::nullopt;
    }
    std::vector<int> fd(shape.size(), -1);
    for (int j = 0; j < m; ++j) {
        const int d = n - m + j;
        if (shape[j] != 1 && shape[j] <= F[d]) {
            fd[j] = d; // shorter than F[d]: partial
        } else if (shape[j] != 1) {
            return std::nullopt;
        }
    }
    return fd;
}

std::vector<int> Lowerer::fdimOf(const Val& v) const
{
    if (v.kind == Val::Kind::Computed) {
        std::vector<int> fd = v.fdim;
        for (std::size_t j = 0; j < v.fspan.size() && j < fd.size(); ++j) {
            fd[j] = v.fspan[j] > 1 ? -2 : fd[j]; // merged dims: stores and reductions only
        }
        return fd;
    }
    if (v.kind == Val::Kind::InputView || v.kind == Val::Kind::Synth) {
        return alignToF(v.shape).value_or(std::vector<int>(v.shape.size(), -2));
    }
    return {};
}

bool Lowerer::consistent(const Val& operand, const std::vector<int>& resultFdim,
                         const std::vector<std::int64_t>& resultShape) const
{
    if (operand.kind == Val::Kind::Scalar) {
        return true;
    }
    const std::vector<int> fd = fdimOf(operand);
    const int m = static_cast<int>(operand.shape.size());
    const int r = static_cast<int>(resultShape.size());
    for (int j = 0; j < m; ++j) {
        if (operand.shape[j] == 1) {
            continue;
        }
        const int i = r - m + j;
        if (i < 0 || operand.shape[j] != resultShape[i] || fd[j] != resultFdim[i]) {
            return false;
        }
    }
    return true;
}

Result<int> Lowerer::exprOf(const Val& v, ComputeType t)
{
    switch (v.kind) {
    case Val::Kind::Scalar: return constant(v.number, t);
    case Val::Kind::Computed: return cast(v.expr, t);
    case Val::Kind::Tuple:
        return makeError(ErrorCode::Unsupported, "a tuple value used as a tensor", req.regionId);
    case Val::Kind::Deferred:
        return makeError(ErrorCode::Unsupported, "a value another kernel of the program makes",
                         req.regionId);
    case Val::Kind::Synth: return synthExpr(*this, v, t);
    case Val::Kind::InputView: break;
    }
    if (!v.parts.empty()) {
        return makeError(ErrorCode::Unsupported, "a load of a view whose dims are not one stride "
                                                 "each", req.regionId);
    }
    const int n = static_cast<int>(F.size());
    const int m = static_cast<int>(v.shape.size());
    Load load;
    load.type = v.type;
    load.access.buffer = v.input;
    load.access.offset = v.offset;
    load.access.strides.assign(F.size(), 0);
    for (int j = 0; j < m; ++j) {
        const int d = n - m + j;
        if (d >= 0 && v.shape[j] != 1 && v.shape[j] <= F[d]) {
            load.access.strides[d] = v.strides[j]; // shorter than F[d]: partial
        } else if (v.shape[j] != 1) {
            return makeError(ErrorCode::Unsupported,
                             "an input view does not broadcast into the kernel's shape",
                             req.regionId);
        }
    }
    Expr e;
    e.kind = ExprKind::Load;
    e.type = computeTypeOf(v.type);
    e.index = addLoad(load);
    return cast(addExpr(std::move(e)), t);
}

int Lowerer::addLoad(const Load& load)
{
    for (std::size_t i = 0; i < kernel.loads.size(); ++i) {
        const Load& o = kernel.loads[i];
        if (o.type == load.type && o.access.buffer == load.access.buffer &&
            o.access.offset == load.access.offset && o.access.strides == load.access.strides &&
            o.access.guards == load.access.guards &&
            (o.access.fill == load.access.fill || o.access.guards.empty())) {
            return static_cast<int>(i);
        }
    }
    kernel.loads.push_back(load);
    return static_cast<int>(kernel.loads.size() - 1);
}

int Lowerer::index(int dim)
{
    Expr e;
    e.kind = ExprKind::Index;
    e.type = ComputeType::Int64;
    e.index = dim;
    return addExpr(std::move(e));
}

std::optional<std::vector<int>> Lowerer::fdimsFromOperands(
    const std::vector<std::int64_t>& shape, const std::vector<Val>& operands) const
{
    std::vector<int> fd(shape.size(), -1);
    std::vector<bool> given(shape.size(), false);
    for (const Val& o : operands) {
        if (o.kind == Val::Kind::Scalar) {
            continue;
        }
        const std::vector<int> od = fdimOf(o);
        if (o.shape.size() > shape.size() || od.size() != o.shape.size()) {
            return std::nullopt;
        }
        const std::size_t lead = shape.size() - o.shape.size();
        for (std::size_t j = 0; j < o.shape.size(); ++j) {
            const std::size_t i = lead + j;
            if (o.shape[j] == 1) {
                continue;
            }
            if (od[j] < 0 || (given[i] && fd[i] != od[j])) {
                return std::nullopt;
            }
            fd[i] = od[j];
            given[i] = true;
        }
    }
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] != 1 && !given[i]) {
            return std::nullopt;
        }
        // Two dims of the result along one F dim would read only its diagonal.
        for (std::size_t j = 0; j < i; ++j) {
            if (shape[i] != 1 && shape[j] != 1 && fd[i] == fd[j]) {
                return std::nullopt;
            }
        }
    }
    return fd;
}

Result<Val> Lowerer::computed(const graph::Node& n, int expr,
                              const std::vector<Val>& operands) const
{
    auto meta = outMeta(n);
    if (!meta) {
        return meta.error();
    }
    auto fd = operands.empty() ? std::nullopt : fdimsFromOperands(meta->second, operands);
    fd = fd ? fd : alignToF(meta->second);
    if (!fd) {
        return unsupported(n, "its shape does not fit the kernel's index space");
    }
    Val v;
    v.kind = Val::Kind::Computed;
    v.type = meta->first;
    v.shape = meta->second;
    v.expr = expr;
    v.fdim = *fd;
    return v;
}

} // namespace detail

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
