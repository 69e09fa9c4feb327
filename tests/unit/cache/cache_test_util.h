// What the cache store tests share: an entry keyed by a region's text, and raw SQL on a cache
// database behind the store's back (to make it look old, foreign or damaged).
// For tests/unit/cache only.
#pragma once

#include "core/cache/cache_key.h"
#include "core/cache/cache_store.h"

#include <QtTest>

#include <sqlite3.h>

#include <string>

namespace fxs::cache::testing {

// The entry of a region keyed by its text and, when given, its first input's description.
inline EntryInfo regionEntry(const std::string& regionText, const std::string& input = "")
{
    KeyBuilder kb;
    kb.add("region", regionText);
    if (!input.empty()) {
        kb.add("input[0]", input);
    }
    EntryInfo e;
    e.key = kb.key();
    e.components = kb.components();
    e.regionDigest = regionDigest(e.components);
    e.title = "r0 of test";
    return e;
}

// Runs sql on the database at path with SQLite itself; fails the calling test on an error.
inline void rawExec(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* msg = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg);
    QVERIFY2(rc == SQLITE_OK, msg ? msg : "");
    sqlite3_close(db);
}

} // namespace fxs::cache::testing
