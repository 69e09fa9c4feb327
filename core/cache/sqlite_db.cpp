#include "core/cache/sqlite_db.h"

#include <cerrno>
#include <cstring>

namespace fxs::cache {
namespace {

bool isDamage(int code)
{
    const int primary = code & 0xff;
    return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

// SQLite says SQLITE_FULL only when write() reports ENOSPC; a full WAL index, a quota or the
// file size limit arrive as SQLITE_IOERR_* with the system's errno, and users read "disk I/O
// error" as a broken disk. All of them are "disk full" to a user.
bool isDiskFull(int code, int sysErrno)
{
    const int primary = code & 0xff;
    return primary == SQLITE_FULL ||
           (primary == SQLITE_IOERR &&
            (sysErrno == ENOSPC || sysErrno == EDQUOT || sysErrno == EFBIG));
}

// The errno of the last failed write to the database or its WAL: sqlite3_system_errno keeps
// only what the thread's errno says when the error surfaces, often 0 after a failed WAL write.
int lastFileErrno(sqlite3* db)
{
    int err = 0;
    sqlite3_file_control(db, "main", SQLITE_FCNTL_LAST_ERRNO, &err);
    sqlite3_file* journal = nullptr;
    if (err == 0 &&
        sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &journal) == SQLITE_OK &&
        journal && journal->pMethods) {
        journal->pMethods->xFileControl(journal, SQLITE_FCNTL_LAST_ERRNO, &err);
    }
    return err;
}

// An URI path component: '%', '?' and '#' would end or escape it.
std::string uriPath(const std::string& path)
{
    std::string out;
    for (char c : path) {
        if (c == '%' || c == '?' || c == '#') {
            static const char* kHex = "0123456789ABCDEF";
            out += '%';
            out += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
            out += kHex[static_cast<unsigned char>(c) & 0xf];
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace

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
    Error e = m_db->failure("a cache statement failed");
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
                                       SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
                                   nullptr);
    if (rc != SQLITE_OK) {
        return failure("cannot open the cache database");
    }
    sqlite3_busy_timeout(m_db, busyTimeoutMs);
    return {};
}

Status Database::openImmutable(const std::string& path)
{
    close();
    m_path = path;
    const std::string uri = "file:" + uriPath(path) + "?mode=ro&immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &m_db,
                        SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX |
                            SQLITE_OPEN_NOFOLLOW,
                        nullptr) != SQLITE_OK) {
        return failure("cannot open the cache database read-only");
    }
    return {};
}

void Database::close()
{
    sqlite3_close_v2(m_db);
    m_db = nullptr;
}

Status Database::exec(const std::string& sql)
{
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
        Error e = failure("a cache statement failed");
        e.found = sql.substr(0, 80);
        return e;
    }
    return {};
}

Result<Statement> Database::prepare(std::string_view sql)
{
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
        SQLITE_OK) {
        return failure("cannot prepare a statement");
    }
    return Statement(*this, stmt);
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

Error Database::failure(std::string_view what)
{
    if (!m_db) {
        return makeError(ErrorCode::Io, std::string(what) + " (out of memory)", m_path);
    }
    const int code = sqlite3_extended_errcode(m_db);
    const int sysErrno =
        sqlite3_system_errno(m_db) != 0 ? sqlite3_system_errno(m_db) : lastFileErrno(m_db);
    const std::string sqliteMessage = sqlite3_errmsg(m_db);
    if (isDamage(code)) {
        m_damaged = true;
        if (m_damageDetail.empty()) {
            m_damageDetail = sqliteMessage;
        }
        return makeError(ErrorCode::Checksum,
                         "the cache database is damaged (" + sqliteMessage +
                             "); `fxscope-cli cache repair` moves it aside and starts a fresh one",
                         m_path);
    }
    if (isDiskFull(code, sysErrno)) {
        m_diskFull = true;
        const std::string why = sysErrno != 0 ? std::strerror(sysErrno) : sqliteMessage;
        if (m_diskFullDetail.empty()) {
            m_diskFullDetail = why;
        }
        return makeError(ErrorCode::Io, "disk full: " + std::string(what) + " (" + why + ")",
                         m_path);
    }
    return makeError(ErrorCode::Io, std::string(what) + " (sqlite: " + sqliteMessage + ")",
                     m_path);
}

} // namespace fxs::cache
