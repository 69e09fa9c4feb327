#include "core/cache/artifact_files.h"

#include "core/cache/cache_dir.h"
#include "core/util/unique_fd.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <set>

namespace fxs::cache::detail {
namespace {

constexpr std::time_t kStaleBuildSeconds = 3600;
constexpr std::time_t kOrphanSeconds = 600;

// Names of the entries directly inside the directory dirFd (none when it cannot be read).
std::vector<std::string> listNames(int dirFd)
{
    bool ok = false;
    return namesIn(dirFd, ok);
}

std::time_t ageOf(const struct stat& st) { return std::time(nullptr) - st.st_mtime; }

bool processGone(long pid)
{
    return pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
}

// The file `name` in dirFd holds exactly bytes: a regular file (not a link) of this user that
// nobody else can write, compared byte for byte.
bool holdsExactly(int dirFd, const std::string& name, const std::string& bytes)
{
    const UniqueFd f{
        ::openat(dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)};
    struct stat st {};
    if (f.get() < 0 || ::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 ||
        st.st_size != static_cast<off_t>(bytes.size())) {
        return false;
    }
    std::string existing(bytes.size(), '\0');
    std::size_t done = 0;
    while (done < existing.size()) {
        const ssize_t n = ::read(f.get(), existing.data() + done, existing.size() - done);
        if (n <= 0) {
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return existing == bytes;
}

} // namespace

ArtifactFiles::ArtifactFiles(Database& db, std::string directory)
    : m_db(db), m_dir(std::move(directory))
{
}

std::string ArtifactFiles::nameOf(const std::string& key, ArtifactKind kind)
{
    return key + std::string(artifactExtension(kind));
}

std::string ArtifactFiles::pathOf(const std::string& key, ArtifactKind kind) const
{
    return artifactsDir() + "/" + nameOf(key, kind);
}

Result<std::string> ArtifactFiles::write(const std::string& key, ArtifactKind kind,
                                         const std::string& bytes, bool record)
{
    if (!isCacheKey(key)) {
        return makeError(ErrorCode::Invalid, "not a cache key", key);
    }
    auto dirFd = openOwnedSubdir(m_dir, "artifacts", true);
    if (!dirFd) {
        return dirFd.error();
    }
    const UniqueFd dir{*dirFd};
    const std::string name = nameOf(key, kind);
    if (!holdsExactly(dir.get(), name, bytes)) {
        if (Status s = writePrivateFileAt(dir.get(), name, bytes, artifactsDir()); !s) {
            return s.error();
        }
    }
    const std::string path = pathOf(key, kind);
    if (!record) {
        return path;
    }
    auto st2 = m_db.prepare("INSERT OR REPLACE INTO files(key, kind, bytes) SELECT ?, ?, ? "
                            "WHERE EXISTS (SELECT 1 FROM entries WHERE key = ?)");
    if (!st2) {
        return st2.error();
    }
    st2->bind(1, key).bind(2, std::int64_t(kind)).bind(3, std::int64_t(bytes.size())).bind(4, key);
    if (Status s = st2->run(); !s) {
        return s.error();
    }
    return path;
}

Result<std::int64_t> ArtifactFiles::bytes()
{
    return m_db.scalarInt("SELECT COALESCE(SUM(bytes), 0) FROM files");
}

Result<std::vector<std::string>> ArtifactFiles::dropRows(const std::string& key)
{
    auto sel = m_db.prepare("SELECT kind FROM files WHERE key = ?");
    if (!sel) {
        return sel.error();
    }
    sel->bind(1, key);
    std::vector<std::string> names;
    for (auto row = sel->step(); row && *row; row = sel->step()) {
        names.push_back(nameOf(key, static_cast<ArtifactKind>(sel->int64(0))));
    }
    sel->reset();
    auto del = m_db.prepare("DELETE FROM files WHERE key = ?");
    if (!del) {
        return del.error();
    }
    if (Status s = del->bind(1, key).run(); !s) {
        return s.error();
    }
    return names;
}

int ArtifactFiles::unlinkAll(const std::vector<std::string>& names)
{
    if (names.empty()) {
        return 0;
    }
    auto dirFd = openOwnedSubdir(m_dir, "artifacts", false);
    if (!dirFd) {
        return 0; // none there, or not one the store may delete in
    }
    const UniqueFd dir{*dirFd};
    int n = 0;
    for (const auto& name : names) {
        n += isArtifactName(name) && ::unlinkat(dir.get(), name.c_str(), 0) == 0 ? 1 : 0;
    }
    return n;
}

Result<int> ArtifactFiles::sweepBuildDirs()
{
    const UniqueFd dir{::open(m_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (dir.get() < 0) {
        return makeError(ErrorCode::Io, "cannot open the cache directory", m_dir);
    }
    int removed = 0;
    for (const auto& name : listNames(dir.get())) {
        struct stat st {};
        if (!isBuildDirName(name) ||
            ::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
            continue;
        }
        const long pid = std::strtol(name.c_str() + 6, nullptr, 10);
        if ((processGone(pid) || ageOf(st) > kStaleBuildSeconds) && removeTreeAt(dir.get(), name)) {
            ++removed;
        }
    }
    return removed;
}

Result<int> ArtifactFiles::sweepOrphans()
{
    auto dirFd = openOwnedSubdir(m_dir, "artifacts", false);
    if (!dirFd) {
        // None yet is nothing to sweep; a link or another user's folder is refused.
        return dirFd.error().code == ErrorCode::Io ? Result<int>(0) : Result<int>(dirFd.error());
    }
    const UniqueFd dir{*dirFd};
    (void)m_db.exec("DELETE FROM files WHERE key NOT IN (SELECT key FROM entries)");
    std::set<std::string> known;
    if (auto st = m_db.prepare("SELECT key, kind FROM files")) {
        for (auto row = st->step(); row && *row; row = st->step()) {
            known.insert(nameOf(st->text(0), static_cast<ArtifactKind>(st->int64(1))));
        }
    }
    int removed = 0;
    for (const auto& name : listNames(dir.get())) {
        struct stat st {};
        if (!isArtifactName(name) || known.count(name) ||
            ::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) || ageOf(st) <= kOrphanSeconds) {
            continue;
        }
        removed += ::unlinkat(dir.get(), name.c_str(), 0) == 0 ? 1 : 0;
    }
    return removed;
}

} // namespace fxs::cache::detail
