#include "core/explain/value_summary.h"

#include "core/util/diagnostics.h"
#include "core/util/strings.h"

#include <algorithm>
#include <array>

namespace fxs::explain {
namespace {

constexpr std::string_view kArrow = " \u2192 ";
constexpr std::string_view kEllipsis = "\u2026";

bool validUtf8(std::string_view s)
{
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t extra = 0;
        if (c < 0x80) {
            extra = 0;
        } else if ((c & 0xe0) == 0xc0 && c >= 0xc2) {
            extra = 1;
        } else if ((c & 0xf0) == 0xe0) {
            extra = 2;
        } else if ((c & 0xf8) == 0xf0 && c <= 0xf4) {
            extra = 3;
        } else {
            return false;
        }
        for (std::size_t k = 1; k <= extra; ++k) {
            if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) {
                return false;
            }
        }
        i += extra + 1;
    }
    return true;
}

bool hasControlBytes(std::string_view s)
{
    return std::any_of(s.begin(), s.end(), [](char ch) {
        const auto u = static_cast<unsigned char>(ch);
        return (u < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') || u == 0x7f;
    });
}

bool isPickle(std::string_view v)
{
    return !v.empty() && static_cast<unsigned char>(v.front()) == 0x80;
}

std::size_t lineCount(std::string_view s)
{
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')) + 1;
}

// Splits "a=1, b=(2, 3), c='x, y'" at top-level commas.
std::vector<std::string_view> splitTopLevel(std::string_view s)
{
    std::vector<std::string_view> parts;
    int depth = 0;
    char quote = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote != 0) {
            if (c == '\\') {
                ++i;
            } else if (c == quote) {
                quote = 0;
            }
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            --depth;
        } else if (c == ',' && depth == 0) {
            parts.push_back(trim(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    if (start < s.size()) {
        parts.push_back(trim(s.substr(start)));
    }
    return parts;
}

std::string_view stripWrapper(std::string_view v, std::string_view open, std::string_view close)
{
    if (startsWith(v, open) && endsWith(v, close)) {
        return v.substr(open.size(), v.size() - open.size() - close.size());
    }
    return v;
}

// "torch.float32" → "float32"; "torch.Size([64, 64])" → "[64, 64]";
// "device(type='cuda', index=0)" → "cuda:0".
std::string cleanTensorField(std::string_view key, std::string_view v)
{
    if (key == "shape") {
        return std::string(stripWrapper(v, "torch.Size(", ")"));
    }
    if (key == "device" && startsWith(v, "device(")) {
        std::string type;
        std::string index;
        for (auto part : splitTopLevel(stripWrapper(v, "device(", ")"))) {
            if (startsWith(part, "type=")) {
                type = std::string(stripWrapper(part.substr(5), "'", "'"));
            } else if (startsWith(part, "index=")) {
                index = std::string(part.substr(6));
            }
        }
        return index.empty() || index == "None" ? type : type + ":" + index;
    }
    if (startsWith(v, "torch.")) {
        return std::string(v.substr(6));
    }
    return std::string(v);
}

int tensorFieldOrder(std::string_view key)
{
    static constexpr std::array<std::string_view, 4> kFirst{"dtype", "shape", "stride", "device"};
    const auto it = std::find(kFirst.begin(), kFirst.end(), key);
    return it == kFirst.end() ? static_cast<int>(kFirst.size()) : int(it - kFirst.begin());
}

std::string describeTensorChange(const std::vector<std::pair<std::string, std::string>>& a,
                                 const std::vector<std::pair<std::string, std::string>>& b)
{
    auto find = [](const auto& fields, std::string_view key) -> const std::string* {
        for (const auto& [k, v] : fields) {
            if (k == key) {
                return &v;
            }
        }
        return nullptr;
    };
    std::vector<std::string> keys;
    for (const auto* side : {&a, &b}) {
        for (const auto& kv : *side) {
            if (std::find(keys.begin(), keys.end(), kv.first) == keys.end()) {
                keys.push_back(kv.first);
            }
        }
    }
    std::stable_sort(keys.begin(), keys.end(), [](const auto& x, const auto& y) {
        return tensorFieldOrder(x) < tensorFieldOrder(y);
    });
    std::vector<std::string> phrases;
    for (const auto& key : keys) {
        const std::string* va = find(a, key);
        const std::string* vb = find(b, key);
        if (va && vb && *va == *vb) {
            continue;
        }
        const std::string sa = va ? cleanTensorField(key, *va) : std::string("(absent)");
        const std::string sb = vb ? cleanTensorField(key, *vb) : std::string("(absent)");
        phrases.push_back(key + " " + sa + std::string(kArrow) + sb);
    }
    return join(phrases, ", ");
}

} // namespace

bool isUnreadableValue(const model::KeyComponent& c)
{
    return !c.readable || isPickle(c.value) || hasControlBytes(c.value) || !validUtf8(c.value);
}

std::string abbreviateDigest(std::string_view digest)
{
    if (digest.size() <= 8) {
        return std::string(digest);
    }
    return std::string(digest.substr(0, 8)) + std::string(kEllipsis);
}

std::string displayValue(const model::KeyComponent& c)
{
    if (isUnreadableValue(c)) {
        const char* what = isPickle(c.value) ? "pickle" : "binary";
        return "<" + std::string(what) + ", digest " + abbreviateDigest(c.digest) + ">";
    }
    if (c.family == "gm") {
        return "<graph code, " + std::to_string(lineCount(c.value)) + " lines, digest " +
               abbreviateDigest(c.digest) + ">";
    }
    const auto newline = c.value.find('\n');
    if (newline != std::string::npos) {
        return abbreviate(std::string_view(c.value).substr(0, newline), kMaxValueChars) + " " +
               std::string(kEllipsis) + " (" + std::to_string(lineCount(c.value)) + " lines)";
    }
    return abbreviate(c.value, kMaxValueChars);
}

std::vector<std::pair<std::string, std::string>> parseTensorMetadata(std::string_view text)
{
    std::vector<std::pair<std::string, std::string>> fields;
    text = trim(text);
    if (!startsWith(text, "TensorMetadata(") || !endsWith(text, ")")) {
        return fields;
    }
    for (auto part : splitTopLevel(stripWrapper(text, "TensorMetadata(", ")"))) {
        const auto eq = part.find('=');
        if (eq == std::string_view::npos) {
            return {};
        }
        fields.emplace_back(std::string(trim(part.substr(0, eq))),
                            std::string(trim(part.substr(eq + 1))));
    }
    return fields;
}

std::string describeChange(const model::KeyComponent& a, const model::KeyComponent& b)
{
    if (isUnreadableValue(a) || isUnreadableValue(b) || a.family == "gm" || b.family == "gm") {
        return displayValue(a) + std::string(kArrow) + displayValue(b);
    }
    const auto ta = parseTensorMetadata(a.value);
    const auto tb = parseTensorMetadata(b.value);
    if (!ta.empty() && !tb.empty()) {
        std::string phrase = describeTensorChange(ta, tb);
        if (!phrase.empty()) {
            return phrase;
        }
    }
    if (a.value == b.value) {
        // Same text, different digest: the logged text hides the difference.
        return "same text, digest " + abbreviateDigest(a.digest) + std::string(kArrow) +
               abbreviateDigest(b.digest);
    }
    return displayValue(a) + std::string(kArrow) + displayValue(b);
}

} // namespace fxs::explain
