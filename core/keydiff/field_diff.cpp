#include "core/keydiff/field_diff.h"

#include "core/util/strings.h"

#include <algorithm>
#include <array>

namespace fxs::keydiff {
namespace {

constexpr std::string_view kAbsent = "(absent)";

bool isKeyValueText(std::string_view t)
{
    return t.find('\n') == std::string_view::npos && t.find('=') != std::string_view::npos;
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

const std::string* findField(const Fields& fields, std::string_view key)
{
    for (const auto& [k, v] : fields) {
        if (k == key) {
            return &v;
        }
    }
    return nullptr;
}

std::vector<FieldChange> diffTensorMetadata(const Fields& a, const Fields& b)
{
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
    std::vector<FieldChange> out;
    for (const auto& key : keys) {
        const std::string* va = findField(a, key);
        const std::string* vb = findField(b, key);
        if (va && vb && *va == *vb) {
            continue;
        }
        out.push_back({key, va ? cleanTensorField(key, *va) : std::string(kAbsent),
                       vb ? cleanTensorField(key, *vb) : std::string(kAbsent)});
    }
    return out;
}

// Fields in position: the i-th of A against the i-th of B. A field without '=' is all value,
// named by the other side's field (the region key's texts always have names).
std::vector<FieldChange> diffKeyValueLists(std::string_view a, std::string_view b)
{
    const auto fa = split(a, ';');
    const auto fb = split(b, ';');
    std::vector<FieldChange> out;
    for (std::size_t i = 0; i < std::max(fa.size(), fb.size()); ++i) {
        const std::string_view x = i < fa.size() ? fa[i] : std::string_view();
        const std::string_view y = i < fb.size() ? fb[i] : std::string_view();
        if (x == y) {
            continue;
        }
        const auto ex = x.find('=');
        const auto ey = y.find('=');
        FieldChange c;
        c.field = std::string(ex != std::string_view::npos ? x.substr(0, ex) : y.substr(0, ey));
        c.a = ex != std::string_view::npos ? std::string(x.substr(ex + 1)) : std::string(x);
        c.b = ey != std::string_view::npos ? std::string(y.substr(ey + 1)) : std::string(y);
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace

Fields parseTensorMetadata(std::string_view text)
{
    Fields fields;
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

FieldStrategy fieldStrategyOf(std::string_view a, std::string_view b)
{
    if (startsWith(trim(a), "TensorMetadata(") && startsWith(trim(b), "TensorMetadata(") &&
        !parseTensorMetadata(a).empty() && !parseTensorMetadata(b).empty()) {
        return FieldStrategy::TensorMetadata;
    }
    if (isKeyValueText(a) && isKeyValueText(b)) {
        return FieldStrategy::KeyValueList;
    }
    return FieldStrategy::None;
}

std::vector<FieldChange> diffFields(std::string_view a, std::string_view b,
                                    FieldStrategy strategy)
{
    switch (strategy) {
    case FieldStrategy::TensorMetadata:
        return diffTensorMetadata(parseTensorMetadata(a), parseTensorMetadata(b));
    case FieldStrategy::KeyValueList: return diffKeyValueLists(a, b);
    case FieldStrategy::None: break;
    }
    return {};
}

std::size_t countFieldDifferences(std::string_view a, std::string_view b)
{
    if (a == b) {
        return 0;
    }
    const std::size_t n = diffFields(a, b, fieldStrategyOf(a, b)).size();
    return std::max<std::size_t>(n, 1);
}

} // namespace fxs::keydiff
