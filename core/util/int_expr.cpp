#include "core/util/int_expr.h"

#include "core/util/checked_int.h"
#include "core/util/nesting.h"

#include <cctype>
#include <charconv>
#include <cstdint>

namespace fxs {
namespace {

constexpr std::string_view kInt64MinMagnitude = "9223372036854775808";

bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Recursive descent with one depth counter for parentheses, signs and powers:
//   sum := product (('+' | '-') product)*
//   product := unary (('*' | '//' | '/' | '%') unary)*
//   unary := ('-' | '+') unary | power
//   power := atom ('**' unary)?
//   atom := INTEGER | NAME | '(' sum ')'
class Evaluator {
public:
    Evaluator(std::string_view s, const IntSymbolLookup& lookup) : m_s(s), m_lookup(lookup) {}

    Result<std::int64_t> run()
    {
        const std::int64_t v = sum();
        skip();
        if (m_error.empty() && m_i != m_s.size()) {
            fail("unexpected text at `" + std::string(m_s.substr(m_i, 20)) + "`");
        }
        if (!m_error.empty()) {
            Error e = makeError(ErrorCode::Invalid, m_error);
            constexpr std::size_t kShown = 160; // 100,000 parentheses are not worth printing
            e.found = m_s.size() <= kShown ? std::string(m_s)
                                           : std::string(m_s.substr(0, kShown)) + "...";
            e.expected = m_expected;
            return e;
        }
        return v;
    }

private:
    void skip()
    {
        while (m_i < m_s.size() && (m_s[m_i] == ' ' || m_s[m_i] == '\t')) {
            ++m_i;
        }
    }
    bool ok() const { return m_error.empty(); }
    std::int64_t fail(std::string message, std::string expected = {})
    {
        if (m_error.empty()) {
            m_error = std::move(message);
            m_expected = std::move(expected);
        }
        return 0;
    }
    bool enter()
    {
        if (++m_depth > kMaxNesting) {
            fail("size expression nested deeper than " + std::to_string(kMaxNesting) + " levels",
                 "at most " + std::to_string(kMaxNesting) + " nested parentheses and signs");
            return false;
        }
        return true;
    }
    // The operation's result, or an error naming the operands and the operator.
    std::int64_t checked(CheckedInt r, std::int64_t a, std::string_view op, std::int64_t b)
    {
        if (r.ok()) {
            return r.value;
        }
        const std::string at = "`" + std::to_string(a) + " " + std::string(op) + " " +
                               std::to_string(b) + "`";
        switch (r.fault) {
        case IntFault::DivisionByZero: return fail("division by zero at " + at);
        case IntFault::NegativeExponent: return fail("negative exponent at " + at,
                                                     "an integer result");
        default: return fail("size expression overflows int64 at " + at,
                             "a result in [-2^63, 2^63 - 1]");
        }
    }

    std::int64_t sum()
    {
        std::int64_t v = product();
        for (skip(); ok() && m_i < m_s.size() && (m_s[m_i] == '+' || m_s[m_i] == '-'); skip()) {
            const char op = m_s[m_i++];
            const std::int64_t r = product();
            v = checked(op == '+' ? checkedAdd(v, r) : checkedSub(v, r), v,
                        std::string_view(&op, 1), r);
        }
        return v;
    }

    std::int64_t product()
    {
        std::int64_t v = unary();
        for (skip(); ok() && m_i < m_s.size(); skip()) {
            std::string_view op;
            if (m_s.substr(m_i, 2) == "//") {
                op = "//";
            } else if ((m_s[m_i] == '*' && m_s.substr(m_i, 2) != "**") || m_s[m_i] == '/' ||
                       m_s[m_i] == '%') {
                op = m_s.substr(m_i, 1);
            } else {
                break;
            }
            m_i += op.size();
            const std::int64_t r = unary();
            if (!ok()) {
                break;
            }
            const CheckedInt c = op == "*"   ? checkedMul(v, r)
                                 : op == "%" ? checkedMod(v, r)
                                             : checkedFloorDiv(v, r); // "//" and "/"
            v = checked(c, v, op, r);
        }
        return v;
    }

    std::int64_t unary()
    {
        skip();
        if (m_i >= m_s.size() || (m_s[m_i] != '-' && m_s[m_i] != '+')) {
            return power();
        }
        const char sign = m_s[m_i++];
        if (!enter()) {
            return 0;
        }
        std::int64_t v = 0;
        if (sign == '-' && atInt64MinMagnitude()) {
            m_i += kInt64MinMagnitude.size(); // -9223372036854775808 is a literal in range
            v = INT64_MIN;
            --m_depth;
            return v;
        }
        const std::int64_t operand = unary();
        if (ok()) {
            v = sign == '+' ? operand : checked(checkedNeg(operand), 0, "-", operand);
        }
        --m_depth;
        return v;
    }

    // The literal 9223372036854775808 comes next, as a whole token and not a power's base.
    bool atInt64MinMagnitude()
    {
        std::size_t i = m_i;
        while (i < m_s.size() && (m_s[i] == ' ' || m_s[i] == '\t')) {
            ++i;
        }
        if (m_s.substr(i, kInt64MinMagnitude.size()) != kInt64MinMagnitude) {
            return false;
        }
        std::size_t end = i + kInt64MinMagnitude.size();
        if (end < m_s.size() && isNameChar(m_s[end])) {
            return false;
        }
        m_i = i;
        while (end < m_s.size() && (m_s[end] == ' ' || m_s[end] == '\t')) {
            ++end;
        }
        return m_s.substr(end, 2) != "**";
    }

    std::int64_t power()
    {
        const std::int64_t base = atom();
        skip();
        if (!ok() || m_s.substr(m_i, 2) != "**") {
            return base;
        }
        m_i += 2;
        if (!enter()) {
            return 0;
        }
        const std::int64_t exponent = unary(); // right-associative; -x binds tighter
        --m_depth;
        return ok() ? checked(checkedPow(base, exponent), base, "**", exponent) : 0;
    }

    std::int64_t atom()
    {
        skip();
        if (m_i < m_s.size() && m_s[m_i] == '(') {
            ++m_i;
            if (!enter()) {
                return 0;
            }
            const std::int64_t v = sum();
            --m_depth;
            skip();
            if (ok() && (m_i >= m_s.size() || m_s[m_i] != ')')) {
                return fail("missing ')'", "')'");
            }
            ++m_i;
            return v;
        }
        const std::size_t start = m_i;
        while (m_i < m_s.size() && isNameChar(m_s[m_i])) {
            ++m_i;
        }
        const std::string_view tok = m_s.substr(start, m_i - start);
        if (tok.empty()) {
            return fail("expected a number or a symbol", "an integer, a symbol or '('");
        }
        if (std::isdigit(static_cast<unsigned char>(tok[0])) != 0) {
            auto v = parseIntLiteral(tok);
            return v.ok() ? *v : fail(v.error().message, v.error().expected);
        }
        const auto v = m_lookup ? m_lookup(tok) : std::nullopt;
        if (!v) {
            return fail("no value for symbolic size '" + std::string(tok) + "' (give --size " +
                        std::string(tok) + "=N)");
        }
        return *v;
    }

    std::string_view m_s;
    const IntSymbolLookup& m_lookup;
    std::size_t m_i = 0;
    int m_depth = 0;
    std::string m_error;
    std::string m_expected;
};

} // namespace

Result<std::int64_t> parseIntLiteral(std::string_view text)
{
    std::size_t b = text.find_first_not_of(" \t");
    const std::size_t e = text.find_last_not_of(" \t");
    const std::string_view t = b == std::string_view::npos ? text.substr(0, 0)
                                                           : text.substr(b, e - b + 1);
    std::string_view digits = t;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
        digits.remove_prefix(1);
    }
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
        Error err = makeError(ErrorCode::Invalid, "not an integer");
        err.expected = "a decimal integer";
        err.found = std::string(t.substr(0, 40));
        return err;
    }
    std::int64_t v = 0;
    const char* first = t.data() + (t[0] == '+' ? 1 : 0);
    const auto [p, ec] = std::from_chars(first, t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size()) {
        std::string shown(t.substr(0, 40));
        shown += t.size() > 40 ? "..." : "";
        Error err = makeError(ErrorCode::Invalid, "integer literal " + shown +
                                                      " out of range (int64)");
        err.expected = "an integer in [-9223372036854775808, 9223372036854775807]";
        err.found = shown;
        return err;
    }
    return v;
}

Result<std::int64_t> evalIntExpr(std::string_view expr, const IntSymbolLookup& lookup)
{
    return Evaluator(expr, lookup).run();
}

} // namespace fxs
