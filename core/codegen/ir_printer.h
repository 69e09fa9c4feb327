// Prints the loop IR as readable text, for dumps (fxscope-cli compile --dump,
// FXSCOPE_DUMP_CODEGEN) and tests: buffers, then per kernel its index space, loads,
// expressions in SSA order, reductions and stores; names and ids escaped (source_text.h). Not
// C++ (cpp_printer.h) and not parsed back.
#pragma once

#include "core/codegen/loop_ir.h"

#include <string>

namespace fxs::codegen {

std::string printLoopIr(const RegionProgram& program);

} // namespace fxs::codegen
