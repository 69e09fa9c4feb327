// Field-wise comparison of two component texts that are lists of fields, one strategy per
// text shape:
//   KeyValueList   — the region cache's "dtype=float32;sizes=[4,8];strides=[8,1];device=cpu"
//                    (single line, ';'-separated, fields compared in position, values verbatim);
//   TensorMetadata — PyTorch's "TensorMetadata(dtype=torch.float32, shape=torch.Size([64, 64]),
//                    ...)" (fields by name; dtype, shape, stride, device first; values
//                    cleaned: "float32", "[64, 64]", "cuda:0"; a missing field is "(absent)").
// Not a Python parser: it splits at top-level separators and keeps values as printed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxs::keydiff {

enum class FieldStrategy : std::uint8_t { None, KeyValueList, TensorMetadata };

// The strategy both texts admit: TensorMetadata when both parse as one, else KeyValueList
// when both are single lines holding '=', else None.
FieldStrategy fieldStrategyOf(std::string_view a, std::string_view b);

using Fields = std::vector<std::pair<std::string, std::string>>;

// The fields of "TensorMetadata(k=v, ...)" as (key, value) in printed order, values as
// printed. Empty when the text is not one.
Fields parseTensorMetadata(std::string_view text);

struct FieldChange {
    std::string field; // "dtype", "shape"
    std::string a;     // A's value (cleaned for TensorMetadata), "(absent)" when missing
    std::string b;
};

// The fields that differ, in the strategy's order; empty for None or equal texts.
std::vector<FieldChange> diffFields(std::string_view a, std::string_view b,
                                    FieldStrategy strategy);

// How many fields differ: diffFields' count for texts with a strategy; for other texts 1 when
// they differ, 0 when equal. The nearest entry's second measure.
std::size_t countFieldDifferences(std::string_view a, std::string_view b);

} // namespace fxs::keydiff
