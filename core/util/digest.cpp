#include "core/util/digest.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/md5.h>
#include <openssl/sha.h>
#include <xxhash.h>

namespace fxs {

// The low-level MD5 entry point is deprecated in OpenSSL 3 but has no per-call provider
// lookup, which matters for the many small payloads of a TORCH_TRACE log.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
Md5 md5(std::string_view data)
{
    Md5 out{};
    MD5(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data());
    return out;
}

Sha256 sha256(std::string_view data)
{
    Sha256 out{};
    SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data());
    return out;
}
#pragma GCC diagnostic pop

std::uint64_t xxh3(std::string_view data) { return XXH3_64bits(data.data(), data.size()); }

std::string toHex(const std::uint8_t* bytes, std::size_t n)
{
    static const char* kDigits = "0123456789abcdef";
    std::string s(n * 2, '0');
    for (std::size_t i = 0; i < n; ++i) {
        s[2 * i] = kDigits[bytes[i] >> 4];
        s[2 * i + 1] = kDigits[bytes[i] & 15];
    }
    return s;
}

static int hexValue(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

bool parseMd5Hex(std::string_view hex, Md5& out)
{
    if (hex.size() != 32) {
        return false;
    }
    for (std::size_t i = 0; i < 16; ++i) {
        const int hi = hexValue(hex[2 * i]);
        const int lo = hexValue(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return false;
        }
        out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
    }
    return true;
}

Sha256Builder::Sha256Builder() : m_ctx(EVP_MD_CTX_new())
{
    EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(m_ctx), EVP_sha256(), nullptr);
}

Sha256Builder::~Sha256Builder() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(m_ctx)); }

void Sha256Builder::update(std::string_view data)
{
    EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(m_ctx), data.data(), data.size());
}

Sha256 Sha256Builder::finish()
{
    Sha256 out{};
    unsigned int n = 0;
    EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(m_ctx), out.data(), &n);
    return out;
}

HmacSha256Builder::HmacSha256Builder(std::string_view key)
{
    EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    auto* ctx = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac); // the context keeps its own reference
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                           OSSL_PARAM_construct_end()};
    EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params);
    m_ctx = ctx;
}

HmacSha256Builder::~HmacSha256Builder() { EVP_MAC_CTX_free(static_cast<EVP_MAC_CTX*>(m_ctx)); }

void HmacSha256Builder::update(std::string_view data)
{
    EVP_MAC_update(static_cast<EVP_MAC_CTX*>(m_ctx),
                   reinterpret_cast<const unsigned char*>(data.data()), data.size());
}

Sha256 HmacSha256Builder::finish()
{
    Sha256 out{};
    std::size_t n = 0;
    EVP_MAC_final(static_cast<EVP_MAC_CTX*>(m_ctx), out.data(), &n, out.size());
    return out;
}

Sha256 hmacSha256(std::string_view key, std::string_view data)
{
    HmacSha256Builder b(key);
    b.update(data);
    return b.finish();
}

bool digestsEqual(const Sha256& a, const Sha256& b)
{
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

} // namespace fxs
