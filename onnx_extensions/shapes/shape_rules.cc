#include "onnx_extensions/shapes/shape_rules.h"

#include <algorithm>

#include "onnx_core/ir/op_schema.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::onnx_shapes {

std::string OperatorName(const InferenceContext& ctx) {
  const NodeProto& node = ctx.Node();
  if (const core::ir::OpSchema* schema = core::ir::FindOpSchema(node.domain(), node.op_type(), ctx.OpsetVersion()))
    return schema->Name();
  return node.op_type();
}

void RefuseNode(const InferenceContext& ctx, std::string_view rule, std::string found) {
  ctx.Refuse(OperatorName(ctx) + " " + std::string(rule), std::move(found));
}

std::string FormatInts(const std::vector<std::int64_t>& values) {
  return DescribeDims(std::vector<core::shapes::SymDim>(values.begin(), values.end()));
}

std::string DescribeDims(const std::vector<core::shapes::SymDim>& values) {
  return core::shapes::SymShape(values).ToString();
}

bool FlagAttribute(const InferenceContext& ctx, std::string_view name, bool default_value) {
  const std::optional<std::int64_t> value = ctx.IntAttribute(name);
  if (!value) return default_value;
  if (*value != 0 && *value != 1)
    RefuseNode(ctx, std::string(name) + " is 0 or 1", std::string(name) + " " + std::to_string(*value));
  return *value == 1;
}

void RequireAtLeast(const InferenceContext& ctx, std::string_view name, const std::vector<std::int64_t>& values,
                    std::int64_t minimum) {
  if (std::all_of(values.begin(), values.end(), [&](std::int64_t v) { return v >= minimum; })) return;
  RefuseNode(ctx, std::string(name) + " >= " + std::to_string(minimum),
             std::string(name) + " " + FormatInts(values));
}

void RequireCount(const InferenceContext& ctx, std::string_view name, std::size_t actual, std::size_t expected,
                  std::string_view per) {
  if (actual == expected) return;
  RefuseNode(ctx, "has " + std::to_string(expected) + " " + std::string(name) + " values (" + std::string(per) + ")",
             std::to_string(actual));
}

void RequireVectorInput(const InferenceContext& ctx, std::size_t index, std::string_view name, bool scalar_ok) {
  if (!ctx.HasInput(index)) return;
  const core::shapes::SymShape& shape = ctx.Input(index).shape;
  if (!shape.HasRank() || shape.Rank() == 1 || (scalar_ok && shape.Rank() == 0)) return;
  RefuseNode(ctx, std::string(name) + (scalar_ok ? " is a 1-D tensor or a scalar" : " is a 1-D tensor"),
             "rank " + std::to_string(shape.Rank()));
}

void RequireSplitSizes(const InferenceContext& ctx, const std::vector<core::shapes::SymDim>& sizes,
                       const core::shapes::SymDim& dim) {
  std::int64_t sum = 0;
  bool constant = true;
  for (const core::shapes::SymDim& size : sizes) {
    auto c = size.Constant();
    if (c && *c < 0) RefuseNode(ctx, "split sizes >= 0", "split " + DescribeDims(sizes));
    constant = constant && c;
    // Sizes beyond int64 when added cannot split any dim, known or not.
    if (c && __builtin_add_overflow(sum, *c, &sum))
      RefuseNode(ctx, "split sizes add up to the dim split", "split " + DescribeDims(sizes) + " (sum beyond int64)");
  }
  if (auto d = dim.Constant(); d && constant && sum != *d) {
    RefuseNode(ctx, "split sizes add up to the dim split",
               "split " + DescribeDims(sizes) + " (sum " + std::to_string(sum) + ") for a dim of " + std::to_string(*d));
  }
}

void RequirePermutation(const InferenceContext& ctx, std::string_view name, const std::vector<std::int64_t>& values,
                        std::size_t rank) {
  std::vector<bool> seen(rank, false);
  bool valid = values.size() == rank;
  for (std::size_t i = 0; valid && i < values.size(); ++i) {
    const std::int64_t v = values[i];
    valid = v >= 0 && static_cast<std::size_t>(v) < rank && !seen[static_cast<std::size_t>(v)];
    if (valid) seen[static_cast<std::size_t>(v)] = true;
  }
  if (valid) return;
  RefuseNode(ctx, std::string(name) + " is a permutation of [0, " + std::to_string(rank) + ") (the input rank)",
             std::string(name) + " " + FormatInts(values));
}

void RequireDistinctAxes(const InferenceContext& ctx, const std::vector<std::int64_t>& axes, std::int64_t rank) {
  std::vector<std::int64_t> normalized;
  for (std::int64_t axis : axes) normalized.push_back(axis < 0 ? axis + rank : axis);
  std::sort(normalized.begin(), normalized.end());
  if (std::adjacent_find(normalized.begin(), normalized.end()) == normalized.end()) return;
  RefuseNode(ctx, "axes are distinct", "axes " + FormatInts(axes) + " for rank " + std::to_string(rank));
}

void RequireOneOf(const InferenceContext& ctx, std::string_view name, std::initializer_list<std::string_view> allowed) {
  const std::optional<std::string> value = ctx.StringAttribute(name);
  if (!value || std::find(allowed.begin(), allowed.end(), *value) != allowed.end()) return;
  std::string list;
  for (std::string_view a : allowed)
    if (!a.empty()) list += (list.empty() ? "" : ", ") + std::string(a);
  RefuseNode(ctx, std::string(name) + " is one of " + list, "'" + *value + "'");
}

}  // namespace onnxopt::onnx_shapes
