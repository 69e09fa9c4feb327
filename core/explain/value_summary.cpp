#include "core/explain/value_summary.h"

#include "core/keydiff/field_diff.h"
#include "core/util/diagnostics.h"
#include "core/util/strings.h"

#include <algorithm>

namespace fxs::explain {
namespace {

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

std::string describeChange(const model::KeyComponent& a, const model::KeyComponent& b)
{
    if (isUnreadableValue(a) || isUnreadableValue(b) || a.family == "gm" || b.family == "gm") {
        return displayValue(a) + std::string(kChangeArrow) + displayValue(b);
    }
    const keydiff::FieldStrategy fields = keydiff::fieldStrategyOf(a.value, b.value);
    if (fields == keydiff::FieldStrategy::TensorMetadata) {
        std::vector<std::string> phrases;
        for (const auto& f : keydiff::diffFields(a.value, b.value, fields)) {
            phrases.push_back(f.field + " " + f.a + std::string(kChangeArrow) + f.b);
        }
        if (!phrases.empty()) {
            return join(phrases, ", ");
        }
    }
    if (a.value == b.value) {
        // Same text, different digest: the logged text hides the difference.
        return "same text, digest " + abbreviateDigest(a.digest) + std::string(kChangeArrow) +
               abbreviateDigest(b.digest);
    }
    return displayValue(a) + std::string(kChangeArrow) + displayValue(b);
}

} // namespace fxs::explain
