// A minimal RAII wrapper over the SQLite C API for the cache store: one connection, prepared
// statements, errors as fxs::Error. Private to core/cache (never included by public headers).
#pragma once

#include "core/util/result.h"

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace fxs::cache {

class Statement {
public:
    Statement(sqlite3* db, sqlite3_stmt* stmt) : m_db(db), m_stmt(stmt) {}
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
    sqlite3* m_db;
    sqlite3_stmt* m_stmt;
};

class Database {
public:
    Database() = default;
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;
    ~Database() { sqlite3_close_v2(m_db); }

    Status open(const std::string& path, int busyTimeoutMs);
    Status exec(const std::string& sql);
    Result<Statement> prepare(std::string_view sql);
    // Runs sql, which returns one row, and gives its first column as text.
    Result<std::string> scalarText(std::string_view sql);
    Result<std::int64_t> scalarInt(std::string_view sql);
    sqlite3* handle() const { return m_db; }
    Error error(std::string_view what) const;

private:
    sqlite3* m_db = nullptr;
    std::string m_path;
};

} // namespace fxs::cache
