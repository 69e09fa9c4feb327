// RunOptions::chooseAddmm (interpreter.h): an addmm with a 1-D bias (beta = alpha = 1, 2-D
// operands) runs either as LibTorch's addmm — on CUDA, cuBLASLt with the bias in its epilogue —
// or as mm followed by the bias added in place, whichever ran faster the first time this
// process met its shapes, strides and dtype. cuBLASLt's heuristics pick a slow split-K kernel
// for some shapes (GPT's fc2, 256x1024 by 1024x256: 23 us against mm's 9 us on an H200) where
// Inductor, which unfuses such bias adds, runs plain mm. The choice is timed once per shape
// (after one untimed call of each, 10 calls each, the device synchronised): never while a CUDA
// graph is captured, since the engine's first run of a graph is never captured. With
// RunOptions::directMatmuls on CUDA both ways call cuBLAS themselves (direct_calls.h): addmm
// through cuBLASLt with set-ups kept per shape, mm through cublasSgemm; both are timed so.
#include "core/exec/direct_calls.h"
#include "core/exec/execution_plan.h"

#include <ATen/ATen.h>
#include <ATen/detail/CUDAHooksInterface.h>

#include <array>
#include <chrono>
#include <map>
#include <mutex>

namespace fxs::exec::detail {
namespace {

// A simple addmm's operands (1-D bias, 2-D matrices): device, dtype, how it runs (direct or
// not), then each operand's sizes and strides; looked up on every call, so numbers, no text.
using Key = std::array<std::int64_t, 14>;

struct Choices {
    std::mutex mutex;
    std::map<Key, bool> unfused; // operands -> mm + add_ was faster
};

Choices& choices()
{
    static Choices c;
    return c;
}

Key keyOf(const at::Tensor& bias, const at::Tensor& a, const at::Tensor& b, bool direct)
{
    return {std::int64_t(a.device().type()),
            a.device().index(),
            std::int64_t(a.scalar_type()),
            direct ? 1 : 0,
            bias.size(0),
            bias.stride(0),
            a.size(0),
            a.size(1),
            a.stride(0),
            a.stride(1),
            b.size(0),
            b.size(1),
            b.stride(0),
            b.stride(1)};
}

void synchronize(const at::Tensor& t)
{
    if (t.is_cuda()) {
        at::detail::getCUDAHooks().deviceSynchronize(t.get_device());
    }
}

template <class F>
double secondsPerCall(const at::Tensor& like, F&& f)
{
    f();
    synchronize(like);
    const auto t0 = std::chrono::steady_clock::now();
    constexpr int kCalls = 10;
    for (int i = 0; i < kCalls; ++i) {
        f();
    }
    synchronize(like);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kCalls;
}

at::Tensor unfused(const at::Tensor& bias, const at::Tensor& a, const at::Tensor& b, bool direct)
{
    return matmul(a, b, direct).add_(bias);
}

at::Tensor fused(const at::Tensor& bias, const at::Tensor& a, const at::Tensor& b, bool direct)
{
    if (direct) {
        if (at::Tensor c = directAddmm(bias, a, b); c.defined()) {
            return c;
        }
    }
    return at::addmm(bias, a, b);
}

// Whether mm + add_ is the faster way for these operands (timed the first time).
bool preferUnfused(const at::Tensor& bias, const at::Tensor& a, const at::Tensor& b,
                   bool direct)
{
    const Key key = keyOf(bias, a, b, direct);
    Choices& c = choices();
    {
        std::lock_guard<std::mutex> lock(c.mutex);
        if (auto it = c.unfused.find(key); it != c.unfused.end()) {
            return it->second;
        }
    }
    const UncountedDirectCalls timing; // the run counts its own calls, not these
    const double once = secondsPerCall(a, [&] { (void)fused(bias, a, b, direct); });
    const double split = secondsPerCall(a, [&] { (void)unfused(bias, a, b, direct); });
    const bool faster = split < 0.9 * once; // a clear win only
    std::lock_guard<std::mutex> lock(c.mutex);
    return c.unfused.emplace(key, faster).first->second;
}

bool isOne(const c10::IValue& v)
{
    return v.isScalar() && v.toScalar().equal(1);
}

// aten::addmm(self, mat1, mat2, *, beta=1, alpha=1) -> Tensor
template <bool kDirect>
void addmmChosen(Stack& s)
{
    const at::Tensor bias = s[0].toTensor();
    const at::Tensor a = s[1].toTensor();
    const at::Tensor b = s[2].toTensor();
    const bool simple = bias.dim() == 1 && a.dim() == 2 && b.dim() == 2 && isOne(s[3]) &&
                        isOne(s[4]) && at::isFloatingType(a.scalar_type()) &&
                        bias.scalar_type() == a.scalar_type();
    at::Tensor out;
    if (!simple) {
        out = at::addmm(bias, a, b, s[3].toScalar(), s[4].toScalar());
    } else if (preferUnfused(bias, a, b, kDirect)) {
        out = unfused(bias, a, b, kDirect);
    } else {
        out = fused(bias, a, b, kDirect);
    }
    s.clear();
    s.emplace_back(std::move(out));
}

} // namespace

void chooseAddmmKernels(Plan& plan, bool direct)
{
    runOperatorAs(plan, "aten::addmm", direct ? addmmChosen<true> : addmmChosen<false>);
}

std::pair<int, int> addmmChoiceCounts()
{
    Choices& c = choices();
    std::lock_guard<std::mutex> lock(c.mutex);
    int split = 0;
    for (const auto& [key, unfusedFaster] : c.unfused) {
        split += unfusedFaster ? 1 : 0;
    }
    return {split, int(c.unfused.size())};
}

} // namespace fxs::exec::detail
