// Digests over byte strings: MD5 (TORCH_TRACE payload checks), SHA-256 (artifact integrity,
// cache keys), HMAC-SHA-256 (remote cache values) and XXH3 (fast in-memory hashing). Thin
// wrappers over OpenSSL and xxHash.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace fxs {

using Md5 = std::array<std::uint8_t, 16>;
using Sha256 = std::array<std::uint8_t, 32>;

Md5 md5(std::string_view data);
Sha256 sha256(std::string_view data);
std::uint64_t xxh3(std::string_view data);

// Lower-case hex of any byte array.
std::string toHex(const std::uint8_t* bytes, std::size_t n);
template <std::size_t N>
std::string toHex(const std::array<std::uint8_t, N>& a)
{
    return toHex(a.data(), N);
}
// Parses 32 hex characters; false when the text is not an MD5 in hex.
bool parseMd5Hex(std::string_view hex, Md5& out);

// Incremental SHA-256 for data that arrives in pieces.
class Sha256Builder {
public:
    Sha256Builder();
    ~Sha256Builder();
    Sha256Builder(const Sha256Builder&) = delete;
    Sha256Builder& operator=(const Sha256Builder&) = delete;
    void update(std::string_view data);
    Sha256 finish();

private:
    void* m_ctx;
};

// HMAC-SHA-256 (RFC 2104) for data that arrives in pieces: authenticates what a shared key's
// holders wrote (the remote cache tier's values).
class HmacSha256Builder {
public:
    explicit HmacSha256Builder(std::string_view key);
    ~HmacSha256Builder();
    HmacSha256Builder(const HmacSha256Builder&) = delete;
    HmacSha256Builder& operator=(const HmacSha256Builder&) = delete;
    void update(std::string_view data);
    Sha256 finish();

private:
    void* m_ctx;
};
Sha256 hmacSha256(std::string_view key, std::string_view data);

// Compares two digests in constant time (for MACs: no timing hints to a forger).
bool digestsEqual(const Sha256& a, const Sha256& b);

} // namespace fxs
