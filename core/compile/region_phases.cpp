// The region compiler's phases (RegionCompiler::compileAll; region_compiler.h says what each
// does): every region prepared and looked up in order, the keys that missed built on the pool
// (region_build_pool.h) meanwhile, then every region loaded, verified, timed and recorded in
// order. compileAndRun is a batch of one. Everything here runs on the calling thread; only the
// builds run on the pool's.
#include "core/compile/region_compiler_impl.h"

#include "core/compile/kernel_call.h"
#include "core/compile/region_dump.h"
#include "core/exec/torch_bridge.h"

#include <cstdio>
#include <exception>

namespace fxs::compile {
namespace {

using cache::Reason;
using detail::failWith;
using detail::PreparedRegion;
using detail::RegionTask;

// Timed runs each side needs before a region may be dropped as slower than eager.
constexpr int kMinRunsToDrop = 3;

std::int64_t bytesOf(const std::vector<at::Tensor>& ts)
{
    std::int64_t n = 0;
    for (const auto& t : ts) {
        n += std::int64_t(t.nbytes());
    }
    return n;
}

// The region falls back: its reason (a fallback reason recorded by failWith, else internal)
// and the headline made from it and the error.
void markFallback(RegionOutcome& out, const Error& e)
{
    out.state = RegionState::Fallback;
    if (cache::reasonCategory(out.reason) != cache::ReasonCategory::Fallback) {
        out.reason = Reason::FallbackInternal;
    }
    out.headline =
        cache::headline(out.reason, e.message + (e.where.empty() ? "" : " (" + e.where + ")"));
}

std::string msText(double ms)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", ms);
    return buf;
}

// The region as it will run again: the layouts its kernels were specialised on, and nothing of
// this run's tensors.
std::shared_ptr<const LoadedRegion> keepLoaded(std::shared_ptr<PreparedRegion> p)
{
    auto loaded = std::make_shared<LoadedRegion>();
    for (const auto& t : p->inputs) {
        loaded->inputSizes.push_back(t.sizes().vec());
        loaded->inputStrides.push_back(t.strides().vec());
    }
    p->inputs.clear();
    p->probed = exec::ValueStore();
    loaded->prepared = std::move(p);
    return loaded;
}

// An exception in a region's phase: the region falls back (internal), and that is final.
void internalFallback(RegionOutcome& out, const std::exception& e)
{
    out.state = RegionState::Fallback;
    out.reason = Reason::FallbackInternal;
    out.headline = cache::headline(out.reason, e.what());
    out.compiledMs = out.eagerMs;
}

// " (2/7)"
std::string ofText(std::size_t i, std::size_t n)
{
    return " (" + std::to_string(i + 1) + "/" + std::to_string(n) + ")";
}

// One or two runs say nothing about noise: the verdict needs kMinRunsToDrop of each side.
bool lostToEager(const CompileOptions& o, const RegionOutcome& out)
{
    if (o.timingRepeats < kMinRunsToDrop) {
        return false;
    }
    const double em = out.eagerMs, es = out.eagerSpreadMs;
    const double cm = out.compiledMs, cs = out.compiledSpreadMs;
    return o.slower ? o.slower(em, es, cm, cs) : slowerThanEager(em, es, cm, cs);
}

// Phase 2: the builds still running or queued, reported as they finish ("building 3/7 (2
// jobs)"). False when the token fired.
bool waitForBuilds(detail::RegionBuildPool& pool, const ProgressSink& progress)
{
    if (pool.submitted() == 0) {
        return true;
    }
    const int threads = pool.threads();
    const std::string jobs = " (" + std::to_string(threads) + (threads == 1 ? " job)" : " jobs)");
    return pool.waitAll([&](int done, int total) {
        reportProgress(progress, 0.1 + 0.6 * double(done) / double(total),
                       "building " + std::to_string(done) + "/" + std::to_string(total) + jobs);
    });
}

} // namespace

RegionCompiler::Batch RegionCompiler::Impl::compileAll(const graph::Graph& g,
                                                       const std::vector<RegionSpec>& regions,
                                                       const exec::ValueStore& values,
                                                       const CancelToken& cancel,
                                                       const ProgressSink& progress)
{
    Batch batch;
    // The pool goes last: its destructor waits for builds that still read the tasks' code.
    detail::RegionBuildPool pool(buildJobs(options.jobs), cancel);
    detail::RunKeys keys;
    std::vector<std::unique_ptr<RegionTask>> tasks;
    const std::size_t n = regions.size();
    const double steps = double(std::max<std::size_t>(1, n));
    for (std::size_t i = 0; i < n; ++i) {
        if (cancel.isCancelled()) {
            batch.cancelled = true;
            return batch;
        }
        reportProgress(progress, 0.1 * double(i) / steps,
                       "preparing " + regions[i].id + ofText(i, n));
        tasks.push_back(std::make_unique<RegionTask>(regions[i]));
        begin(*tasks.back(), g, values, keys, pool);
    }
    if (!waitForBuilds(pool, progress)) {
        batch.cancelled = true;
        return batch;
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (cancel.isCancelled()) {
            batch.cancelled = true;
            break;
        }
        reportProgress(progress, 0.7 + 0.3 * double(i) / steps, regions[i].id + ofText(i, n));
        finish(*tasks[i]);
        batch.regions.push_back(std::move(tasks[i]->out));
        tasks[i].reset();
    }
    return batch;
}

// Phase 1 of a region: prepared and looked up; a miss queues its key's build. A region whose key
// an earlier region of this run looked up is looked up in phase 3, after that one was recorded
// (it hits that entry, marked bad or verified since, as it would have region after region), and
// takes that region's build when there was one and its entry was not stored. So is a region whose
// key another process is building: waited for in phase 3, not here.
void RegionCompiler::Impl::begin(RegionTask& t, const graph::Graph& g,
                                 const exec::ValueStore& values, detail::RunKeys& keys,
                                 detail::RegionBuildPool& pool)
{
    t.out.id = t.spec.id;
    t.out.nodes = static_cast<int>(t.spec.nodes.size());
    try {
        if (Status s = prepare(t, g, values); !s) {
            t.failed = s.error();
            return;
        }
        if (!keys.lookedUp.insert(t.out.key).second) {
            if (auto it = keys.building.find(t.out.key); it != keys.building.end()) {
                t.build = it->second;
            }
            t.deferred = true;
            return;
        }
        // Phase 1 holds claims on the keys it builds: it never waits for another process's.
        if (Status s = lookUp(t, false); !s) {
            t.failed = s.error();
            return;
        }
        if (t.hit) {
            return;
        }
        if (t.provider->busyElsewhere()) {
            t.deferred = true; // looked up again in phase 3, waiting for that process's entry
            return;
        }
        t.build = t.provider->newBuild(t.p);
        keys.building[t.out.key] = t.build;
        if (t.build->dir) {
            pool.submit(t.build);
        }
    } catch (const std::exception& e) {
        internalFallback(t.out, e);
        t.done = true;
        t.provider.reset();
    }
}

// Canonical form, inputs (tensors and one untimed eager run, or the graph's meta when only
// building), schedule, code and key.
Status RegionCompiler::Impl::prepare(RegionTask& t, const graph::Graph& g,
                                     const exec::ValueStore& values)
{
    PreparedRegion& p = *t.p;
    RegionOutcome& out = t.out;
    p.options = t.spec.options;
    if (options.buildOnly) {
        if (Status s = prepareFromMeta(g, t.spec, p, out); !s) {
            return s;
        }
        t.clock.mark("canonicalize");
    } else {
        if (Status s = prepareInputs(g, t.spec, values, p, out); !s) {
            return s;
        }
        out.device = p.device.str();
        for (graph::NodeId id : p.sig.outputs) {
            out.outputNames.push_back(g.node(id).name);
        }
        t.clock.mark("canonicalize");
        if (Status s = runEagerOnce(p, out, t.eagerOut); !s) {
            return s;
        }
        t.eagerRan = true;
        t.clock.mark("eager");
        out.bytesMoved = bytesOf(p.inputs) + bytesOf(t.eagerOut);
        for (std::size_t i = 0; i < t.eagerOut.size(); ++i) {
            out.outputs.push_back(exec::makeHandle(t.eagerOut[i]));
            if (i < p.sig.outputs.size() && t.eagerOut[i].defined()) {
                p.eagerStrides[p.sig.outputs[i]] = t.eagerOut[i].strides().vec();
            }
        }
    }
    if (Status s = prepareKernel(p, out, t.clock); !s) {
        return s;
    }
    p.probed = exec::ValueStore(); // scheduling read it; not kept through the builds
    out.key = p.key.key();
    out.transcript = p.key.transcript();
    out.source = p.code->source();
    out.target = p.code->target();
    t.provider = std::make_unique<detail::ArtifactProvider>(options);
    return {};
}

Status RegionCompiler::Impl::lookUp(RegionTask& t, bool waitForOthers)
{
    auto found = t.provider->find(*t.p, t.out, !options.buildOnly, waitForOthers);
    if (!found) {
        return found.error();
    }
    t.clock.mark("lookup");
    if (*found) {
        t.hit = std::move(**found);
    }
    return {};
}

// Phase 3 of a region. Its provider goes at the end, and with it the claim on building its key
// (a later region of the key looks up next); the build goes with the last region of its key.
void RegionCompiler::Impl::finish(RegionTask& t)
{
    if (!t.done) {
        try {
            finishRegion(t);
        } catch (const std::exception& e) {
            internalFallback(t.out, e);
        }
    }
    t.provider.reset();
    t.build.reset();
    if (cache::CacheStore* store = options.store) {
        (void)store->count(t.out.reason); // statistics are best effort
    }
}

void RegionCompiler::Impl::finishRegion(RegionTask& t)
{
    t.clock.restart(); // the time since phase 1 went to other regions and the builds
    Status s = t.failed ? Status(*t.failed) : Status();
    if (s) {
        auto loaded = artifact(t);
        if (!loaded) {
            s = loaded.error();
        } else if (!options.buildOnly) {
            s = verifyAndTime(t, *loaded);
        } else if (loaded->built) {
            t.provider->storeUnverified(*t.p, t.out, *loaded);
        }
    }
    if (!s) {
        fallBack(t, s.error());
    }
    if (!options.dumpDir.empty()) {
        // A dump that cannot be written costs the dump, not the region.
        (void)detail::dumpRegion(options.dumpDir, *t.p, t.out);
    }
    if (options.keepLoaded && t.p->loadedCode && t.out.state != RegionState::Fallback) {
        t.out.loaded = keepLoaded(std::move(t.p));
    }
}

// The region's artifact: its hit; for a region whose key an earlier one looked up, a lookup now
// (a hit on that region's entry, or — when it was not stored — the same build); else its build.
Result<RegionCompiler::Impl::Loaded> RegionCompiler::Impl::artifact(RegionTask& t)
{
    if (t.deferred) {
        if (Status s = lookUp(t, true); !s) {
            return s.error();
        }
    }
    if (t.hit) {
        return std::move(*t.hit);
    }
    if (!t.build) {
        // Its key missed only now (the earlier region's lookup failed or its entry went, or the
        // other process building it stored nothing): built here, while no other build or
        // timing runs.
        t.build = t.provider->newBuild(t.p);
        if (t.build->dir) {
            detail::runBuild(*t.build, CancelToken::none());
        }
    }
    const bool load = !options.buildOnly;
    auto built = t.provider->built(*t.p, t.out, *t.build, load);
    if (built) {
        t.clock.add("build", t.out.compileMs);
        if (load) {
            t.clock.mark("load");
        }
    }
    return built;
}

// Verification against eager (a mismatch marks the entry bad) and timing; a region slower than
// eager is dropped with its numbers. An Error means: fall back to eager.
Status RegionCompiler::Impl::verifyAndTime(RegionTask& t, const Loaded& loaded)
{
    PreparedRegion& p = *t.p;
    RegionOutcome& out = t.out;
    out.resources = p.code->resources();
    std::vector<at::Tensor> got;
    if (Status s = timeBoth(p, loaded, out, got); !s) {
        return s;
    }
    t.clock.mark("run_compiled");
    const detail::Comparison c = detail::compareOutputs(got, t.eagerOut, p.inputs, reference64(p));
    out.maxAbsErr = c.maxAbsErr;
    out.bytesMoved = bytesOf(p.inputs) + bytesOf(got);
    t.provider->record(p, out, loaded, c);
    t.clock.mark("verify");
    if (!c.ok) {
        return failWith(out, Reason::FallbackVerifyFailed,
                        makeError(ErrorCode::Runtime,
                                  "verification against eager failed: " + c.problem));
    }
    if (lostToEager(options, out)) {
        const auto numbers = [&out] {
            return "compiled " + msText(out.compiledMs) + " ms (spread " +
                   msText(out.compiledSpreadMs) + ") vs eager " + msText(out.eagerMs) +
                   " ms (spread " + msText(out.eagerSpreadMs) + ")";
        };
        std::string verdict = numbers();
        // One timing can lose to a noisy moment, and the cache keeps the verdict for this
        // device: a loss measured now is measured again, and only a second loss drops it.
        if (!out.timingsFromEntry) {
            std::vector<at::Tensor> eagerAgain;
            std::vector<at::Tensor> compiledAgain;
            if (Status s = timeEager(p, out, eagerAgain); !s) {
                return s;
            }
            if (Status s = timeCompiled(p, *loaded.code, out, compiledAgain); !s) {
                return s;
            }
            verdict = numbers() + "; first timed " + verdict;
        }
        if (out.timingsFromEntry || lostToEager(options, out)) {
            t.provider->rejectSlower(out, verdict);
            return failWith(out, Reason::SlowerThanEager, makeError(ErrorCode::Runtime, verdict));
        }
    }
    out.outputs.clear();
    for (auto& x : got) {
        out.outputs.push_back(exec::makeHandle(std::move(x)));
    }
    p.loadedCode = loaded.code;
    saveTimings(out);
    return {};
}

// A fallback after eager ran reports eager's time as its own (timed now unless it was); the
// fallback's reason stays its own whatever that timing meets.
void RegionCompiler::Impl::fallBack(RegionTask& t, const Error& e)
{
    RegionOutcome& out = t.out;
    if (t.eagerRan && out.timing.empty()) {
        const Reason why = out.reason;
        std::vector<at::Tensor> unused;
        (void)timeEager(*t.p, out, unused);
        out.reason = why;
    }
    markFallback(out, e);
    out.compiledMs = out.eagerMs;
    out.compiledSpreadMs = out.eagerSpreadMs;
    out.compiledBackToBackMs = out.eagerBackToBackMs;
}

} // namespace fxs::compile
