#include "core/cache/artifact_files.h"

#include "core/util/file_reader.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <set>

namespace fxs::cache::detail {
namespace {

// Artifacts are read as stored (a file that starts like gzip is not inflated).
const ReadOptions kRawBytes{kDefaultMaxFileBytes, false};

constexpr std::time_t kStaleBuildSeconds = 3600;
constexpr std::time_t kOrphanSeconds = 600;

// Names of the entries directly inside dir ("." and ".." left out).
std::vector<std::string> listNames(const std::string& dir)
{
    std::vector<std::string> out;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            if (name != "." && name != "..") {
                out.push_back(name);
            }
        }
        ::closedir(d);
    }
    return out;
}

std::time_t ageOf(const struct stat& st) { return std::time(nullptr) - st.st_mtime; }

bool processGone(long pid)
{
    return pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
}

} // namespace

ArtifactFiles::ArtifactFiles(Database& db, std::string directory)
    : m_db(db), m_dir(std::move(directory))
{
}

std::string ArtifactFiles::pathOf(const std::string& key, ArtifactKind kind) const
{
    return artifactsDir() + "/" + key + std::string(artifactExtension(kind));
}

Result<std::string> ArtifactFiles::write(const std::string& key, ArtifactKind kind,
                                         const std::string& bytes, bool record)
{
    if (Status s = ensurePrivateDir(artifactsDir()); !s) {
        return s.error();
    }
    const std::string path = pathOf(key, kind);
    struct stat st {};
    const bool same = ::stat(path.c_str(), &st) == 0 &&
                      st.st_size == static_cast<off_t>(bytes.size()) && [&] {
                          auto existing = readFile(path, kRawBytes);
                          return existing && *existing == bytes;
                      }();
    if (!same) {
        if (Status s = writePrivateFile(path, bytes); !s) {
            return s.error();
        }
    }
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
    std::vector<std::string> paths;
    for (auto row = sel->step(); row && *row; row = sel->step()) {
        paths.push_back(pathOf(key, static_cast<ArtifactKind>(sel->int64(0))));
    }
    sel->reset();
    auto del = m_db.prepare("DELETE FROM files WHERE key = ?");
    if (!del) {
        return del.error();
    }
    if (Status s = del->bind(1, key).run(); !s) {
        return s.error();
    }
    return paths;
}

int ArtifactFiles::unlinkAll(const std::vector<std::string>& paths)
{
    int n = 0;
    for (const auto& p : paths) {
        n += ::unlink(p.c_str()) == 0 ? 1 : 0;
    }
    return n;
}

int ArtifactFiles::sweepBuildDirs()
{
    int removed = 0;
    for (const auto& name : listNames(m_dir)) {
        if (name.rfind("build-", 0) != 0) {
            continue;
        }
        const std::string path = m_dir + "/" + name;
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
            continue;
        }
        const long pid = std::strtol(name.c_str() + 6, nullptr, 10);
        if ((processGone(pid) || ageOf(st) > kStaleBuildSeconds) && removeTree(path)) {
            ++removed;
        }
    }
    return removed;
}

int ArtifactFiles::sweepOrphans()
{
    (void)m_db.exec("DELETE FROM files WHERE key NOT IN (SELECT key FROM entries)");
    std::set<std::string> known;
    if (auto st = m_db.prepare("SELECT key, kind FROM files")) {
        for (auto row = st->step(); row && *row; row = st->step()) {
            known.insert(pathOf(st->text(0), static_cast<ArtifactKind>(st->int64(1))));
        }
    }
    int removed = 0;
    for (const auto& name : listNames(artifactsDir())) {
        const std::string path = artifactsDir() + "/" + name;
        struct stat st {};
        if (known.count(path) || ::lstat(path.c_str(), &st) != 0 || ageOf(st) <= kOrphanSeconds) {
            continue;
        }
        removed += removeTree(path) ? 1 : 0;
    }
    return removed;
}

} // namespace fxs::cache::detail
