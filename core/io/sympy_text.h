// Symbolic sizes of torch.export archives in the form printed graph code uses: sympy's srepr
// (`Mul(Integer(2), Symbol('s77', positive=True, integer=True))`) becomes `2*s77`; text that
// is already infix (`s0 + 1`, older archives) comes back unchanged. Not an algebra system:
// nothing is simplified, unknown functions print as `Name(a, b)`.
#pragma once

#include <string>
#include <string_view>

namespace fxs::io {

// The infix text of a serialized symbolic expression; the input itself when it cannot be read
// as srepr (nested deeper than 64 calls, unbalanced, ...).
std::string sympyToInfix(std::string_view expr);

} // namespace fxs::io
