// RunOptions::directViews (interpreter.h): the view operators a compiled graph is full of (t,
// transpose, permute, view, _unsafe_view, unsqueeze, squeeze, expand, slice, select, detach,
// alias) made as aliases of their input directly — a TensorImpl on the same storage with the
// sizes, strides and storage offset LibTorch's own kernel computes — instead of a boxed call
// through the dispatcher, which costs a few microseconds a view on the host (LLaMA-24's
// training step runs about a thousand of them outside its compiled regions). Each direct form
// follows LibTorch's kernel (ATen/native/TensorShape.cpp) and uses its exported helpers where
// it has them (size inference, view strides, expand geometry); any case it does not handle —
// an error, a tensor that is not plain and strided — goes to the operator itself, so errors
// read as LibTorch's. The tensor is made with the constructor LibTorch's alias uses, under the
// caller's InferenceMode, so its dispatch keys are the kernel's; its version counter is the
// input's where the kernel's is (aliasOf).
#include "core/exec/direct_views.h"

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/InferSize.h>
#include <ATen/TensorUtils.h>
#include <c10/core/InferenceMode.h>
#include <c10/core/WrapDimMinimal.h>

#include <limits>
#include <optional>
#include <vector>

namespace fxs::exec::detail {
namespace {

using Dims = c10::SmallVector<std::int64_t, 6>;

// Tensors whose views are plain aliases: strided, not quantized, with storage, no wrapper keys
// (functionalization, batching, Python subclasses), on the CPU or CUDA.
bool plain(const at::Tensor& t)
{
    if (!t.defined() || t.layout() != at::kStrided || !t.has_storage() || t.is_quantized()) {
        return false;
    }
    const auto type = t.device().type();
    if (type != c10::DeviceType::CPU && type != c10::DeviceType::CUDA) {
        return false;
    }
    constexpr c10::DispatchKeySet wrappers({c10::DispatchKey::Functionalize,
                                            c10::DispatchKey::Batched, c10::DispatchKey::Python});
    return !t.unsafeGetTensorImpl()->key_set().has_any(wrappers);
}

// A view's geometry, starting as its input's.
struct Geometry {
    explicit Geometry(const at::Tensor& t)
        : sizes(t.sizes().begin(), t.sizes().end()),
          strides(t.strides().begin(), t.strides().end()), offset(t.storage_offset())
    {
    }
    void erase(std::int64_t dim)
    {
        sizes.erase(sizes.begin() + dim);
        strides.erase(strides.begin() + dim);
    }
    Dims sizes;
    Dims strides;
    std::int64_t offset;
};

// A view of a normal tensor (one made outside InferenceMode, as a graph's inputs and weights
// are) shares its version counter, as LibTorch's view kernels make it share (as_view): an
// in-place change of the input then shows in the view's version, which is how a copy kept of
// the view's values (matmul_fusion.cpp) knows it is stale. The tensor's constructor alone
// gives it a counter of its own. _unsafe_view is not a view to LibTorch: its result keeps its
// own counter (`ownVersion`), as the operator's does. Inference tensors have no counter.
at::Tensor aliasOf(const at::Tensor& self, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                   std::int64_t offset, bool ownVersion = false)
{
    auto impl = c10::make_intrusive<c10::TensorImpl>(c10::TensorImpl::VIEW,
                                                     c10::Storage(self.storage()),
                                                     self.key_set(), self.dtype());
    impl->set_sizes_and_strides(sizes, strides, offset);
    if (!ownVersion && !impl->is_inference() && !self.is_inference()) {
        impl->set_version_counter(self.unsafeGetTensorImpl()->version_counter());
    }
    return at::Tensor(std::move(impl));
}

at::Tensor aliasOf(const at::Tensor& self, const Geometry& g)
{
    return aliasOf(self, g.sizes, g.strides, g.offset);
}

void returnOne(Stack& s, at::Tensor t)
{
    s.clear();
    s.emplace_back(std::move(t));
}

bool sameGeometry(Stack& s)
{
    const at::Tensor self = s[0].toTensor();
    if (!plain(self)) {
        return false;
    }
    returnOne(s, aliasOf(self, self.sizes(), self.strides(), self.storage_offset()));
    return true;
}

bool swapped(Stack& s, std::int64_t dim0, std::int64_t dim1)
{
    const at::Tensor self = s[0].toTensor();
    if (!plain(self)) {
        return false;
    }
    const std::int64_t n = self.dim();
    dim0 = c10::maybe_wrap_dim(dim0, n);
    dim1 = c10::maybe_wrap_dim(dim1, n);
    Geometry g(self);
    if (dim0 != dim1) {
        std::swap(g.sizes[dim0], g.sizes[dim1]);
        std::swap(g.strides[dim0], g.strides[dim1]);
    }
    returnOne(s, aliasOf(self, g));
    return true;
}

// t(Tensor self): at most two dimensions (the operator's own error otherwise).
bool directT(Stack& s)
{
    const std::int64_t n = s[0].toTensor().dim();
    return n <= 2 && swapped(s, 0, n < 2 ? 0 : 1);
}

// transpose.int(Tensor self, int dim0, int dim1)
bool directTranspose(Stack& s)
{
    return swapped(s, s[1].toInt(), s[2].toInt());
}

// permute(Tensor self, int[] dims): every dimension once.
bool directPermute(Stack& s)
{
    const at::Tensor self = s[0].toTensor();
    const at::DimVector dims = s[1].toDimVector();
    const std::int64_t n = self.dim();
    if (!plain(self) || static_cast<std::int64_t>(dims.size()) != n) {
        return false;
    }
    Dims sizes(n), strides(n);
    c10::SmallVector<bool, 6> seen(n, false);
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t d = c10::maybe_wrap_dim(dims[i], n);
        if (seen[d]) {
            return false;
        }
        seen[d] = true;
        sizes[i] = self.size(d);
        strides[i] = self.stride(d);
    }
    returnOne(s, aliasOf(self, sizes, strides, self.storage_offset()));
    return true;
}

// view(Tensor self, SymInt[] size) and _unsafe_view: one size may be -1; the strides are
// LibTorch's computeStride (none: the view is impossible, the operator says why).
bool reshaped(Stack& s, bool ownVersion)
{
    const at::Tensor self = s[0].toTensor();
    if (!plain(self)) {
        return false;
    }
    const at::DimVector shape = at::infer_size_dv(s[1].toDimVector(), self.numel());
    auto strides = at::detail::computeStride(self.sizes(), self.strides(), shape);
    if (!strides) {
        return false;
    }
    returnOne(s, aliasOf(self, shape, *strides, self.storage_offset(), ownVersion));
    return true;
}

bool directView(Stack& s)
{
    return reshaped(s, false);
}

bool directUnsafeView(Stack& s)
{
    return reshaped(s, true);
}

// unsqueeze(Tensor self, int dim): the new dimension's stride is the one of the dimension it
// lands before times that one's size (1 at the end).
bool directUnsqueeze(Stack& s)
{
    const at::Tensor self = s[0].toTensor();
    if (!plain(self)) {
        return false;
    }
    const std::int64_t n = self.dim();
    const std::int64_t dim = c10::maybe_wrap_dim(s[1].toInt(), n + 1);
    Geometry g(self);
    const std::int64_t stride = dim >= n ? 1 : g.sizes[dim] * g.strides[dim];
    g.sizes.insert(g.sizes.begin() + dim, 1);
    g.strides.insert(g.strides.begin() + dim, stride);
    returnOne(s, aliasOf(self, g));
    return true;
}

// squeeze.dim(Tensor self, int dim): the dimension goes when its size is 1; otherwise (and on
// a 0-d tensor) the view keeps the geometry.
bool directSqueeze(Stack& s)
{
    const at::Tensor self = s[0].toTensor();
    if (!plain(self)) {
        return false;
    }
    const std::int64_t n = self.dim();
    const std::int64_t dim = c10::maybe_wrap_dim(s[1].toInt(), n);
    Geometry g(self);
    if (n > 0 && g.sizes[dim] == 1) {
        g.erase(dim);
    }
    returnOne(s, aliasOf(self, g));
    return true;
}

// expand(Tensor self, SymInt[] size, *, bool implicit=False): LibTorch's expand geometry.
bool directExpand(Stack& s)
{
    const at::Tensor self = s[0].toTensor();
    const at::DimVector size = s[1].toDimVector();
    if (!plain(self) || static_cast<std::int64_t>(size.size()) < self.dim()) {
        return false;
    }
    auto geometry = at::inferExpandGeometry_dimvector(self.sizes(), self.strides(), size);
    returnOne(s, aliasOf(self, geometry.sizes, geometry.strides, self.storage_offset()));
    return true;
}

// slice.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1):
// negative bounds count from the end, then both are clamped into [0, size].
bool directSlice(Stack& s)
{
    const at::Tensor self = s[0].toTensor();
    const std::int64_t n = self.dim();
    const std::int64_t step = s[4].toInt();
    if (!plain(self) || n == 0 || step <= 0) {
        return false;
    }
    const std::int64_t dim = c10::maybe_wrap_dim(s[1].toInt(), n);
    const std::int64_t size = self.size(dim);
    std::int64_t start = s[2].isNone() ? 0 : s[2].toInt();
    std::int64_t end = s[3].isNone() ? std::numeric_limits<std::int64_t>::max() : s[3].toInt();
    if (start < 0) {
        start += size;
    }
    if (end < 0) {
        end += size;
    }
    start = start < 0 ? 0 : std::min(start, size);
    end = end < start ? start : std::min(end, size);
    Geometry g(self);
    g.offset += start * g.strides[dim];
    g.sizes[dim] = (end - start + step - 1) / step;
    g.strides[dim] *= step;
    returnOne(s, aliasOf(self, g));
    return true;
}

// select.int(Tensor self, int dim, SymInt index): an index in [-size, size).
bool directSelect(Stack& s)
{
    const at::Tensor self = s[0].toTensor();
    const std::int64_t n = self.dim();
    if (!plain(self) || n == 0) {
        return false;
    }
    const std::int64_t dim = c10::maybe_wrap_dim(s[1].toInt(), n);
    const std::int64_t size = self.size(dim);
    std::int64_t index = s[2].toInt();
    if (index < -size || index >= size) {
        return false;
    }
    index += index < 0 ? size : 0;
    Geometry g(self);
    g.offset += index * g.strides[dim];
    g.erase(dim);
    returnOne(s, aliasOf(self, g));
    return true;
}

struct ViewForm {
    const char* name;
    const char* overload;
    bool (*direct)(Stack&);
    std::optional<c10::OperatorHandle> op; // the fallback; none: not in this LibTorch
};

std::vector<ViewForm>& table()
{
    static std::vector<ViewForm> views = [] {
        std::vector<ViewForm> v{
            {"aten::t", "", directT, {}},
            {"aten::transpose", "int", directTranspose, {}},
            {"aten::permute", "", directPermute, {}},
            {"aten::view", "", directView, {}},
            {"aten::_unsafe_view", "", directUnsafeView, {}},
            {"aten::unsqueeze", "", directUnsqueeze, {}},
            {"aten::squeeze", "dim", directSqueeze, {}},
            {"aten::expand", "", directExpand, {}},
            {"aten::slice", "Tensor", directSlice, {}},
            {"aten::select", "int", directSelect, {}},
            {"aten::detach", "", sameGeometry, {}},
            {"aten::alias", "", sameGeometry, {}},
        };
        for (ViewForm& d : v) {
            if (auto op = c10::Dispatcher::singleton().findSchema({d.name, d.overload})) {
                d.op = *op; // c10::optional in LibTorch 1.13, std::optional since
            }
        }
        return v;
    }();
    return views;
}

// Outside InferenceMode a view must be known to autograd (LibTorch's ADInplaceOrView kernel):
// the operator makes it.
void runView(Stack& stack, void* context)
{
    const ViewForm& view = *static_cast<const ViewForm*>(context);
    if (!c10::InferenceMode::is_enabled() || !view.direct(stack)) {
        view.op->callBoxed(&stack);
    }
}

} // namespace

void runViewsDirectly(Plan& plan)
{
    for (ViewForm& view : table()) {
        if (view.op) {
            runOperatorAs(plan, view.name, view.overload, runView, &view);
        }
    }
}

DirectView makeViewDirectly(std::string_view name, std::string_view overload, Stack& stack)
{
    for (const ViewForm& view : table()) {
        if (view.op && name == view.name && overload == view.overload) {
            return view.direct(stack) ? DirectView::Made : DirectView::Declined;
        }
    }
    return DirectView::NoDirectForm;
}

} // namespace fxs::exec::detail
