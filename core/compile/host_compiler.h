// The host C++ compiler that builds generated region sources into shared objects: which
// compiler and flags (they are part of the cache key), and one build as a child process with a
// timeout and captured diagnostics. Not the code generator and not the loader.
#pragma once

#include "core/util/cancel.h"
#include "core/util/result.h"

#include <string>
#include <vector>

namespace fxs::compile {

struct CompilerConfig {
    std::string path; // empty: $FXSCOPE_CXX, else "c++" from PATH
    // -fno-math-errno (not -ffast-math): lets g++ call libmvec's simd clones while keeping IEEE
    // NaN/Inf arithmetic, which verification checks against eager.
    std::vector<std::string> flags = {"-O3", "-march=native", "-fopenmp", "-fno-math-errno",
                                      "-shared", "-fPIC"};
    std::vector<std::string> libs = {"-lmvec"};
    int timeoutMs = 60000;
};

struct CompilerIdentity {
    std::string path;    // as resolved ("/usr/bin/c++" or the override)
    std::string version; // "12.2.0" (-dumpfullversion)
    std::string flags;   // flags and libs joined by spaces
    std::string isa;     // what -march=native means here: "x86_64 march=cooperlake avx512f ..."
    // Canonical text of the compiler component of the cache key.
    std::string keyText() const;
};

// Runs the compiler once for its version and target (cached per config in the process).
Result<CompilerIdentity> identifyCompiler(const CompilerConfig& config);

struct BuildOutcome {
    bool ok = false;
    bool timedOut = false;
    bool cancelled = false; // killed because the cancel token fired
    int exitCode = -1;
    std::string command;     // the command line as run
    std::string diagnostics; // the compiler's stdout+stderr
    double ms = 0;
};

// Compiles sourcePath into outPath (a shared object). A failed compile is a BuildOutcome with
// ok == false; Error::Io only when the compiler cannot be started. The compiler is killed when
// `cancel` fires. Thread-safe: several builds may run at once (region_build_pool.h).
Result<BuildOutcome> buildSharedObject(const CompilerConfig& config, const std::string& sourcePath,
                                       const std::string& outPath,
                                       const CancelToken& cancel = CancelToken::none());

} // namespace fxs::compile
