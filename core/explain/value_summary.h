// How the explainer shows a cache-key component's value and a change between two values:
// readable values verbatim (abbreviated), pickles and binary blobs by digest, graph code by line
// count, and `TensorMetadata(...)` changes field by field ("shape [64, 64] → [128, 64]").
// Field-wise comparison is keydiff's (field_diff.h); this file only chooses the words.
#pragma once

#include "core/keydiff/field_diff.h"
#include "core/model/cache_lookup.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxs::explain {

// Longest value text shown before abbreviation ("..." appended).
inline constexpr std::size_t kMaxValueChars = 160;

// True when the value cannot be shown as text: the reader marked it unreadable, or it holds
// control bytes other than newline/tab, invalid UTF-8 or starts like a pickle (0x80).
bool isUnreadableValue(const model::KeyComponent& c);

// The value as a user should see it in a diff row:
//   readable single line  → the value, abbreviated to kMaxValueChars;
//   gm (graph code)       → "<graph code, 12 lines, digest abcdefgh…>";
//   other multi-line      → first line abbreviated + " … (N lines)";
//   pickle / binary       → "<pickle, digest iwr4gnov…>" / "<binary, digest bhbxfhox…>".
std::string displayValue(const model::KeyComponent& c);

// "iwr4gnov…": the first 8 characters of a digest, with an ellipsis when longer.
std::string abbreviateDigest(std::string_view digest);

// The fields of "TensorMetadata(dtype=torch.float32, shape=torch.Size([64, 64]), ...)" as
// (key, value) pairs in printed order: keydiff's TensorMetadata field strategy.
using keydiff::parseTensorMetadata;

// One user-facing phrase for a change between two values of the same component:
//   TensorMetadata → "shape [64, 64] → [128, 64], dtype float32 → float16" (changed fields only,
//                    dtype/shape/stride/device first, torch./Size wrappers removed);
//   unreadable     → "<pickle, digest a…> → <pickle, digest b…>";
//   otherwise      → "64 → 32" (each side abbreviated).
std::string describeChange(const model::KeyComponent& a, const model::KeyComponent& b);

} // namespace fxs::explain
