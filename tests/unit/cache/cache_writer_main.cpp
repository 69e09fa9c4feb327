// Helper process for tst_cache_store's concurrency test: opens the store given on the command
// line and inserts (then looks up) the same keys every other writer inserts.
// Usage: cache_writer DB COUNT WRITER_ID. Exit 0 when every insert and lookup succeeded.
#include "core/cache/cache_store.h"

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: cache_writer DB COUNT WRITER_ID\n");
        return 2;
    }
    fxs::cache::StoreOptions opts;
    opts.path = argv[1];
    auto store = fxs::cache::CacheStore::open(opts);
    if (!store) {
        std::fprintf(stderr, "open: %s\n", store.error().toString().c_str());
        return 1;
    }
    const int count = std::atoi(argv[2]);
    int inserted = 0;
    for (int k = 0; k < count; ++k) {
        fxs::cache::KeyBuilder kb;
        kb.add("region", "region " + std::to_string(k));
        fxs::cache::EntryInfo info;
        info.key = kb.key();
        info.components = kb.components();
        info.regionDigest = fxs::cache::regionDigest(info.components);
        info.title = std::string("writer ") + argv[3];
        const auto art = fxs::cache::Artifact::hostBuild(std::string(4096, char('a' + k % 26)),
                                                         "// src " + std::to_string(k));
        auto r = (*store)->insert(info, art);
        if (!r) {
            std::fprintf(stderr, "insert: %s\n", r.error().toString().c_str());
            return 1;
        }
        inserted += *r ? 1 : 0;
        auto hit = (*store)->lookup(info.key);
        if (!hit || hit->state != fxs::cache::LookupState::Hit ||
            *hit->entry->artifact.bytesOf(fxs::cache::ArtifactKind::SharedObject) !=
                *art.bytesOf(fxs::cache::ArtifactKind::SharedObject)) {
            std::fprintf(stderr, "lookup failed for key %d: %s\n", k,
                         hit ? "not a hit" : hit.error().toString().c_str());
            return 1;
        }
    }
    std::printf("%d\n", inserted);
    return 0;
}
