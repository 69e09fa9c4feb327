#include "core/cache/reason.h"

#include "core/cache/cache_explain.h"
#include "core/keydiff/headline.h"
#include "core/util/strings.h"

namespace fxs::cache {
namespace {

using C = ReasonCategory;

// Append only: a new reason gets the next number, and a line here.
const std::vector<ReasonInfo> kReasons = {
    {Reason::Hit, C::Hit, "hit", "a verified entry was loaded"},
    {Reason::HitAfterWait, C::Hit, "hit_after_wait",
     "another process built the region while this one waited for it"},
    {Reason::MissCold, C::Miss, "miss_cold", "cold (no cache entry to compare with)"},
    {Reason::MissRegion, C::Miss, "miss_region", "the region's graph changed"},
    {Reason::MissInputDtype, C::Miss, "miss_input_dtype", "an input's dtype changed"},
    {Reason::MissInputShape, C::Miss, "miss_input_shape", "an input's sizes changed"},
    {Reason::MissInputStrides, C::Miss, "miss_input_strides", "an input's strides changed"},
    {Reason::MissInputDevice, C::Miss, "miss_input_device", "an input's device changed"},
    {Reason::MissInputs, C::Miss, "miss_inputs", "inputs were added or removed"},
    {Reason::MissOptions, C::Miss, "miss_options", "the region's options changed"},
    {Reason::MissCompiler, C::Miss, "miss_compiler", "the host compiler or its flags changed"},
    {Reason::MissLibtorch, C::Miss, "miss_libtorch", "the LibTorch version changed"},
    {Reason::MissCodegenVersion, C::Miss, "miss_codegen_version",
     "fxscope's code generator changed"},
    {Reason::MissCpuIsa, C::Miss, "miss_cpu_isa", "the CPU's instruction set changed"},
    {Reason::MissSchedule, C::Miss, "miss_schedule",
     "the split into generated and LibTorch steps changed"},
    {Reason::MissCorruptEntry, C::Miss, "miss_corrupt_entry",
     "the stored entry failed its checksums and was rebuilt"},
    {Reason::MissOther, C::Miss, "miss_other", "no stored entry has this key"},
    {Reason::BypassNoCache, C::Bypass, "bypass_no_cache", "no cache"},
    {Reason::BypassReadOnly, C::Bypass, "bypass_read_only",
     "the cache cannot be written (built, not stored)"},
    {Reason::BypassCacheError, C::Bypass, "bypass_cache_error",
     "the cache could not be read (built, not stored)"},
    {Reason::FallbackUnsupportedOp, C::Fallback, "fallback_unsupported_op",
     "no node of the region is an op the code generator lowers"},
    {Reason::FallbackUnsupportedDtype, C::Fallback, "fallback_unsupported_dtype",
     "the region's dtypes are not supported by the code generator"},
    {Reason::FallbackNotLowered, C::Fallback, "fallback_not_lowered",
     "the code generator does not lower the region's shapes or arguments"},
    {Reason::FallbackInputDevice, C::Fallback, "fallback_input_device",
     "an input is on a device no code generator here targets"},
    {Reason::FallbackInputNotTensor, C::Fallback, "fallback_input_not_tensor",
     "an input is not a tensor"},
    {Reason::FallbackEagerFailed, C::Fallback, "fallback_eager_failed",
     "the eager engine cannot run the region (nothing to verify against)"},
    {Reason::FallbackBuildFailed, C::Fallback, "fallback_build_failed",
     "the compiler failed on the generated code"},
    {Reason::FallbackCompilerTimeout, C::Fallback, "fallback_compiler_timeout",
     "the compiler timed out"},
    {Reason::FallbackCompilerMissing, C::Fallback, "fallback_compiler_missing",
     "the compiler cannot be run"},
    {Reason::FallbackLoadFailed, C::Fallback, "fallback_load_failed",
     "the built artifact cannot be loaded"},
    {Reason::FallbackRunFailed, C::Fallback, "fallback_run_failed",
     "the compiled region failed when run"},
    {Reason::FallbackVerifyFailed, C::Fallback, "fallback_verify_failed",
     "the compiled region's results differ from eager"},
    {Reason::FallbackKnownBad, C::Fallback, "fallback_known_bad",
     "the stored artifact failed verification before; it is never used"},
    {Reason::FallbackDiskFull, C::Fallback, "fallback_disk_full",
     "disk full: the region cannot be built"},
    {Reason::FallbackCacheError, C::Fallback, "fallback_cache_error",
     "the cache failed while building the region"},
    {Reason::FallbackInternal, C::Fallback, "fallback_internal", "an internal error in fxscope"},
    {Reason::MissTargetDevice, C::Miss, "miss_target_device",
     "the device kind the region is built for changed"},
    {Reason::MissCudaArch, C::Miss, "miss_cuda_arch", "the GPU architecture changed"},
    {Reason::MissNvrtcVersion, C::Miss, "miss_nvrtc_version", "the NVRTC version changed"},
    {Reason::MissCudaLaunch, C::Miss, "miss_cuda_launch",
     "the CUDA launch configuration changed"},
    {Reason::FallbackCudaUnavailable, C::Fallback, "fallback_cuda_unavailable",
     "CUDA is not available here (no NVRTC, driver or GPU)"},
    {Reason::RemoteHit, C::Hit, "remote_hit",
     "a remote entry passed its checksum and HMAC, was stored locally and loaded"},
    {Reason::MissRemoteChecksum, C::Miss, "miss_remote_checksum",
     "the remote entry failed its checksum: rebuilt, never loaded"},
    {Reason::MissRemoteHmac, C::Miss, "miss_remote_hmac",
     "the remote entry's HMAC does not match the team key: rebuilt, never loaded"},
    {Reason::MissRemoteNoKey, C::Miss, "miss_remote_no_key",
     "a remote entry exists, but without a team key remote artifacts are never loaded"},
    {Reason::SlowerThanEager, C::Fallback, "slower_than_eager",
     "the compiled region was slower than eager beyond the spread of both; it is not used"},
};

const ReasonInfo kNone{Reason::None, C::None, "none", ""};

Reason reasonOfChange(const ComponentChange& c)
{
    if (startsWith(c.component, "input")) {
        if (c.change != ChangeKind::Changed) {
            return Reason::MissInputs;
        }
        return c.field == "dtype"     ? Reason::MissInputDtype
               : c.field == "sizes"   ? Reason::MissInputShape
               : c.field == "strides" ? Reason::MissInputStrides
               : c.field == "device"  ? Reason::MissInputDevice
                                      : Reason::MissInputs;
    }
    static const std::vector<std::pair<std::string_view, Reason>> kByLabel = {
        {kLabelRegion, Reason::MissRegion},   {kLabelOptions, Reason::MissOptions},
        {kLabelCompiler, Reason::MissCompiler}, {kLabelTorch, Reason::MissLibtorch},
        {kLabelCodegen, Reason::MissCodegenVersion}, {kLabelIsa, Reason::MissCpuIsa},
        {kLabelSchedule, Reason::MissSchedule}, {kLabelDevice, Reason::MissTargetDevice},
        {kLabelCudaArch, Reason::MissCudaArch}, {kLabelNvrtc, Reason::MissNvrtcVersion},
        {kLabelLaunch, Reason::MissCudaLaunch}};
    for (const auto& [label, reason] : kByLabel) {
        if (c.component == label) {
            return reason;
        }
    }
    return Reason::MissOther;
}

} // namespace

const std::vector<ReasonInfo>& allReasons() { return kReasons; }

const ReasonInfo& reasonInfo(Reason r)
{
    const auto i = static_cast<std::size_t>(r);
    // kReasons[n - 1] is reason n: the table is in number order without gaps.
    return i >= 1 && i <= kReasons.size() && kReasons[i - 1].reason == r ? kReasons[i - 1]
                                                                          : kNone;
}

std::string_view reasonName(Reason r) { return reasonInfo(r).name; }
ReasonCategory reasonCategory(Reason r) { return reasonInfo(r).category; }

Reason reasonFromCode(int code)
{
    return reasonInfo(static_cast<Reason>(code)).reason;
}

std::string headline(Reason r, std::string_view detail)
{
    const ReasonInfo& info = reasonInfo(r);
    const keydiff::Outcome outcome = info.category == C::Hit        ? keydiff::Outcome::Hit
                                     : info.category == C::Fallback ? keydiff::Outcome::Fallback
                                                                    : keydiff::Outcome::Miss;
    return keydiff::headline(outcome, detail.empty() ? info.description : detail);
}

MissCause missCause(const MissExplanation& ex)
{
    if (ex.cold) {
        return {Reason::MissCold, std::string(reasonInfo(Reason::MissCold).description)};
    }
    if (ex.changes.empty()) {
        return {Reason::MissOther,
                "entry " + ex.nearestKey.substr(0, 12) + " has the same components"};
    }
    // The change the explainer's headline names, with the same count.
    const ComponentChange* first = keydiff::leadingChange(ex.changes);
    return {reasonOfChange(*first),
            describeChange(*first) + keydiff::countSuffix(ex.changes.size(), 0,
                                                          keydiff::CountStyle::PlusMore)};
}

} // namespace fxs::cache
