// parseValueMeta: the annotation strings of printed graph code ("f32[s0, 64][64, 1]cuda:0",
// "i64[]", "Sym(s0)").
#include "core/io/graph_code_parser.h"

#include "core/io/graph_comments.h"
#include "core/util/strings.h"

#include <algorithm>
#include <charconv>

namespace fxs::io {

namespace {

// "[4, 64, 1]": concrete dims in one pass; npos (dims untouched) for anything else.
std::size_t parseConcreteDims(std::string_view text, std::vector<graph::SymInt>& dims)
{
    std::int64_t values[16];
    std::size_t n = 0;
    bool inNumber = false;
    bool expectDim = false;  // after ','
    bool numberDone = false; // a space ended the number: only ',' or ']' may follow
    for (std::size_t i = 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            if (numberDone) {
                return std::string_view::npos;
            }
            if (!inNumber) {
                if (n == 16) {
                    return std::string_view::npos;
                }
                values[n++] = 0;
                inNumber = true;
                expectDim = false;
            }
            if (values[n - 1] > (std::int64_t(1) << 58)) {
                return std::string_view::npos; // let the general path report overflow as text
            }
            values[n - 1] = values[n - 1] * 10 + (c - '0');
        } else if (c == ',' && n > 0 && !expectDim) {
            inNumber = numberDone = false;
            expectDim = true;
        } else if (c == ' ') {
            numberDone = inNumber || numberDone;
            inNumber = false;
        } else if (c == ']' && !expectDim) {
            dims.reserve(n);
            for (std::size_t k = 0; k < n; ++k) {
                dims.push_back(graph::SymInt::of(values[k]));
            }
            return i + 1;
        } else {
            return std::string_view::npos;
        }
    }
    return std::string_view::npos;
}

// Parses "[4, s0 + 1, 2*s1]" at the start of text into dims and returns the length consumed,
// or npos. Concrete sizes take a fast path; anything else is kept as symbolic text.
std::size_t parseDims(std::string_view text, std::vector<graph::SymInt>& dims)
{
    if (const std::size_t fast = parseConcreteDims(text, dims); fast != std::string_view::npos) {
        return fast;
    }
    const std::size_t len = detail::balancedLength(text);
    if (len == std::string_view::npos || text[0] != '[') {
        return std::string_view::npos;
    }
    const std::string_view body = text.substr(1, len - 2);
    if (trim(body).empty()) {
        return len;
    }
    dims.reserve(static_cast<std::size_t>(std::count(body.begin(), body.end(), ',')) + 1);
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= body.size(); ++i) {
        const char c = i < body.size() ? body[i] : ',';
        depth += (c == '(' || c == '[') ? 1 : (c == ')' || c == ']') ? -1 : 0;
        if (c != ',' || depth != 0) {
            continue;
        }
        const std::string_view dim = trim(body.substr(start, i - start));
        start = i + 1;
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), v);
        if (dim.empty()) {
            return std::string_view::npos;
        }
        if (ec == std::errc() && end == dim.data() + dim.size()) {
            dims.push_back(graph::SymInt::of(v));
        } else {
            dims.push_back(graph::SymInt::symbol(std::string(dim)));
        }
    }
    return len;
}

graph::ValueMeta other(std::string_view text)
{
    graph::ValueMeta m;
    m.kind = graph::ValueMeta::Kind::Other;
    m.text = std::string(text);
    return m;
}

} // namespace

graph::ValueMeta parseValueMeta(std::string_view annotation)
{
    const std::string_view text = trim(annotation);
    if (text.empty()) {
        return {};
    }
    if (startsWith(text, "Sym(") && text.back() == ')') {
        graph::ValueMeta m;
        m.kind = graph::ValueMeta::Kind::Sym;
        m.text = std::string(text);
        return m;
    }
    const auto open = text.find('[');
    const auto dtype = open == std::string_view::npos ? std::nullopt
                                                      : graph::dtypeFromCode(text.substr(0, open));
    if (!dtype) {
        return other(text);
    }
    graph::TensorMeta t;
    t.dtype = *dtype;
    std::string_view rest = text.substr(open);
    std::size_t len = parseDims(rest, t.sizes);
    if (len == std::string_view::npos) {
        return other(text);
    }
    rest = rest.substr(len);
    if (!rest.empty() && rest[0] == '[') {
        len = parseDims(rest, t.strides.emplace());
        if (len == std::string_view::npos) {
            return other(text);
        }
        rest = rest.substr(len);
    }
    if (!rest.empty()) {
        t.device = graph::Device::parse(rest);
        if (!t.device) {
            return other(text);
        }
    }
    graph::ValueMeta m;
    m.kind = graph::ValueMeta::Kind::Tensor;
    m.tensor = std::move(t);
    m.text = std::string(text);
    return m;
}

} // namespace fxs::io
