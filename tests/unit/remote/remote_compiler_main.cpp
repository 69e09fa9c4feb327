// Helper process for tst_remote_compile's multi-process test: compiles the small region with
// its own local store (DIR/cache.db) and the remote tier at URL (team key from the
// environment), and prints "<state> <reason>" (e.g. "hit remote_hit"); warnings go to stderr.
// Usage: remote_compiler DIR URL. Exit 0 when the region compiled (hit or miss).
#include "tests/unit/remote/remote_compile_support.h"

#include <cstdio>

int main(int argc, char** argv)
{
    using namespace fxs;
    if (argc != 3) {
        std::fprintf(stderr, "usage: remote_compiler DIR URL\n");
        return 2;
    }
    auto store = test::openLocalStore(argv[1]);
    remote::RemoteOptions ro;
    ro.url = argv[2];
    // The test counts builds across processes, not the wait cap: on a loaded machine the one
    // build may take longer than the default wait.
    ro.lockWaitMs = 120000;
    auto tier = remote::RemoteTier::open(ro);
    const test::SmallRegion s = test::smallRegion(64);
    if (!store || !tier || !s.graph) {
        std::fprintf(stderr, "set-up failed: %s\n", tier ? "store or eager run" :
                                                            tier.error().toString().c_str());
        return 1;
    }
    const compile::RegionOutcome out = test::compileSmall(s, store.get(), tier->get());
    for (const auto& w : (*tier)->warnings()) {
        std::fprintf(stderr, "warning: %s\n", w.c_str());
    }
    std::printf("%s %s\n", std::string(compile::regionStateName(out.state)).c_str(),
                std::string(cache::reasonName(out.reason)).c_str());
    std::fprintf(stderr, "%s\n", out.headline.c_str());
    return out.state == compile::RegionState::Fallback ? 1 : 0;
}
