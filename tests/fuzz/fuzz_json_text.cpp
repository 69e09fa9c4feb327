// libFuzzer target for the one JSON writer (core/util/json_text, `fxs::dumpJson`): random bytes
// as strings in every place a string can stand — object keys, values, array elements, strings
// in nested objects and arrays — must come out, on one line and pretty-printed, as valid UTF-8
// JSON that parses back with its shape kept and every valid string unchanged.
// Input: length-prefixed pieces (one byte of length, then that many bytes), so any byte, NUL
// included, can be in a string. The same bytes also go whole to the one JSON reader
// (core/util/json_parse, `fxs::parseJson`): it must refuse nesting past the cap and anything
// it accepts must dump and read back equal. Seeds: tests/fuzz/seeds/fuzz_json_text.
#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using nlohmann::json;

// Keys of the document's own fields, starting with a control character.
constexpr const char* kArrayKey = "\x01" "array";
constexpr const char* kNestedKey = "\x01" "nested";

std::vector<std::string> pieces(const std::uint8_t* data, std::size_t size)
{
    std::vector<std::string> out;
    for (std::size_t i = 0; i < size;) {
        const std::size_t n = std::min<std::size_t>(data[i], size - i - 1);
        out.emplace_back(reinterpret_cast<const char*>(data + i + 1), n);
        i += n + 1;
    }
    return out;
}

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
bool validUtf8(std::string_view s)
{
    for (std::size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        const int n = b < 0x80 ? 0
                      : (b >> 5) == 0x6 ? 1
                      : (b >> 4) == 0xe ? 2
                      : (b >> 3) == 0x1e ? 3
                                         : -1;
        if (n < 0 || i + static_cast<std::size_t>(n) >= s.size()) {
            return false; // not a lead byte, or the sequence is cut off
        }
        std::uint32_t cp = n == 0 ? b : b & (0x3f >> n);
        for (int k = 1; k <= n; ++k) {
            const auto c = static_cast<unsigned char>(s[i + k]);
            if ((c & 0xc0) != 0x80) {
                return false;
            }
            cp = (cp << 6) | (c & 0x3f);
        }
        static const std::uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
        if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            return false;
        }
        i += n + 1;
    }
    return true;
}

// Every piece in one role, by position: key and value, array element, nested object field,
// key and element of a nested array.
json document(const std::vector<std::string>& ps)
{
    json root = json::object();
    json array = json::array();
    json nested = json::object();
    for (std::size_t i = 0; i < ps.size(); ++i) {
        const std::string& s = ps[i];
        switch (i % 4) {
        case 0: root[s] = s; break;
        case 1: array.push_back(s); break;
        case 2: nested["n" + std::to_string(i)] = {{"name", s}, {"index", i}}; break;
        default: root["m" + std::to_string(i)] = json::array({s, {{s, s}}}); break;
        }
    }
    // Assigned last, so no piece's key overwrites them.
    root[kArrayKey] = array;
    root[kNestedKey] = nested;
    return root;
}

void check(const json& doc, int indent)
{
    const std::string text = fxs::dumpJson(doc, indent);
    if (!validUtf8(text)) {
        std::abort();
    }
    const json back = json::parse(text, nullptr, false);
    if (back.is_discarded()) {
        std::abort();
    }
    const json& array = doc[kArrayKey];
    const json& arrayBack = back.at(kArrayKey);
    if (arrayBack.size() != array.size() ||
        back.at(kNestedKey).size() != doc[kNestedKey].size()) {
        std::abort();
    }
    for (std::size_t i = 0; i < array.size(); ++i) {
        const auto& s = array[i].get_ref<const std::string&>();
        if (validUtf8(s) && arrayBack[i] != s) {
            std::abort(); // valid strings pass unchanged
        }
    }
}

// The reader on the raw bytes: nesting past the cap is refused where the scan says, an accepted
// value round-trips through the writer.
void checkReader(std::string_view text)
{
    const auto deep = fxs::findDeepJsonNesting(text, fxs::kMaxNesting);
    const auto parsed = fxs::parseJson(text);
    if (deep && parsed.ok()) {
        std::abort();
    }
    if (!parsed.ok()) {
        return;
    }
    const auto back = fxs::parseJson(fxs::dumpJson(*parsed));
    if (!back.ok() || *back != *parsed) { // JSON text holds no NaN: values compare equal
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const json doc = document(pieces(data, size));
    check(doc, -1);
    check(doc, 2);
    checkReader(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
