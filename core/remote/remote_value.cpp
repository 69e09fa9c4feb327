#include "core/remote/remote_value.h"

#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

#include <sys/random.h>
#include <unistd.h>

#include <cctype>
#include <charconv>

namespace fxs::remote::detail {
namespace {

using nlohmann::json;
constexpr std::string_view kMacTag = "hmac-sha256:";

std::optional<Sha256> parseSha256Hex(std::string_view hex)
{
    if (hex.size() != 64) {
        return std::nullopt;
    }
    Sha256 out{};
    for (std::size_t i = 0; i < out.size(); ++i) {
        unsigned v = 0;
        for (char c : hex.substr(2 * i, 2)) {
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0) {
                return std::nullopt;
            }
            v = v * 16 + static_cast<unsigned>(d);
        }
        out[i] = static_cast<std::uint8_t>(v);
    }
    return out;
}

} // namespace

std::string metadataText(const cache::EntryInfo& e)
{
    json cs = json::array();
    for (const auto& c : e.components) {
        cs.push_back({{"label", c.label}, {"digest", c.digest}, {"text", c.text}});
    }
    return dumpJson(json{{"format", kValueFormat},
                         {"key", e.key},
                         {"components", std::move(cs)},
                         {"region_digest", e.regionDigest},
                         {"title", e.title},
                         {"blob_sha256", e.blobSha256},
                         {"so_bytes", e.soBytes},
                         {"source_bytes", e.sourceBytes},
                         {"blob_bytes", e.blobBytes},
                         {"compile_ms", e.compileMs},
                         {"created_ms", e.createdMs},
                         {"status", static_cast<int>(e.status)},
                         {"status_code", static_cast<int>(e.statusCode)},
                         {"status_reason", e.statusReason}});
}

std::optional<cache::EntryInfo> parseMetadata(const std::string& text)
{
    try {
        const auto parsed = parseJson(text);
        if (!parsed.ok()) {
            return std::nullopt;
        }
        const json& j = *parsed;
        if (j.at("format").get<std::string>() != kValueFormat) {
            return std::nullopt;
        }
        cache::EntryInfo e;
        e.key = j.at("key").get<std::string>();
        for (const auto& c : j.at("components")) {
            e.components.push_back({c.at("label").get<std::string>(),
                                    c.at("text").get<std::string>(),
                                    c.at("digest").get<std::string>()});
        }
        e.regionDigest = j.at("region_digest").get<std::string>();
        e.title = j.at("title").get<std::string>();
        e.blobSha256 = j.at("blob_sha256").get<std::string>();
        e.soBytes = j.at("so_bytes").get<std::int64_t>();
        e.sourceBytes = j.at("source_bytes").get<std::int64_t>();
        e.blobBytes = j.at("blob_bytes").get<std::int64_t>();
        e.compileMs = j.at("compile_ms").get<double>();
        e.createdMs = j.at("created_ms").get<std::int64_t>();
        const int status = j.at("status").get<int>();
        if (status < 1 || status > 3) {
            return std::nullopt;
        }
        e.status = static_cast<cache::EntryStatus>(status);
        e.statusCode = cache::reasonFromCode(j.at("status_code").get<int>());
        e.statusReason = j.at("status_reason").get<std::string>();
        return e;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

Sha256 valueMac(const std::string& teamKey, const std::string& key, const std::string& metadata,
                const std::string& blob)
{
    // Lengths first, so no two different (key, metadata, blob) triples share a message.
    HmacSha256Builder mac(teamKey);
    const std::string head = std::string(kValueFormat) + "\n" + std::to_string(key.size()) + " " +
                             std::to_string(metadata.size()) + " " + std::to_string(blob.size()) +
                             "\n";
    mac.update(head);
    mac.update(key);
    mac.update(metadata);
    mac.update(blob);
    return mac.finish();
}

std::string joinMetadata(const std::optional<Sha256>& mac, const std::string& text)
{
    return (mac ? std::string(kMacTag) + toHex(*mac) : std::string("unsigned")) + "\n" + text;
}

std::optional<SignedMetadata> splitMetadata(const std::string& value)
{
    const auto nl = value.find('\n');
    if (nl == std::string::npos) {
        return std::nullopt;
    }
    SignedMetadata s;
    const std::string_view line(value.data(), nl);
    if (line.substr(0, kMacTag.size()) == kMacTag) {
        s.mac = parseSha256Hex(line.substr(kMacTag.size()));
    }
    s.text = value.substr(nl + 1);
    return s;
}

namespace {
CheckedValue failedCheck(cache::Reason reason, std::string problem)
{
    CheckedValue c;
    c.reason = reason;
    c.problem = std::move(problem);
    return c;
}
} // namespace

CheckedValue checkValue(const std::string& key, const std::optional<std::string>& teamKey,
                        const std::optional<std::string>& metaValue,
                        const std::optional<std::string>& blob)
{
    using cache::Reason;
    if (!metaValue || !blob) {
        return failedCheck(Reason::MissRemoteChecksum,
                           metaValue ? "the artifact is missing" : "the metadata is missing");
    }
    const auto meta = splitMetadata(*metaValue);
    const auto info = meta ? parseMetadata(meta->text) : std::nullopt;
    if (!info || info->key != key) {
        return failedCheck(Reason::MissRemoteChecksum, "the metadata is not this entry's");
    }
    if (toHex(sha256(*blob)) != info->blobSha256) {
        return failedCheck(Reason::MissRemoteChecksum, "the artifact failed its SHA-256 checksum");
    }
    if (teamKey) {
        if (!meta->mac) {
            return failedCheck(Reason::MissRemoteHmac, "the entry is not signed");
        }
        if (!digestsEqual(*meta->mac, valueMac(*teamKey, key, meta->text, *blob))) {
            return failedCheck(Reason::MissRemoteHmac,
                               "the HMAC does not match the team key (written with another "
                               "key, or altered)");
        }
    }
    CheckedValue c;
    c.entry.emplace();
    c.entry->info = *info;
    if (!cache::deserializeArtifact(*blob, c.entry->artifact)) {
        return failedCheck(Reason::MissRemoteChecksum, "the artifact's layout is unknown");
    }
    return c;
}

namespace {

constexpr std::string_view kLockFormat = "fxscope-lock-1";

Sha256 lockMac(const std::string& teamKey, const std::string& lockKey, std::string_view holder,
               std::string_view expiry)
{
    HmacSha256Builder mac(teamKey);
    mac.update(std::string(kLockFormat) + "\n" + lockKey + "\n" + std::string(holder) + "\n" +
               std::string(expiry));
    return mac.finish();
}

} // namespace

std::string lockHolderId()
{
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) {
        host[0] = '\0';
    }
    std::string h;
    for (const char* c = host; *c; ++c) {
        h += std::isalnum(static_cast<unsigned char>(*c)) || *c == '.' || *c == '-' ? *c : '_';
    }
    unsigned char bytes[8] = {};
    (void)::getrandom(bytes, sizeof bytes, 0);
    std::string hex;
    for (unsigned char b : bytes) {
        hex += "0123456789abcdef"[b >> 4];
        hex += "0123456789abcdef"[b & 15];
    }
    return (h.empty() ? std::string("host") : h) + ":" + std::to_string(::getpid()) + ":" + hex;
}

std::string lockValue(const std::string& teamKey, const std::string& lockKey,
                      const std::string& holder, std::int64_t expiryMs)
{
    const std::string expiry = std::to_string(expiryMs);
    return std::string(kLockFormat) + " " + holder + " " + expiry + " " +
           toHex(lockMac(teamKey, lockKey, holder, expiry));
}

bool validLock(const std::string& teamKey, const std::string& lockKey, const std::string& value,
               std::int64_t nowMs)
{
    // Four fields separated by single spaces; the holder has none.
    std::string_view rest = value;
    std::string_view fields[4];
    for (int i = 0; i < 4; ++i) {
        const auto sp = i < 3 ? rest.find(' ') : rest.size();
        if (sp == std::string_view::npos || sp == 0) {
            return false;
        }
        fields[i] = rest.substr(0, sp);
        rest = i < 3 ? rest.substr(sp + 1) : std::string_view();
    }
    std::int64_t expiry = 0;
    const auto [end, ec] =
        std::from_chars(fields[2].data(), fields[2].data() + fields[2].size(), expiry);
    if (fields[0] != kLockFormat || ec != std::errc() || end != fields[2].data() + fields[2].size()) {
        return false;
    }
    const auto mac = parseSha256Hex(fields[3]);
    return mac && digestsEqual(*mac, lockMac(teamKey, lockKey, fields[1], fields[2])) &&
           nowMs <= expiry;
}

} // namespace fxs::remote::detail
