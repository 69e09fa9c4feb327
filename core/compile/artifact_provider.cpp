#include "core/compile/artifact_provider.h"

#include "core/cache/cache_explain.h"
#include "core/cache/cache_paths.h"
#include "core/compile/host_compiler.h"
#include "core/util/file_reader.h"

#include <chrono>

namespace fxs::compile::detail {
namespace {

// Artifacts are read as stored (a file that starts like gzip is not inflated).
const ReadOptions kRawBytes{kDefaultMaxFileBytes, false};

using Clock = std::chrono::steady_clock;
using cache::Reason;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

Reason buildFailureReason(const Error& e)
{
    return e.code == ErrorCode::Io ? Reason::FallbackCacheError : Reason::FallbackInternal;
}

} // namespace

Result<ArtifactProvider::Loaded> ArtifactProvider::obtain(PreparedRegion& p, RegionOutcome& out)
{
    if (!m_options.store) {
        out.reason = Reason::BypassNoCache;
        out.headline = cache::headline(out.reason);
        return build(p, out);
    }
    auto cached = fromCache(p, out);
    if (!cached) {
        return cached.error();
    }
    if (*cached) {
        return Loaded{*cached, false, {}};
    }
    return build(p, out);
}

// A hit loads the stored artifact; a miss explains itself and returns null.
Result<std::shared_ptr<SharedLibrary>> ArtifactProvider::fromCache(PreparedRegion& p,
                                                                   RegionOutcome& out)
{
    const auto t0 = Clock::now();
    cache::CacheStore& store = *m_options.store;
    auto r = store.lookup(out.key);
    if (!r) {
        return failWith(out, Reason::FallbackCacheError, r.error());
    }
    if (r->state == cache::LookupState::Hit) {
        const cache::EntryInfo& e = r->entry->info;
        if (e.status == cache::EntryStatus::Bad) {
            return failWith(out, Reason::FallbackKnownBad,
                            makeError(ErrorCode::Runtime,
                                      "the cached artifact failed verification before (" +
                                          e.statusReason + "); it is never used"));
        }
        auto path = store.materialize(*r->entry, cache::ArtifactKind::SharedObject);
        if (!path) {
            return failWith(out, Reason::FallbackLoadFailed, path.error());
        }
        auto lib = SharedLibrary::load(*path, int(p.schedule.programs.size()));
        if (!lib) {
            return failWith(out, Reason::FallbackLoadFailed, lib.error());
        }
        out.state = RegionState::Hit;
        out.reason = Reason::Hit;
        out.headline = cache::hitHeadline(e);
        out.compileMs = msSince(t0);
        return lib;
    }
    if (r->state == cache::LookupState::Corrupt) {
        out.reason = Reason::MissCorruptEntry;
        out.headline = cache::headline(out.reason, "the cached entry was corrupt (" + r->problem +
                                                       "); rebuilt");
        return std::shared_ptr<SharedLibrary>();
    }
    auto why = cache::explainMiss(store, p.key.components());
    const cache::MissCause cause = why ? cache::missCause(*why) : cache::MissCause{};
    out.reason = cause.reason;
    out.headline = cache::headline(cause.reason, cause.detail);
    return std::shared_ptr<SharedLibrary>();
}

Result<ArtifactProvider::Loaded> ArtifactProvider::build(PreparedRegion& p, RegionOutcome& out)
{
    out.state = RegionState::Miss;
    // The store owns the build directory (gc removes it if this process dies); without a
    // store it is a temporary one. Either way it goes when this build is loaded: a loaded
    // shared object stays mapped after its file is unlinked.
    auto dir = m_options.store
                   ? m_options.store->buildDirectory()
                   : cache::ScratchDir::create(cache::tempDirectory(), "fxscope-build-");
    if (!dir) {
        return failWith(out, buildFailureReason(dir.error()), dir.error());
    }
    const std::string stem = dir->path() + "/region";
    if (Status s = cache::writePrivateFile(stem + ".cpp", p.source); !s) {
        return failWith(out, buildFailureReason(s.error()), s.error());
    }
    auto b = buildSharedObject(m_options.compiler, stem + ".cpp", stem + ".so");
    if (!b) {
        return failWith(out, Reason::FallbackCompilerMissing, b.error());
    }
    out.compileMs = b->ms;
    if (!b->ok) {
        out.buildCommand = b->command;
        out.buildDiagnostics = b->diagnostics;
        return failWith(out,
                        b->timedOut ? Reason::FallbackCompilerTimeout : Reason::FallbackBuildFailed,
                        makeError(ErrorCode::Runtime,
                                  b->timedOut ? "the host compiler timed out"
                                              : "the host compiler failed (exit " +
                                                    std::to_string(b->exitCode) + ")"));
    }
    Loaded loaded;
    loaded.built = true;
    auto bytes = readFile(stem + ".so", kRawBytes);
    if (!bytes) {
        return failWith(out, Reason::FallbackLoadFailed, bytes.error());
    }
    loaded.soBytes = std::move(*bytes);
    auto lib = SharedLibrary::load(stem + ".so", int(p.schedule.programs.size()));
    if (!lib) {
        return failWith(out, Reason::FallbackLoadFailed, lib.error());
    }
    loaded.lib = *lib;
    return loaded;
}

void ArtifactProvider::record(PreparedRegion& p, RegionOutcome& out, const Loaded& loaded,
                              const Comparison& verdict)
{
    cache::CacheStore* store = m_options.store;
    if (!store) {
        return;
    }
    // A store failure costs the next run a rebuild, not this run its result.
    if (!loaded.built) {
        if (!verdict.ok) {
            (void)store->markBad(out.key, Reason::FallbackVerifyFailed, verdict.problem);
        }
        return;
    }
    cache::EntryInfo e;
    e.key = out.key;
    e.components = p.key.components();
    e.regionDigest = cache::regionDigest(e.components);
    e.title = out.id + " (" + std::to_string(out.nodes) + " nodes)";
    e.compileMs = out.compileMs;
    e.status = verdict.ok ? cache::EntryStatus::Verified : cache::EntryStatus::Bad;
    e.statusCode = verdict.ok ? Reason::None : Reason::FallbackVerifyFailed;
    e.statusReason = verdict.problem;
    (void)store->insert(e, cache::Artifact::hostBuild(loaded.soBytes, p.source));
}

} // namespace fxs::compile::detail
