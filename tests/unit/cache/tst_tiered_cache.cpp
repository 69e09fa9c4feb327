// The region cache's tiers as one (TieredCache) with a real local store and an in-memory
// remote storage (no Redis): a local hit never asks the remote; a remote hit is stored locally
// and said so; a refused remote value is reported and overwritten by the next store; store()
// writes both tiers (a bad entry stays local, the replace rule); the nearest entry is chosen
// across tiers (same region first, an offline remote not asked); the build claim makes a
// second process wait for the first one's entry, locally and remotely, and lets it go; a lookup
// that will not wait says that another process builds the key.
#include "core/cache/tiered_cache.h"
#include "tests/test_file.h"
#include "tests/unit/cache/cache_test_util.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <thread>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::cache;
using fxs::cache::testing::rawExec;

namespace {

// An entry keyed by its region, first input and compiler (three components).
EntryInfo entryOf(const std::string& region, const std::string& input,
                  const std::string& compiler = "gcc 12",
                  EntryStatus status = EntryStatus::Verified)
{
    KeyBuilder kb;
    kb.add(kLabelRegion, region).add(inputLabel(0), input).add(kLabelCompiler, compiler);
    EntryInfo e;
    e.key = kb.key();
    e.components = kb.components();
    e.regionDigest = regionDigest(e.components);
    e.title = "r0 of test";
    e.compileMs = 250;
    e.status = status;
    return e;
}

Artifact artifactOf(const std::string& tag) { return Artifact::hostBuild("so-" + tag, "src"); }

// The remote storage in memory: what was fetched, published (with the replace flag), locked
// and unlocked. `refused` keys hold a value that fails its check (it exists: publish without
// replace keeps it). `whileLocked` runs when a lookup finds another holder's lock: what the
// holder does while the caller waits.
class FakeRemote final : public RemoteStorage {
public:
    std::map<std::string, Entry> entries;
    std::map<std::string, Reason> refused;
    std::set<std::string> locks;
    std::vector<std::pair<std::string, bool>> published; // key, replace
    std::function<void(const std::string&)> whileLocked;
    bool up = true;
    int fetches = 0;
    int unlocks = 0;

    const std::string& url() const override { return m_url; }
    bool online() const override { return up; }
    RemoteFetchResult fetchOrLock(const std::string& key, std::int64_t, bool& locked) override
    {
        locked = false;
        RemoteFetchResult f = fetch(key);
        if (f.state != RemoteFetchState::Miss) {
            return f;
        }
        if (locks.count(key)) {
            if (whileLocked) {
                whileLocked(key);
            }
            return fetch(key); // the holder's entry, or a miss: build without the lock
        }
        locks.insert(key);
        locked = true;
        return f;
    }
    void unlock(const std::string& key) override
    {
        ++unlocks;
        locks.erase(key);
    }
    bool publish(const EntryInfo& info, const Artifact& artifact, bool replace) override
    {
        published.emplace_back(info.key, replace);
        const bool exists = entries.count(info.key) || refused.count(info.key);
        if (!up || (exists && !replace)) {
            return false;
        }
        refused.erase(info.key);
        entries[info.key] = Entry{info, artifact};
        return true;
    }
    Result<std::vector<EntryInfo>> list() override { return entriesWhere(""); }
    Result<std::vector<EntryInfo>> entriesOfRegion(const std::string& digest) override
    {
        return entriesWhere(digest);
    }

private:
    std::string m_url = "fake://team";

    RemoteFetchResult fetch(const std::string& key)
    {
        ++fetches;
        RemoteFetchResult f;
        if (!up) {
            f.state = RemoteFetchState::Unavailable;
        } else if (auto r = refused.find(key); r != refused.end()) {
            f.state = RemoteFetchState::Rejected;
            f.reason = r->second;
            f.problem = "HMAC mismatch";
        } else if (auto e = entries.find(key); e != entries.end()) {
            f.state = RemoteFetchState::Hit;
            f.entry = e->second;
            f.info = e->second.info;
        }
        return f;
    }
    std::vector<EntryInfo> entriesWhere(const std::string& digest) const
    {
        std::vector<EntryInfo> out;
        for (const auto& [key, e] : entries) {
            if (digest.empty() || e.info.regionDigest == digest) {
                out.push_back(e.info);
            }
        }
        return out;
    }
};

} // namespace

class TestTieredCache : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_stores = 0;

    std::string freshDir()
    {
        return m_dir.filePath("m" + QString::number(++m_stores)).toStdString();
    }
    // A store in dir (a new machine's when dir is fresh).
    std::unique_ptr<CacheStore> storeAt(const std::string& dir)
    {
        StoreOptions o;
        o.path = dir + "/cache.db";
        auto s = CacheStore::open(o);
        return s ? std::move(*s) : nullptr;
    }
    std::unique_ptr<CacheStore> machine() { return storeAt(freshDir()); }

private Q_SLOTS:
    void localHitDoesNotAskTheRemote()
    {
        auto local = machine();
        FakeRemote remote;
        const EntryInfo e = entryOf("R", "f32 [4]");
        QVERIFY(*local->insert(e, artifactOf("local")));
        remote.entries[e.key] = Entry{e, artifactOf("remote")};
        TieredCache tiers(*local, &remote);
        auto found = tiers.lookup(e.key, 1000);
        QVERIFY(found.ok());
        QCOMPARE(int(found->state), int(TierState::LocalHit));
        QCOMPARE(*found->entry->artifact.bytesOf(ArtifactKind::SharedObject),
                 std::string("so-local"));
        QCOMPARE(remote.fetches, 0);
        QVERIFY(!found->claim.holdsLocal() && !found->claim.holdsRemote());
    }

    void remoteHitIsStoredLocally()
    {
        auto local = machine();
        FakeRemote remote;
        const EntryInfo e = entryOf("R", "f32 [4]");
        remote.entries[e.key] = Entry{e, artifactOf("remote")};
        {
            TieredCache tiers(*local, &remote);
            auto found = tiers.lookup(e.key, 1000);
            QVERIFY(found.ok());
            QCOMPARE(int(found->state), int(TierState::RemoteHit));
            QCOMPARE(*found->entry->artifact.bytesOf(ArtifactKind::SharedObject),
                     std::string("so-remote"));
            QCOMPARE(found->fetched->title, std::string("r0 of test (from fake://team)"));
            QVERIFY(!found->claim.holdsRemote()); // a hit takes no remote lock
        }
        auto kept = local->info(e.key);
        QVERIFY(kept.ok() && kept->has_value());
        QCOMPARE((*kept)->title, std::string("r0 of test (from fake://team)"));
        // The next lookup is local and leaves the remote alone.
        const int fetches = remote.fetches;
        TieredCache again(*local, &remote);
        QCOMPARE(int(again.lookup(e.key, 1000)->state), int(TierState::LocalHit));
        QCOMPARE(remote.fetches, fetches);
    }

    void refusedRemoteValueIsReportedAndReplaced()
    {
        auto local = machine();
        FakeRemote remote;
        const EntryInfo e = entryOf("R", "f32 [4]", "gcc 12", EntryStatus::Unverified);
        remote.refused[e.key] = Reason::MissRemoteHmac;
        TieredCache tiers(*local, &remote);
        auto found = tiers.lookup(e.key, 1000);
        QVERIFY(found.ok());
        QCOMPARE(int(found->state), int(TierState::RemoteRefused));
        QCOMPARE(found->reason, Reason::MissRemoteHmac);
        QCOMPARE(found->problem, std::string("HMAC mismatch"));
        QVERIFY(!found->entry);
        QCOMPARE(local->list()->size(), std::size_t(0)); // nothing refused is kept
        // An unverified build replaces the refused value (it would keep a sound one).
        const TierWrites w = tiers.store(e, artifactOf("rebuilt"));
        QVERIFY(w.local && w.remote);
        QVERIFY(remote.published.back() == std::pair(e.key, true));
        QVERIFY(remote.refused.empty());
        QCOMPARE(*remote.entries[e.key].artifact.bytesOf(ArtifactKind::SharedObject),
                 std::string("so-rebuilt"));
    }

    void storeWritesBothTiersByTheRules()
    {
        auto local = machine();
        FakeRemote remote;
        TieredCache tiers(*local, &remote);
        const EntryInfo verified = entryOf("V", "f32 [4]");
        const EntryInfo unverified = entryOf("U", "f32 [4]", "gcc 12", EntryStatus::Unverified);
        EntryInfo bad = entryOf("B", "f32 [4]", "gcc 12", EntryStatus::Bad);
        bad.statusCode = Reason::FallbackVerifyFailed;
        // Already there remotely: an unverified entry keeps the remote one, a verified replaces.
        remote.entries[unverified.key] = Entry{unverified, artifactOf("theirs")};
        remote.entries[verified.key] = Entry{verified, artifactOf("theirs")};
        TierWrites w = tiers.store(unverified, artifactOf("ours"));
        QVERIFY(w.local && !w.remote);
        QVERIFY(remote.published.back() == std::pair(unverified.key, false));
        w = tiers.store(verified, artifactOf("ours"));
        QVERIFY(w.local && w.remote);
        QVERIFY(remote.published.back() == std::pair(verified.key, true));
        QCOMPARE(*remote.entries[verified.key].artifact.bytesOf(ArtifactKind::SharedObject),
                 std::string("so-ours"));
        // A bad entry stays local: other machines find out for themselves.
        w = tiers.store(bad, artifactOf("bad"));
        QVERIFY(w.local && !w.remote);
        QCOMPARE(remote.published.size(), std::size_t(2));
        QVERIFY(!remote.entries.count(bad.key));
        QCOMPARE((*local->info(bad.key))->status, EntryStatus::Bad);
        // Without a remote: the local store alone.
        auto alone = machine();
        TieredCache localOnly(*alone);
        QVERIFY(localOnly.store(verified, artifactOf("ours")).local);
        QCOMPARE(alone->list()->size(), std::size_t(1));
    }

    void corruptLocalRowWithoutRemoteEntry()
    {
        const std::string dir = freshDir();
        auto local = storeAt(dir);
        FakeRemote remote;
        const EntryInfo e = entryOf("R", "f32 [4]");
        QVERIFY(*local->insert(e, artifactOf("abcd")));
        rawExec(dir + "/cache.db", "UPDATE entries SET blob = CAST(replace(CAST(blob AS TEXT), "
                                   "'so-abcd', 'so-abcX') AS BLOB) WHERE key = '" + e.key + "'");
        TieredCache tiers(*local, &remote);
        auto found = tiers.lookup(e.key, 1000);
        QVERIFY(found.ok());
        QCOMPARE(int(found->state), int(TierState::Corrupt));
        QVERIFY2(found->problem.find("SHA-256") != std::string::npos, found->problem.c_str());
        QCOMPARE(remote.fetches, 1); // the remote was asked before calling it corrupt
    }

    void nearestEntryAcrossTiers()
    {
        auto local = machine();
        FakeRemote remote;
        const EntryInfo wanted = entryOf("R", "f32 [4]", "gcc 12");
        const EntryInfo near = entryOf("R", "f32 [8]", "gcc 13"); // 2 components differ
        const EntryInfo far = entryOf("R", "f32 [8]", "gcc 12");  // 1 component differs
        QVERIFY(*local->insert(near, artifactOf("near")));
        remote.entries[far.key] = Entry{far, artifactOf("far")};
        TieredCache tiers(*local, &remote);
        TieredExplanation t = tiers.nearest(wanted.components);
        QCOMPARE(t.explanation.nearestKey, far.key);
        QCOMPARE(t.remoteUrl, std::string("fake://team"));
        QCOMPARE(t.explanation.changes.size(), std::size_t(1));
        // An offline remote is not asked: the local entry is the nearest.
        remote.up = false;
        t = tiers.nearest(wanted.components);
        QCOMPARE(t.explanation.nearestKey, near.key);
        QVERIFY(t.remoteUrl.empty());
        // The same region first, whichever tier holds it: another region's remote entry that
        // differs in its region only loses to the local entry of this region.
        remote.up = true;
        remote.entries.clear();
        const EntryInfo other = entryOf("S", "f32 [4]", "gcc 12");
        remote.entries[other.key] = Entry{other, artifactOf("other")};
        t = tiers.nearest(wanted.components);
        QCOMPARE(t.explanation.nearestKey, near.key);
        QVERIFY(t.remoteUrl.empty());
        // With no entry of the region anywhere, all entries of both tiers are candidates.
        const EntryInfo lone = entryOf("T", "f32 [4]", "gcc 12");
        t = tiers.nearest(lone.components);
        QCOMPARE(t.explanation.nearestKey, other.key);
        QCOMPARE(t.remoteUrl, std::string("fake://team"));
    }

    void secondProcessWaitsForTheLocalBuilder()
    {
        const std::string dir = freshDir();
        auto first = storeAt(dir);
        auto second = storeAt(dir); // another process on the same machine
        const EntryInfo e = entryOf("R", "f32 [4]");
        TieredCache a(*first);
        auto claimA = a.lookup(e.key, 60000);
        QVERIFY(claimA.ok());
        QCOMPARE(int(claimA->state), int(TierState::Miss));
        QVERIFY(claimA->claim.holdsLocal());
        std::atomic<bool> done = false;
        std::optional<TierLookup> waited;
        std::thread other([&] {
            TieredCache b(*second);
            auto r = b.lookup(e.key, 60000);
            if (r) {
                waited = std::move(*r);
            }
            done = true;
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const bool waitedForA = !done;
        (void)a.store(e, artifactOf("a"));
        claimA->claim.release();
        other.join();
        QVERIFY2(waitedForA, "the second lookup did not wait for the builder's lock");
        QVERIFY(waited);
        QCOMPARE(int(waited->state), int(TierState::HitAfterWait));
        QCOMPARE(*waited->entry->artifact.bytesOf(ArtifactKind::SharedObject),
                 std::string("so-a"));
        QVERIFY(!waited->claim.holdsLocal()); // a hit after the wait leaves the lock at once
    }

    void lookupThatWillNotWaitSaysBusy()
    {
        const std::string dir = freshDir();
        auto first = storeAt(dir);
        auto second = storeAt(dir); // another process on the same machine
        FakeRemote remote;
        const EntryInfo e = entryOf("R", "f32 [8]");
        TieredCache a(*first);
        auto claimA = a.lookup(e.key, 60000);
        QVERIFY(claimA.ok());
        QVERIFY(claimA->claim.holdsLocal());
        // A caller holding claims of its own (the region compiler's first phase) is told at once
        // that another process builds the key: no claim, no remote asked, no 60 s wait.
        TieredCache b(*second, &remote);
        auto busy = b.lookup(e.key, 60000, false);
        QVERIFY(busy.ok());
        QVERIFY(busy->busy); // (a lookup that had waited the 60 s out would claim and build)
        QCOMPARE(int(busy->state), int(TierState::Miss));
        QVERIFY(!busy->claim.holdsLocal());
        QVERIFY(!busy->claim.holdsRemote());
        QCOMPARE(remote.fetches, 0);
        // Once the builder stored it, the same lookup hits; a free key is claimed as usual.
        (void)a.store(e, artifactOf("a"));
        claimA->claim.release();
        auto hit = b.lookup(e.key, 60000, false);
        QVERIFY(hit.ok());
        QVERIFY(!hit->busy);
        QCOMPARE(int(hit->state), int(TierState::LocalHit));
        const EntryInfo free = entryOf("R", "f32 [16]");
        auto claimed = b.lookup(free.key, 60000, false);
        QVERIFY(claimed.ok());
        QVERIFY(!claimed->busy);
        QVERIFY(claimed->claim.holdsLocal());
    }

    void remoteLockLetsOneMachineBuild()
    {
        FakeRemote remote;
        auto ma = machine();
        auto mb = machine();
        auto mc = machine();
        const EntryInfo e = entryOf("R", "f32 [4]");
        TieredCache a(*ma, &remote);
        auto first = a.lookup(e.key, 60000);
        QVERIFY(first.ok());
        std::optional<TierLookup> builder(std::move(*first));
        QCOMPARE(int(builder->state), int(TierState::Miss));
        QVERIFY(builder->claim.holdsRemote());
        QVERIFY(remote.locks.count(e.key));
        // A machine that asks while nothing is published yet is told to build itself, without
        // the lock (the holder keeps it).
        TieredCache c(*mc, &remote);
        auto alone = c.lookup(e.key, 60000);
        QCOMPARE(int(alone->state), int(TierState::Miss));
        QVERIFY(!alone->claim.holdsRemote());
        // A machine that waits while the holder publishes gets the holder's entry.
        remote.whileLocked = [&](const std::string&) { (void)a.store(e, artifactOf("a")); };
        TieredCache b(*mb, &remote);
        auto waiter = b.lookup(e.key, 60000);
        QCOMPARE(int(waiter->state), int(TierState::RemoteHit));
        QCOMPARE(*waiter->entry->artifact.bytesOf(ArtifactKind::SharedObject),
                 std::string("so-a"));
        // The claim lets the lock go once, when it goes (moved claims do not).
        BuildClaim moved = std::move(builder->claim);
        builder.reset();
        QCOMPARE(remote.unlocks, 0);
        QVERIFY(remote.locks.count(e.key));
        moved = BuildClaim();
        QCOMPARE(remote.unlocks, 1);
        QVERIFY(remote.locks.empty());
    }
};

QTEST_GUILESS_MAIN(TestTieredCache)
#include "tst_tiered_cache.moc"

FXSCOPE_TEST_END
