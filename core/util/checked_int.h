// Checked 64-bit integer arithmetic with Python's rounding (floor division, modulo with the
// divisor's sign): every operation either gives the exact result or says why it has none
// (overflow, division by zero), so no input can reach INT64_MIN / -1 (SIGFPE) or signed
// overflow (undefined behaviour). For size expressions and sizes read from files; not a
// bignum.
#pragma once

#include <cstdint>
#include <optional>

namespace fxs {

enum class IntFault : std::uint8_t { None, Overflow, DivisionByZero, NegativeExponent };

struct CheckedInt {
    std::int64_t value = 0;
    IntFault fault = IntFault::None;
    bool ok() const { return fault == IntFault::None; }
};

inline CheckedInt checkedAdd(std::int64_t a, std::int64_t b)
{
    CheckedInt r;
    r.fault = __builtin_add_overflow(a, b, &r.value) ? IntFault::Overflow : IntFault::None;
    return r;
}

inline CheckedInt checkedSub(std::int64_t a, std::int64_t b)
{
    CheckedInt r;
    r.fault = __builtin_sub_overflow(a, b, &r.value) ? IntFault::Overflow : IntFault::None;
    return r;
}

inline CheckedInt checkedMul(std::int64_t a, std::int64_t b)
{
    CheckedInt r;
    r.fault = __builtin_mul_overflow(a, b, &r.value) ? IntFault::Overflow : IntFault::None;
    return r;
}

inline CheckedInt checkedNeg(std::int64_t a) { return checkedSub(0, a); }

// Python's a // b: rounds toward negative infinity.
inline CheckedInt checkedFloorDiv(std::int64_t a, std::int64_t b)
{
    if (b == 0) {
        return {0, IntFault::DivisionByZero};
    }
    if (b == -1) {
        return checkedNeg(a); // INT64_MIN // -1 overflows (and traps in hardware)
    }
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) {
        --q;
    }
    return {q, IntFault::None};
}

// Python's a % b: the result has the sign of b (0 for b == -1, where C++'s % traps on
// INT64_MIN).
inline CheckedInt checkedMod(std::int64_t a, std::int64_t b)
{
    if (b == 0) {
        return {0, IntFault::DivisionByZero};
    }
    if (b == -1) {
        return {0, IntFault::None};
    }
    std::int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) {
        m += b;
    }
    return {m, IntFault::None};
}

// a ** b for b >= 0 (square and multiply, each step checked).
inline CheckedInt checkedPow(std::int64_t a, std::int64_t b)
{
    if (b < 0) {
        return {0, IntFault::NegativeExponent};
    }
    CheckedInt r{1, IntFault::None};
    std::int64_t base = a;
    while (b > 0) {
        if (b & 1) {
            r = checkedMul(r.value, base);
            if (!r.ok()) {
                return r;
            }
        }
        b >>= 1;
        if (b > 0) {
            const CheckedInt sq = checkedMul(base, base);
            if (!sq.ok()) {
                return sq;
            }
            base = sq.value;
        }
    }
    return r;
}

} // namespace fxs
