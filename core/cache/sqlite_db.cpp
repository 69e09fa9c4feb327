#include "core/cache/sqlite_db.h"

namespace fxs::cache {

Statement& Statement::bind(int index, std::string_view text)
{
    sqlite3_bind_text(m_stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
}

Statement& Statement::bindBlob(int index, std::string_view bytes)
{
    sqlite3_bind_blob64(m_stmt, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
    return *this;
}

Statement& Statement::bind(int index, std::int64_t v)
{
    sqlite3_bind_int64(m_stmt, index, v);
    return *this;
}

Statement& Statement::bind(int index, double v)
{
    sqlite3_bind_double(m_stmt, index, v);
    return *this;
}

Result<bool> Statement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) {
        return true;
    }
    if (rc == SQLITE_DONE) {
        return false;
    }
    Error e = makeError(ErrorCode::Io, std::string("sqlite: ") + sqlite3_errmsg(m_db));
    e.found = sqlite3_sql(m_stmt);
    return e;
}

Status Statement::run()
{
    for (;;) {
        auto r = step();
        if (!r) {
            return r.error();
        }
        if (!*r) {
            return {};
        }
    }
}

std::string Statement::text(int column) const
{
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)))
             : std::string();
}

std::string Statement::blob(int column) const
{
    const auto* p = static_cast<const char*>(sqlite3_column_blob(m_stmt, column));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)))
             : std::string();
}

Status Database::open(const std::string& path, int busyTimeoutMs)
{
    m_path = path;
    const int rc = sqlite3_open_v2(path.c_str(), &m_db,
                                   SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                       SQLITE_OPEN_NOMUTEX,
                                   nullptr);
    if (rc != SQLITE_OK) {
        return error("cannot open the cache database");
    }
    sqlite3_busy_timeout(m_db, busyTimeoutMs);
    return {};
}

Status Database::exec(const std::string& sql)
{
    char* msg = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
        Error e = makeError(ErrorCode::Io, std::string("sqlite: ") + (msg ? msg : "error"), m_path);
        e.found = sql.substr(0, 80);
        sqlite3_free(msg);
        return e;
    }
    return {};
}

Result<Statement> Database::prepare(std::string_view sql)
{
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
        SQLITE_OK) {
        return error("cannot prepare a statement");
    }
    return Statement(m_db, stmt);
}

Result<std::string> Database::scalarText(std::string_view sql)
{
    auto st = prepare(sql);
    if (!st) {
        return st.error();
    }
    auto row = st->step();
    if (!row) {
        return row.error();
    }
    return *row ? st->text(0) : std::string();
}

Result<std::int64_t> Database::scalarInt(std::string_view sql)
{
    auto st = prepare(sql);
    if (!st) {
        return st.error();
    }
    auto row = st->step();
    if (!row) {
        return row.error();
    }
    return *row ? st->int64(0) : std::int64_t(0);
}

Error Database::error(std::string_view what) const
{
    Error e = makeError(ErrorCode::Io, std::string(what), m_path);
    e.found = m_db ? sqlite3_errmsg(m_db) : "out of memory";
    return e;
}

} // namespace fxs::cache
