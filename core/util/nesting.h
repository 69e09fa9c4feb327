// The one nesting cap of fxscope's recursive readers: graph code expressions (io/py_expr.h),
// every JSON document (json_parse.h) and size expressions (int_expr.h) refuse input nested
// deeper than this, before anything recursive (a parser, nlohmann's copy and dump, our own
// readers) walks it. Not the cap of what LibTorch parses (torchscript/code_nesting.h).
#pragma once

namespace fxs {

// Printed graph code, .pt2 programs, projects, plans and profiles nest a dozen levels at most;
// 200 is far above that and far below the tens of thousands that overflow an 8 MiB stack.
inline constexpr int kMaxNesting = 200;

} // namespace fxs
