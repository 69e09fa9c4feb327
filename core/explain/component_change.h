// One differing key component between two PyTorch cache lookups (A = the earlier one, B = the
// later): keydiff's ComponentChange (core/keydiff/key_component.h), the one diff type of
// fxscope, under the names explain's callers (the CLI, the app's component diff table) use.
#pragma once

#include "core/keydiff/key_component.h"

namespace fxs::explain {

using keydiff::ChangeKind;
using keydiff::changeKindName;
using keydiff::ComponentChange;

} // namespace fxs::explain
