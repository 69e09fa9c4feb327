#include "core/compile/target_code.h"

#include "core/cache/cache_paths.h"
#include "core/codegen/cpp_printer.h"
#include "core/codegen/source_text.h"
#include "core/compile/cuda_code.h"
#include "core/compile/kernel_call.h"
#include "core/compile/shared_library.h"
#include "core/util/digest.h"
#include "core/util/file_reader.h"

namespace fxs::compile::detail {
namespace {

// Artifacts are read as stored (a file that starts like gzip is not inflated).
const ReadOptions kRawBytes{kDefaultMaxFileBytes, false};

} // namespace

Result<std::unique_ptr<TargetCode>> TargetCode::create(const CompileOptions& options,
                                                       int cudaDevice,
                                                       const RegionSchedule& schedule)
{
    std::unique_ptr<TargetCode> t(new TargetCode());
    t->m_schedule = &schedule;
    t->m_compiler = options.compiler;
    if (options.device == TargetDevice::Cuda) {
        auto target = cudaTarget(cudaDevice, options.cudaArch, options.cudaTuning);
        if (!target) {
            return target.error();
        }
        t->m_cuda = *target;
        t->m_kernels = codegen::printCudaSchedule(schedule.programs, options.cudaTuning);
        t->m_source = t->m_kernels.source;
    } else {
        auto id = identifyCompiler(options.compiler);
        if (!id) {
            return id.error();
        }
        t->m_identity = *id;
        t->m_source = codegen::printSchedule(schedule.programs);
    }
    // The printers emit no input text (source_text.h); this is the last check before a compiler
    // sees the source: a source that fails it is never built.
    if (auto problem = codegen::source::sourceProblem(t->m_source)) {
        return makeError(ErrorCode::Internal, "the generated source failed its check: " + *problem);
    }
    return t;
}

std::string TargetCode::target() const
{
    return m_cuda ? "sm_" + std::to_string(m_cuda->arch) : "host";
}

void TargetCode::addKeyComponents(cache::KeyBuilder& key) const
{
    // The source itself is keyed: an entry is only ever served for the very source it was built
    // from, whatever input text or graph meta went into printing it.
    key.add(cache::kLabelSource, "sha256=" + toHex(sha256(m_source)));
    if (m_cuda) {
        addCudaKeyComponents(key, *m_cuda, m_kernels);
        return;
    }
    key.add(cache::kLabelCompiler, m_identity.keyText()).add(cache::kLabelIsa, m_identity.isa);
}

cache::ArtifactKind TargetCode::binaryKind() const
{
    return m_cuda ? cache::ArtifactKind::Cubin : cache::ArtifactKind::SharedObject;
}

cache::Artifact TargetCode::artifact(std::string binary) const
{
    if (!m_cuda) {
        return cache::Artifact::hostBuild(std::move(binary), m_source);
    }
    cache::Artifact a;
    a.files.push_back({cache::ArtifactKind::Cubin, std::move(binary)});
    a.files.push_back({cache::ArtifactKind::CudaSource, m_source});
    return a;
}

Result<BuiltArtifact> TargetCode::build(const std::string& workDir, BuiltArtifact& failed,
                                        const CancelToken& cancel) const
{
    if (m_cuda) {
        auto out = m_cuda->nvrtc->compile(m_source, "region.cu", m_cuda->arch,
                                           m_kernels.nvrtcOptions);
        if (cancel.isCancelled()) {
            return makeError(ErrorCode::Cancelled, "the build was cancelled");
        }
        if (!out) {
            failed.diagnostics = out.error().found;
            return out.error();
        }
        return BuiltArtifact{std::move(out->image), {}, out->ms, false, {}, out->log};
    }
    const std::string stem = workDir + "/region";
    if (Status s = cache::writePrivateFile(stem + ".cpp", m_source); !s) {
        return s.error();
    }
    auto b = buildSharedObject(m_compiler, stem + ".cpp", stem + ".so", cancel);
    if (!b) {
        return b.error();
    }
    if (b->cancelled) {
        return makeError(ErrorCode::Cancelled, "the build was cancelled");
    }
    failed.ms = b->ms;
    if (!b->ok) {
        failed.timedOut = b->timedOut;
        failed.command = b->command;
        failed.diagnostics = b->diagnostics;
        return makeError(ErrorCode::Runtime, b->timedOut ? "the host compiler timed out"
                                                         : "the host compiler failed (exit " +
                                                               std::to_string(b->exitCode) + ")");
    }
    auto bytes = readFile(stem + ".so", kRawBytes);
    if (!bytes) {
        return bytes.error();
    }
    return BuiltArtifact{std::move(*bytes), stem + ".so", b->ms, false, b->command,
                         b->diagnostics};
}

Result<std::shared_ptr<GeneratedCode>> TargetCode::loadBuilt(const BuiltArtifact& built) const
{
    return m_cuda ? loadImage(built.bytes) : loadFile(built.path);
}

Result<std::shared_ptr<GeneratedCode>> TargetCode::loadFile(const std::string& path) const
{
    if (m_cuda) {
        auto image = readFile(path, kRawBytes);
        if (!image) {
            return image.error();
        }
        return loadImage(*image);
    }
    auto lib = SharedLibrary::load(path, int(m_schedule->programs.size()));
    if (!lib) {
        return lib.error();
    }
    return std::shared_ptr<GeneratedCode>(std::make_shared<HostCode>(*lib));
}

Result<std::shared_ptr<GeneratedCode>> TargetCode::loadImage(const std::string& image) const
{
    auto code = CudaCode::load(m_cuda->device, image, m_kernels);
    if (!code) {
        return code.error();
    }
    m_resources = (*code)->resources();
    return std::shared_ptr<GeneratedCode>(std::move(*code));
}

} // namespace fxs::compile::detail
