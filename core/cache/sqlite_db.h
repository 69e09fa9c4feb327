// A minimal RAII wrapper over the SQLite C API for the cache store: one connection, prepared
// statements, errors as fxs::Error. Every failure is classified once (sqliteFailure): a damaged
// file (not a database, malformed pages or schema) and a full disk get their own message and
// leave a sticky mark on the connection, so the store can degrade instead of failing each call.
// Private to core/cache (never included by public headers).
#pragma once

#include "core/util/result.h"

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace fxs::cache {

class Database;

class Statement {
public:
    Statement(Database& db, sqlite3_stmt* stmt) : m_db(&db), m_stmt(stmt) {}
    Statement(Statement&& o) noexcept : m_db(o.m_db), m_stmt(o.m_stmt) { o.m_stmt = nullptr; }
    Statement& operator=(Statement&&) = delete;
    Statement(const Statement&) = delete;
    ~Statement() { sqlite3_finalize(m_stmt); }

    Statement& bind(int index, std::string_view text);
    Statement& bindBlob(int index, std::string_view bytes);
    Statement& bind(int index, std::int64_t v);
    Statement& bind(int index, double v);
    // true: a row is available; false: done. Errors carry sqlite's message.
    Result<bool> step();
    // Runs to completion (statements without rows).
    Status run();
    // Ends the statement's read so the connection can write (WAL: a read snapshot that is
    // still open cannot be upgraded when another process wrote meanwhile).
    void reset() { sqlite3_reset(m_stmt); }

    std::string text(int column) const;
    std::string blob(int column) const;
    std::int64_t int64(int column) const { return sqlite3_column_int64(m_stmt, column); }
    double real(int column) const { return sqlite3_column_double(m_stmt, column); }

private:
    Database* m_db;
    sqlite3_stmt* m_stmt;
};

class Database {
public:
    Database() = default;
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;
    ~Database() { sqlite3_close_v2(m_db); }

    Status open(const std::string& path, int busyTimeoutMs);
    // Read-only and without the WAL index (SQLite's immutable mode): for a disk so full that
    // not even the WAL index can be created. Sees what was checkpointed into the file.
    Status openImmutable(const std::string& path);
    void close();
    Status exec(const std::string& sql);
    Result<Statement> prepare(std::string_view sql);
    // Runs sql, which returns one row, and gives its first column as text.
    Result<std::string> scalarText(std::string_view sql);
    Result<std::int64_t> scalarInt(std::string_view sql);
    sqlite3* handle() const { return m_db; }
    // The error of the failure SQLite reports now (what: the operation, in words); marks the
    // connection damaged or disk-full when the failure says so.
    Error failure(std::string_view what);
    // Sticky: some call failed because the file is not a database or is malformed.
    bool damaged() const { return m_damaged; }
    // Sticky: some write failed because the disk (or the file size limit) is full.
    bool diskFull() const { return m_diskFull; }
    // What SQLite said at the first damage, what the system said at the first disk-full
    // failure.
    const std::string& damageDetail() const { return m_damageDetail; }
    const std::string& diskFullDetail() const { return m_diskFullDetail; }

private:
    sqlite3* m_db = nullptr;
    std::string m_path;
    bool m_damaged = false;
    bool m_diskFull = false;
    std::string m_damageDetail;
    std::string m_diskFullDetail;
};

} // namespace fxs::cache
