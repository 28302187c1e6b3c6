#pragma once
// Helpers shared by the expand family (../../../../shared/docs/patterns/expand.md).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::onnx_patterns::expand {

using core::shapes::SymDim;

// A default-domain binary elementwise node with exactly two inputs and one output (the
// variadic Max, Min, Mean and Sum only with two inputs).
inline bool IsBinaryElementwise(const NodeProto& node) {
  static constexpr std::string_view kOps[] = {
      "Add",  "And",  "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Div",   "Max",     "Mean",           "Min",  "Mul",
      "Mod",  "Or",   "Sub",        "Sum",       "Xor",        "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"};
  if (!core::builder::IsOnnxDomain(node.domain()) || node.input_size() != 2 || node.output_size() != 1) return false;
  return std::find(std::begin(kOps), std::end(kOps), node.op_type()) != std::end(kOps);
}

// The dimension rule of ShapeBasedExpandBroadcastPattern: operands of dims l and r give
// the output dim z by broadcasting alone, provably (a symbol may be 1 at run time, so a
// symbol only pairs with itself or with a static 1).
inline bool BroadcastGives(const SymDim& l, const SymDim& r, const SymDim& z) {
  if (l.IsUnknown() || r.IsUnknown() || z.IsUnknown()) return false;
  if (l.IsConstant() && r.IsConstant()) {
    if (l == SymDim(1)) return r == z;
    if (r == SymDim(1)) return l == z;
    return l == r && r == z;
  }
  if (l.IsConstant()) return l == SymDim(1) && r == z;
  if (r.IsConstant()) return r == SymDim(1) && l == z;
  return l == r && r == z;
}

// BroadcastGives on every dimension, `l` and `r` left-padded to the rank of `z`; false
// when one of them is longer than `z`.
inline bool BroadcastGivesShape(const std::vector<SymDim>& l, const std::vector<SymDim>& r,
                                const std::vector<SymDim>& z) {
  if (l.size() > z.size() || r.size() > z.size() || std::max(l.size(), r.size()) != z.size()) return false;
  const std::vector<SymDim> pl = core::builder::PadLeft(l, z.size()), pr = core::builder::PadLeft(r, z.size());
  for (std::size_t i = 0; i < z.size(); ++i)
    if (!BroadcastGives(pl[i], pr[i], z[i])) return false;
  return true;
}

// `shape` with a 1 inserted at each of `axes` (the axes of an Unsqueeze of a tensor of
// rank shape.size(); negative axes count from the end of the output). Nullopt for an
// axis out of range or repeated.
inline std::optional<std::vector<std::int64_t>> InsertOnes(const std::vector<std::int64_t>& shape,
                                                           std::vector<std::int64_t> axes) {
  const auto rank_out = static_cast<std::int64_t>(shape.size() + axes.size());
  for (std::int64_t& axis : axes) {
    if (axis < -rank_out || axis >= rank_out) return std::nullopt;
    if (axis < 0) axis += rank_out;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return std::nullopt;
  std::vector<std::int64_t> out = shape;
  for (std::int64_t axis : axes) out.insert(out.begin() + axis, 1);
  return out;
}

// The Unsqueeze (opset 13+, constant axes input) that alone reads the output of `expand`,
// the start of SwapExpandUnsqueezePattern and ExpandUnsqueezeExpandPattern; null with
// `why` set to the violated condition otherwise.
inline const NodeProto* UnsqueezeAfterExpand(core::builder::GraphGraph& graph, const NodeProto& expand,
                                             std::string_view* why) {
  if (!core::builder::IsOp(expand, "Expand") || expand.input_size() != 2) {
    *why = "the node is not a default-domain Expand with two inputs";
    return nullptr;
  }
  if (core::builder::OnnxOpset(graph) < 13) {
    *why = "the opset is older than 13";
    return nullptr;
  }
  const NodeProto* unsqueeze = core::builder::SoleConsumer(graph, expand.output(0), "Unsqueeze");
  if (!unsqueeze) {
    *why = "the output of the Expand is not read by an Unsqueeze alone";
    return nullptr;
  }
  if (unsqueeze->input_size() != 2 || !core::builder::ConstantInts(graph, unsqueeze->input(1))) {
    *why = "the axes of the Unsqueeze are not constant";
    return nullptr;
  }
  return unsqueeze;
}

// The operands of a binary node of which at least one is produced by an Expand, with
// the known shapes the shape-based patterns compare.
struct ExpandedOperands {
  const NodeProto* left = nullptr;   // the Expand producing input 0, or null
  const NodeProto* right = nullptr;  // the Expand producing input 1, or null
  const core::shapes::SymShape* output = nullptr;
  const core::shapes::SymShape* inputs[2] = {nullptr, nullptr};
  // What each Expand reads; the input itself where there is no Expand.
  const core::shapes::SymShape* sources[2] = {nullptr, nullptr};
};

// Nullopt, with the reason in `*why`, when neither input comes from an Expand or a shape
// is not known.
inline std::optional<ExpandedOperands> FindExpandedOperands(const core::builder::GraphGraph& graph,
                                                            const NodeProto& node, std::string_view* why) {
  using core::builder::KnownShape;
  ExpandedOperands operands;
  operands.left = core::builder::ProducerOf(graph, node.input(0), "Expand");
  operands.right = core::builder::ProducerOf(graph, node.input(1), "Expand");
  if (!operands.left && !operands.right) {
    *why = "no input is produced by an Expand";
    return std::nullopt;
  }
  operands.output = KnownShape(graph, node.output(0));
  operands.inputs[0] = KnownShape(graph, node.input(0));
  operands.inputs[1] = KnownShape(graph, node.input(1));
  if (!operands.output || !operands.inputs[0] || !operands.inputs[1]) {
    *why = "the shape of an input or of the output is not known";
    return std::nullopt;
  }
  const NodeProto* expands[2] = {operands.left, operands.right};
  for (int i = 0; i < 2; ++i) {
    operands.sources[i] = expands[i] ? KnownShape(graph, expands[i]->input(0)) : operands.inputs[i];
    if (!operands.sources[i]) {
      *why = "the shape of an Expand input is not known";
      return std::nullopt;
    }
  }
  return operands;
}

}  // namespace onnxopt::onnx_patterns::expand
