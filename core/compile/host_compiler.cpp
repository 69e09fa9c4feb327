#include "core/compile/host_compiler.h"

#include "core/compile/child_process.h"
#include "core/util/strings.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

namespace fxs::compile {
namespace {

std::string resolvePath(const CompilerConfig& c)
{
    if (!c.path.empty()) {
        return c.path;
    }
    if (const char* env = std::getenv("FXSCOPE_CXX"); env && *env) {
        return env;
    }
    return "c++";
}

std::string joined(const CompilerConfig& c)
{
    std::vector<std::string> all(c.flags);
    all.insert(all.end(), c.libs.begin(), c.libs.end());
    return join(all, " ");
}

// The CPU features that decide which code -march=native produces and which libmvec variant
// runs; from /proc/cpuinfo (first processor).
std::string cpuFeatures()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (startsWith(line, "flags")) {
            static const std::set<std::string> kKept = {"avx", "avx2", "fma", "f16c",
                                                        "avx512f", "avx512bw", "avx512vl",
                                                        "avx512dq", "avx512_fp16", "avx512_bf16",
                                                        "amx_tile", "sse4_2", "asimd", "sve"};
            std::string out;
            std::istringstream words(line.substr(line.find(':') + 1));
            for (std::string w; words >> w;) {
                if (kKept.count(w)) {
                    out += " " + w;
                }
            }
            return out;
        }
    }
    return "";
}

} // namespace

std::string CompilerIdentity::keyText() const
{
    return "path=" + path + ";version=" + version + ";flags=" + flags;
}

Result<CompilerIdentity> identifyCompiler(const CompilerConfig& config)
{
    static std::mutex mutex;
    static std::map<std::string, CompilerIdentity> cache;
    const std::string path = resolvePath(config);
    const std::string cacheKey = path + "\n" + joined(config);
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(cacheKey); it != cache.end()) {
        return it->second;
    }
    auto v = runProcess({path, "-dumpfullversion"}, 10000);
    if (!v) {
        return v.error();
    }
    if (v->exitCode != 0) {
        return makeError(ErrorCode::Runtime, "the host compiler does not answer -dumpfullversion",
                         path);
    }
    CompilerIdentity id{path, std::string(trim(v->output)), joined(config), {}};
    // What -march=native resolves to (g++ prints "-march=  cooperlake").
    auto t = runProcess({path, "-march=native", "-Q", "--help=target"}, 10000);
    std::string march = "unknown";
    if (t && t->exitCode == 0) {
        std::istringstream lines(t->output);
        for (std::string line; std::getline(lines, line);) {
            const auto l = trim(line);
            if (startsWith(l, "-march=")) {
                march = std::string(trim(l.substr(7)));
                break;
            }
        }
    }
#if defined(__x86_64__)
    id.isa = "x86_64 march=" + march + cpuFeatures();
#else
    id.isa = "other march=" + march + cpuFeatures();
#endif
    cache[cacheKey] = id;
    return id;
}

Result<BuildOutcome> buildSharedObject(const CompilerConfig& config, const std::string& sourcePath,
                                       const std::string& outPath, const CancelToken& cancel)
{
    std::vector<std::string> argv{resolvePath(config)};
    argv.insert(argv.end(), config.flags.begin(), config.flags.end());
    argv.insert(argv.end(), {sourcePath, "-o", outPath});
    argv.insert(argv.end(), config.libs.begin(), config.libs.end());
    auto r = runProcess(argv, config.timeoutMs, cancel);
    if (!r) {
        return r.error();
    }
    BuildOutcome b;
    b.cancelled = r->cancelled;
    b.command = commandLine(argv);
    b.diagnostics = std::move(r->output);
    b.exitCode = r->exitCode;
    b.timedOut = r->timedOut;
    b.ms = r->ms;
    b.ok = r->exitCode == 0 && !r->timedOut && !r->cancelled;
    return b;
}

} // namespace fxs::compile
