// INTERNAL to core/compile (LibTorch): a region schedule's generated code for one target —
// the printed source (C++ for the host, CUDA for a GPU), the target's cache key components, the
// build (host compiler -> shared object, NVRTC -> cubin) and the loading of an artifact into
// runnable GeneratedCode, either just built or from the file the cache store materialized. Writes
// no file of its own outside the build directory it is given; the artifact provider owns the
// cache and the region compiler the runs.
#pragma once

#include "core/cache/cache_key.h"
#include "core/cache/cache_store.h"
#include "core/compile/cuda_target.h"
#include "core/compile/compile_types.h"
#include "core/compile/region_schedule.h"
#include "core/compile/schedule_runner.h"

#include <memory>
#include <optional>
#include <string>

namespace fxs::compile::detail {

struct BuiltArtifact {
    std::string bytes;       // shared object or cubin
    std::string path;        // host: the shared object in the build directory ("" for CUDA)
    double ms = 0;           // build time
    bool timedOut = false;   // a failed build: the compiler timed out
    std::string command;     // a failed host build: the command line
    std::string diagnostics; // the compiler's messages (NVRTC's log, the host compiler's output)
};

class TargetCode {
public:
    // cudaDevice: the inputs' device ordinal, or -1 (CUDA build-only without a GPU; ignored for
    // the CPU). Error::Unsupported when the target's compiler cannot be found.
    static Result<std::unique_ptr<TargetCode>> create(const CompileOptions& options, int cudaDevice,
                                                      const RegionSchedule& schedule);

    const std::string& source() const { return m_source; }
    std::string target() const; // "host" or "sm_90"
    bool cuda() const { return m_cuda.has_value(); }
    // source (its SHA-256), then compiler/cpu_isa (host) or device/cuda_arch/nvrtc_version/launch
    // (CUDA).
    void addKeyComponents(cache::KeyBuilder& key) const;
    // The artifact's binary file kind (shared object, cubin) and what the store keeps of a build.
    cache::ArtifactKind binaryKind() const;
    cache::Artifact artifact(std::string binary) const;

    // Builds the source; host work files go to workDir (the shared object stays there for
    // loadBuilt). Error::Runtime with `failed` filled when the compiler rejects the source or
    // times out; Error::Cancelled when `cancel` fired (the host compiler is killed; NVRTC, which
    // cannot be stopped, finishes first). Thread-safe: touches nothing but workDir, this
    // object's source and the compiler (a child process, or NVRTC with one program per call),
    // so several regions' builds may run at once (region_build_pool.h).
    Result<BuiltArtifact> build(const std::string& workDir, BuiltArtifact& failed,
                                const CancelToken& cancel = CancelToken::none()) const;
    // Loads what build() returned, or the binary file the store materialized.
    Result<std::shared_ptr<GeneratedCode>> loadBuilt(const BuiltArtifact& built) const;
    Result<std::shared_ptr<GeneratedCode>> loadFile(const std::string& path) const;
    // CUDA: registers and local bytes of the loaded kernels (after a load); "" for the host.
    std::string resources() const { return m_resources; }

private:
    Result<std::shared_ptr<GeneratedCode>> loadImage(const std::string& image) const;

    const RegionSchedule* m_schedule = nullptr;
    CompilerConfig m_compiler;
    CompilerIdentity m_identity;
    std::optional<CudaTarget> m_cuda;
    codegen::CudaSchedule m_kernels;
    std::string m_source;
    mutable std::string m_resources;
};

} // namespace fxs::compile::detail
