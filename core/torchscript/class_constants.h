// Guards torch::jit::load against a class body it crashes on: LibTorch 1.13 takes an assignment
// with a value but no type (`x = 1` directly under `class M(Module):`, other than the
// `__parameters__`-style lists it knows) for a class constant and reads its missing `Final[...]`
// type, a segfault (found by fuzz_torchscript; later LibTorch checks it). torch.jit.save writes
// constants typed (`x : Final[int] = 1`). Not a parser: it reads the lines of code/*.py that sit
// at a class body's indentation; Enum bodies, whose members are untyped, are skipped.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fxs::torchscript {

struct UntypedConstant {
    int line = 0;     // 1-based
    std::string name; // the assigned name
};

// The first untyped assignment in a class body of `source`, nullopt when there is none.
std::optional<UntypedConstant> findUntypedClassConstant(std::string_view source);

} // namespace fxs::torchscript
