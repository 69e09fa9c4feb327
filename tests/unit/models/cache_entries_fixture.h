// Test helper: a cache database in a temporary directory with three entries made through
// CacheStore (A and B: the same region, input 0 float32 vs float16; C: another region, marked
// bad). Shared by the cache entry model and cache browser tests.
#pragma once

#include "core/cache/cache_store.h"

#include <QTemporaryDir>

#include <memory>
#include <string>

namespace fxs::test {

struct CacheEntriesFixture {
    QTemporaryDir dir;
    std::string path;
    std::string keyA;
    std::string keyB;
    std::string keyC;

    static cache::EntryInfo info(const std::string& region, const std::string& input,
                                 const std::string& title, double compileMs)
    {
        cache::KeyBuilder kb;
        kb.add("region", region).add("input[0]", input);
        cache::EntryInfo e;
        e.key = kb.key();
        e.components = kb.components();
        e.regionDigest = cache::regionDigest(e.components);
        e.title = title;
        e.compileMs = compileMs;
        return e;
    }

    // Creates the database; false when the store cannot be opened or written.
    bool create()
    {
        path = dir.path().toStdString() + "/cache/cache.db";
        cache::StoreOptions so;
        so.path = path;
        auto store = cache::CacheStore::open(so);
        if (!store) {
            return false;
        }
        const auto a = info("add(x, y)", "dtype=float32;sizes=[4]", "r0 of a", 100.0);
        const auto b = info("add(x, y)", "dtype=float16;sizes=[4]", "r0 of b", 50.0);
        const auto c = info("mul(x, y)", "dtype=float32;sizes=[4]", "r1 of c", 10.0);
        keyA = a.key;
        keyB = b.key;
        keyC = c.key;
        using cache::Artifact;
        bool ok = (*store)->insert(a, Artifact::hostBuild(std::string(3000, 'a'), "// a")).ok();
        ok = ok && (*store)->insert(b, Artifact::hostBuild(std::string(2000, 'b'), "// b")).ok();
        ok = ok && (*store)->insert(c, Artifact::hostBuild(std::string(1000, 'c'), "// c")).ok();
        return ok && (*store)
                         ->markBad(c.key, cache::Reason::FallbackVerifyFailed, "output mismatch")
                         .ok();
    }
};

} // namespace fxs::test
