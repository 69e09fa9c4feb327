// The region compiler's eager runs and timing (RegionCompiler::Impl, region_compiler_impl.h):
// the untimed eager run verification compares with, eager and compiled timed alike (CPU: wall
// clock per run; CUDA: events on LibTorch's stream), the float64 reference, and the timings a
// verified entry keeps for later hits. Runs on the calling thread, never during a build.
#include "core/compile/region_compiler_impl.h"

#include "core/compile/cuda_target.h"
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/util/elapsed.h"

#include <algorithm>
#include <chrono>

namespace fxs::compile {
namespace {

using Clock = std::chrono::steady_clock;
using cache::Reason;
using detail::failWith;
using detail::PreparedRegion;

// The generated steps of a schedule that has none (the eager schedule of a region).
class NoCode : public detail::GeneratedCode {
public:
    Result<std::vector<at::Tensor>> run(int, const codegen::RegionProgram& prog,
                                        const std::vector<at::Tensor>&) const override
    {
        return makeError(ErrorCode::Internal, "an eager schedule has no generated step",
                         prog.region);
    }
};

// The whole region as one extern step: eager through the same lean execution plan the
// compiled schedule's extern steps use, so both sides are timed alike on the GPU.
detail::RegionSchedule eagerSchedule(const cache::RegionSignature& sig)
{
    detail::RegionSchedule s;
    detail::ScheduleStep step;
    step.nodes = sig.order;
    step.inputs = sig.inputs;
    step.outputs = sig.outputs;
    s.steps.push_back(step);
    s.externNodes = int(sig.order.size());
    return s;
}

// A schedule's runs timed with CUDA events on LibTorch's stream (cuda_target.h), the last
// run's outputs kept in `outs`.
Result<detail::Timing> timeRunsOnStream(const PreparedRegion& p,
                                        const detail::ScheduleRunner& runner,
                                        const detail::GeneratedCode& code, int repeats,
                                        std::vector<at::Tensor>& outs)
{
    return detail::timeOnStream(p.cudaDevice, repeats, [&]() -> Status {
        auto r = runner.run(code, p.inputs);
        if (!r) {
            return r.error();
        }
        outs = std::move(*r);
        return {};
    });
}

double meanOfRuns(const std::vector<double>& v)
{
    double sum = 0;
    for (double x : v) {
        sum += x;
    }
    return v.empty() ? 0.0 : sum / double(v.size());
}

double spreadOfRuns(const std::vector<double>& v)
{
    if (v.empty()) {
        return 0.0;
    }
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *hi - *lo;
}

} // namespace

Result<exec::RunReport> RegionCompiler::Impl::runEager(PreparedRegion& p, int repeat,
                                                       const std::vector<std::string>& keep)
{
    auto store = std::make_shared<exec::ValueStore>();
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
        store->set(p.regionGraph->node(p.regionGraph->placeholders()[i]).name,
                   exec::makeHandle(p.inputs[i]));
    }
    exec::RunOptions o;
    o.inputs = store;
    o.repeat = repeat;
    o.keep = keep;
    o.perNodeTiming = false;
    o.device = p.device.is_cuda() ? exec::DevicePref::Cuda : exec::DevicePref::Cpu;
    return exec::Interpreter::run(*p.regionGraph, o);
}

// The region run eagerly once, untimed: the outputs the compiled region is verified against.
Status RegionCompiler::Impl::runEagerOnce(PreparedRegion& p, RegionOutcome& out,
                                          std::vector<at::Tensor>& eagerOut)
{
    const detail::RegionSchedule schedule = eagerSchedule(p.sig); // the runner refers to it
    auto runner = detail::ScheduleRunner::create(*p.graph, schedule, p.sig.inputs, p.sig.outputs,
                                                 p.device);
    if (!runner) {
        return failWith(out, Reason::FallbackEagerFailed, runner.error());
    }
    auto r = (*runner)->run(NoCode(), p.inputs);
    if (!r) {
        return failWith(out, Reason::FallbackEagerFailed, r.error());
    }
    eagerOut = std::move(*r);
    return {};
}

Status RegionCompiler::Impl::timeEager(PreparedRegion& p, RegionOutcome& out,
                                       std::vector<at::Tensor>& eagerOut)
{
    if (p.device.is_cuda()) {
        return timeEagerCuda(p, out, eagerOut);
    }
    // The whole region as one extern step of a schedule: eager is timed the way the compiled
    // schedule is (the same runner, wall clock per run), so their spreads compare.
    const detail::RegionSchedule schedule = eagerSchedule(p.sig);
    auto runner = detail::ScheduleRunner::create(*p.graph, schedule, p.sig.inputs, p.sig.outputs,
                                                 p.device);
    if (!runner) {
        return failWith(out, Reason::FallbackEagerFailed, runner.error());
    }
    const NoCode none;
    std::vector<double> samples;
    for (int i = -1; i < std::max(1, options.timingRepeats); ++i) { // i == -1: warm-up
        const auto t0 = Clock::now();
        auto r = (*runner)->run(none, p.inputs);
        if (!r) {
            return failWith(out, Reason::FallbackEagerFailed, r.error());
        }
        if (i >= 0) {
            samples.push_back(msSince(t0));
        }
        eagerOut = std::move(*r);
    }
    out.eagerMs = meanOfRuns(samples);
    out.eagerSpreadMs = spreadOfRuns(samples);
    out.timing = "wall mean";
    return {};
}

Status RegionCompiler::Impl::timeEagerCuda(PreparedRegion& p, RegionOutcome& out,
                                           std::vector<at::Tensor>& eagerOut)
{
    const detail::RegionSchedule schedule = eagerSchedule(p.sig);
    auto runner = detail::ScheduleRunner::create(*p.graph, schedule, p.sig.inputs, p.sig.outputs,
                                                 p.device);
    if (!runner) {
        return failWith(out, Reason::FallbackEagerFailed, runner.error());
    }
    auto t = timeRunsOnStream(p, **runner, NoCode(), options.timingRepeats, eagerOut);
    if (!t) {
        return failWith(out, Reason::FallbackEagerFailed, t.error());
    }
    out.eagerMs = t->medianMs;
    out.eagerSpreadMs = t->spreadMs;
    out.eagerBackToBackMs = t->backToBackMs;
    out.timing = "cuda events median";
    return {};
}

Status RegionCompiler::Impl::timeCompiled(PreparedRegion& p, const detail::GeneratedCode& code,
                                          RegionOutcome& out, std::vector<at::Tensor>& compiledOut)
{
    if (p.device.is_cuda()) {
        auto t = timeRunsOnStream(p, *p.runner, code, options.timingRepeats, compiledOut);
        if (!t) {
            return failWith(out, Reason::FallbackRunFailed, t.error());
        }
        out.compiledMs = t->medianMs;
        out.compiledSpreadMs = t->spreadMs;
        out.compiledBackToBackMs = t->backToBackMs;
        out.compiledSamplesMs = t->samplesMs;
        return {};
    }
    auto warm = p.runner->run(code, p.inputs);
    if (!warm) {
        return failWith(out, Reason::FallbackRunFailed, warm.error());
    }
    const int n = std::max(1, options.timingRepeats);
    out.compiledSamplesMs.clear();
    for (int i = 0; i < n; ++i) {
        const auto ti = Clock::now();
        auto r = p.runner->run(code, p.inputs);
        if (!r) {
            return failWith(out, Reason::FallbackRunFailed, r.error());
        }
        out.compiledSamplesMs.push_back(msSince(ti));
        compiledOut = std::move(*r);
    }
    // The mean of the timed runs themselves (not the loop's wall time over n, which under load
    // can exceed every run), so that it lies within their range, as eager's does.
    out.compiledMs = meanOfRuns(out.compiledSamplesMs);
    out.compiledSpreadMs = spreadOfRuns(out.compiledSamplesMs);
    return {};
}

// The region run eagerly with its floating inputs widened to float64: what verification measures
// eager's own rounding against. Empty when it cannot run so (an operator without a float64
// kernel, a dtype the graph fixes that clashes): verification then keeps its dtype tolerances.
std::vector<at::Tensor> RegionCompiler::Impl::reference64(PreparedRegion& p)
{
    const detail::RegionSchedule schedule = eagerSchedule(p.sig);
    auto runner = detail::ScheduleRunner::create(*p.graph, schedule, p.sig.inputs, p.sig.outputs,
                                                 p.device);
    if (!runner) {
        return {};
    }
    std::vector<at::Tensor> wide;
    for (const auto& t : p.inputs) {
        wide.push_back(at::isFloatingType(t.scalar_type()) ? t.to(at::kDouble) : t);
    }
    auto r = (*runner)->run(NoCode(), wide);
    return r ? std::move(*r) : std::vector<at::Tensor>();
}

// A verified hit with timings saved for this device: they are reported (timingsFromEntry)
// and the compiled region runs once, for verification. Re-timing is asked for, a build, an
// unverified entry or no saved timings: false.
bool RegionCompiler::Impl::useSavedTimings(RegionOutcome& out,
                                           const Loaded& loaded)
{
    if (options.retime || !options.store || loaded.built || loaded.unverified) {
        return false;
    }
    auto saved = options.store->timing(out.key, out.device);
    if (!saved || !*saved) {
        return false;
    }
    const cache::RegionTiming& t = **saved;
    out.eagerMs = t.eagerMs;
    out.eagerSpreadMs = t.eagerSpreadMs;
    out.compiledMs = t.compiledMs;
    out.compiledSpreadMs = t.compiledSpreadMs;
    out.eagerBackToBackMs = t.eagerBackToBackMs;
    out.compiledBackToBackMs = t.compiledBackToBackMs;
    out.timing = t.timing;
    out.timingsFromEntry = true;
    return true;
}

// Eager and compiled timed now (after eager's untimed run), or the entry's saved timings and
// one compiled run.
Status RegionCompiler::Impl::timeBoth(PreparedRegion& p,
                                      const Loaded& loaded,
                                      RegionOutcome& out, std::vector<at::Tensor>& got)
{
    if (useSavedTimings(out, loaded)) {
        auto r = p.runner->run(*loaded.code, p.inputs);
        if (!r) {
            return failWith(out, Reason::FallbackRunFailed, r.error());
        }
        got = std::move(*r);
        return {};
    }
    std::vector<at::Tensor> unused; // the same values as eager's untimed run
    if (Status s = timeEager(p, out, unused); !s) {
        return s;
    }
    return timeCompiled(p, *loaded.code, out, got);
}

// Timings measured now for a verified region, saved for later hits on this device. A store
// that cannot be written costs the saving, not the region.
void RegionCompiler::Impl::saveTimings(const RegionOutcome& out)
{
    if (!options.store || out.timingsFromEntry || out.key.empty() || out.device.empty()) {
        return;
    }
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    (void)options.store->saveTiming(out.key, out.device,
                                    {out.eagerMs, out.eagerSpreadMs, out.compiledMs,
                                     out.compiledSpreadMs, out.eagerBackToBackMs,
                                     out.compiledBackToBackMs, out.timing, now.count()});
}

} // namespace fxs::compile
