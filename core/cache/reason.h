// Why a region was a cache hit, a miss, bypassed the cache or fell back to LibTorch: one
// numbered, append-only enum (ccache's statistics are the model). Persisted by number (the
// store's statistics, a bad entry's status), printed by name, and the one source of every
// outcome headline. Backends append their own reasons; numbers are never reused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::cache {

struct MissExplanation; // cache_explain.h

enum class Reason : std::uint16_t {
    None = 0, // not decided (never persisted)
    // Hits: a stored artifact was loaded.
    Hit = 1,
    HitAfterWait = 2, // another process built it while this one waited for its build lock
    // Misses: built now and stored; the reason names what differs from the nearest entry.
    MissCold = 3,
    MissRegion = 4,
    MissInputDtype = 5,
    MissInputShape = 6,
    MissInputStrides = 7,
    MissInputDevice = 8,
    MissInputs = 9, // inputs added or removed
    MissOptions = 10,
    MissCompiler = 11,
    MissLibtorch = 12,
    MissCodegenVersion = 13,
    MissCpuIsa = 14,
    MissSchedule = 15,
    MissCorruptEntry = 16, // the entry failed its checksums and was removed
    MissOther = 17,
    // Bypasses: compiled, but the cache neither served nor stored it.
    BypassNoCache = 18,    // no cache store was given
    BypassReadOnly = 19,   // the cache cannot be written (e.g. disk full): built, not stored
    BypassCacheError = 20, // the cache could not be read (damaged database)
    // Fallbacks: the region ran on LibTorch.
    FallbackUnsupportedOp = 21,
    FallbackUnsupportedDtype = 22,
    FallbackNotLowered = 23, // lowered ops, but not with these shapes or arguments
    FallbackInputDevice = 24,
    FallbackInputNotTensor = 25,
    FallbackEagerFailed = 26,
    FallbackBuildFailed = 27,
    FallbackCompilerTimeout = 28,
    FallbackCompilerMissing = 29,
    FallbackLoadFailed = 30,
    FallbackRunFailed = 31,
    FallbackVerifyFailed = 32,
    FallbackKnownBad = 33, // the entry failed verification before and is never used
    FallbackDiskFull = 34,
    FallbackCacheError = 35,
    FallbackInternal = 36,
    // The CUDA backend (issue 14).
    MissTargetDevice = 37,  // built for another device kind (cpu vs cuda)
    MissCudaArch = 38,      // built for another GPU architecture ("sm_80 -> sm_90")
    MissNvrtcVersion = 39,
    MissCudaLaunch = 40,    // grids, blocks or the printer's tuning changed
    FallbackCudaUnavailable = 41, // no NVRTC, driver or GPU for a CUDA region
    // The remote tier (core/remote, issue 17).
    RemoteHit = 42,          // a checked remote entry was stored locally and loaded
    MissRemoteChecksum = 43, // the remote entry failed its checksum (or was incomplete): rebuilt
    MissRemoteHmac = 44,     // the remote entry's HMAC did not match the team key: rebuilt
    MissRemoteNoKey = 45,    // a remote entry exists, but without a team key it is never loaded
    // Keep only what wins (issue 27): the compiled region measured slower than eager beyond the
    // spread of both; its entry keeps the verdict (per device: the key names the target).
    SlowerThanEager = 46,
};

enum class ReasonCategory : std::uint8_t { None, Hit, Miss, Bypass, Fallback };

struct ReasonInfo {
    Reason reason;
    ReasonCategory category;
    std::string_view name;        // "miss_input_dtype": what JSON and statistics print
    std::string_view description; // a sentence for users and the README
};

// Every reason in number order (None left out).
const std::vector<ReasonInfo>& allReasons();
const ReasonInfo& reasonInfo(Reason r); // unknown numbers map to None's entry
std::string_view reasonName(Reason r);
ReasonCategory reasonCategory(Reason r);
// The reason of a persisted number; None for numbers this build does not know.
Reason reasonFromCode(int code);

// The region cache's headline of a reason: keydiff's headline maker with "<hit|miss|fallback>:
// <detail>", the detail defaulting to the reason's description. Bypasses read as misses
// ("miss: no cache").
std::string headline(Reason r, std::string_view detail = {});

// A miss as a reason and the headline's detail: the change that matters most to a user
// (inputs first, the region graph last, "(+n more)" for the others), else cold.
struct MissCause {
    Reason reason = Reason::MissCold;
    std::string detail; // "input 0 dtype float32 → float64 (+1 more)"
};
MissCause missCause(const MissExplanation& explanation);

} // namespace fxs::cache
