// INTERNAL to core/cache: the store's SQLite connection and how usable it is — opening it
// (WAL, user_version migrations, incremental auto-vacuum), degrading where the cache can still
// help (a damaged file opens Damaged, a full disk read-only) and the warning and the refusal
// of writes that go with each condition. Used by CacheStore only; not for entries or files.
#pragma once

#include "core/cache/cache_store.h"
#include "core/cache/sqlite_db.h"

#include <string>

namespace fxs::cache::detail {

class StoreConnection {
public:
    // Opens the database file at path (which exists, checked by the store) and prepares its
    // schema; a damaged file or a full disk is not an error here but a condition. Errors: the
    // file cannot be opened, another program's database (checkOwnership), a newer schema, a
    // migration that fails on a healthy disk.
    Status open(const std::string& path, int busyTimeoutMs);

    Database& db() { return m_db; }
    int schema() const { return m_schema; }
    StoreCondition condition() const;
    // CacheStore::conditionWarning.
    std::string conditionWarning() const;
    // The condition's warning as an Error unless the store is healthy: writes are refused at
    // once rather than failing (full disk) or changing a damaged file before it is moved aside.
    Status writable() const;

private:
    Status prepareSchema();
    // Whether the database is fxscope's: application_id kApplicationId, or an empty database,
    // or exactly fxscope's tables without an id (a cache of an earlier release): true when the
    // id is still to be written (migrate writes it). Error::Invalid naming the application id
    // and tables found otherwise; nothing is written.
    Result<bool> checkOwnership();
    Result<bool> readOwnership(); // checkOwnership inside its read transaction
    Status setWal();
    Status migrate();
    Status degrade(const Error& openError);
    void useIncrementalVacuum();

    Database m_db;
    std::string m_path;
    int m_schema = 0;
    bool m_readOnly = false; // opened read-only because the disk is full
};

} // namespace fxs::cache::detail
