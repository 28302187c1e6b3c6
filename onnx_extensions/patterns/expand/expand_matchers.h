#pragma once
// Helpers shared by the expand family (../../../../shared/docs/patterns/expand.md).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::onnx_patterns::expand {

using core::shapes::SymDim;
using core::shapes::SymShape;

// A default-domain binary elementwise node with exactly two inputs and one output (the
// variadic Max, Min, Mean and Sum only with two inputs).
inline bool IsBinaryElementwise(const NodeProto& node) {
  static constexpr std::string_view kOps[] = {
      "Add",  "And",  "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Div",   "Max",     "Mean",           "Min",  "Mul",
      "Mod",  "Or",   "Sub",        "Sum",       "Xor",        "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"};
  if (!core::builder::IsOnnxDomain(node.domain()) || node.input_size() != 2 || node.output_size() != 1) return false;
  return std::find(std::begin(kOps), std::end(kOps), node.op_type()) != std::end(kOps);
}

// Apply's contract for patterns anchored on any binary elementwise node: one such node.
inline void ExpectBinaryElementwise(const core::builder::PatternOptimization& pattern,
                                    const std::vector<const NodeProto*>& nodes,
                                    SourceLocation where = SourceLocation::current()) {
  if (nodes.size() != 1 || !nodes[0] || !IsBinaryElementwise(*nodes[0]))
    throw BuilderError(pattern.Name() + "::Apply expects one binary elementwise node", where);
}

// The shape of `value` when its rank and every dimension (integer or symbolic) are known.
// Candidate for onnx_core/optimizer/match.h.
inline const SymShape* KnownShape(const core::builder::GraphGraph& graph, std::string_view value) {
  if (!graph.HasShape(value)) return nullptr;
  const SymShape& shape = graph.GetShape(value).shape;
  return shape.HasRank() && shape.IsFullyKnown() ? &shape : nullptr;
}

// The integer dims of `value` when its shape is known and static.
// Candidate for onnx_core/optimizer/match.h.
inline std::optional<std::vector<std::int64_t>> StaticDims(const core::builder::GraphGraph& graph,
                                                           std::string_view value) {
  const SymShape* shape = KnownShape(graph, value);
  if (!shape || !shape->IsStatic()) return std::nullopt;
  std::vector<std::int64_t> dims;
  for (const SymDim& dim : shape->Dims()) dims.push_back(*dim.Constant());
  return dims;
}

// The dims left-padded with 1s to `rank` (unchanged when already that long or longer).
inline std::vector<SymDim> PadLeft(const std::vector<SymDim>& dims, std::size_t rank) {
  std::vector<SymDim> padded;
  for (std::size_t i = dims.size(); i < rank; ++i) padded.emplace_back(std::int64_t{1});
  padded.insert(padded.end(), dims.begin(), dims.end());
  return padded;
}

// Multidirectional broadcast of two known shapes: after left-padding with 1s, equal dims
// give that dim, a 1 gives the other dim; nullopt when a pair is anything else (including
// two different symbols, which may or may not be equal at run time).
// Candidate for onnx_core/optimizer/match.h.
inline std::optional<std::vector<SymDim>> Broadcast(const std::vector<SymDim>& a, const std::vector<SymDim>& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  const std::vector<SymDim> pa = PadLeft(a, rank), pb = PadLeft(b, rank);
  std::vector<SymDim> out;
  for (std::size_t i = 0; i < rank; ++i) {
    if (pa[i] == pb[i] || pb[i] == SymDim(1)) {
      out.push_back(pa[i]);
    } else if (pa[i] == SymDim(1)) {
      out.push_back(pb[i]);
    } else {
      return std::nullopt;
    }
  }
  return out;
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
  const std::vector<SymDim> pl = PadLeft(l, z.size()), pr = PadLeft(r, z.size());
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

// A 1-D int64 tensor holding `values` (for GraphGraph::MakeInitializer).
// Candidate for onnx_core/optimizer/match.h.
inline TensorProto Int64Vector(const std::vector<std::int64_t>& values) {
  TensorProto tensor;
  tensor.set_data_type(TensorProto::INT64);
  tensor.add_dims(static_cast<std::int64_t>(values.size()));
  for (std::int64_t v : values) tensor.add_int64_data(v);
  return tensor;
}

// The elements of a constant whose shape is () or (1,), as doubles.
// Candidate for onnx_core/optimizer/match.h (IsConstantScalar answers only equality).
std::optional<double> ConstantScalarValue(core::builder::GraphGraph& graph, std::string_view value);

// Whether `value` is a constant of shape () or (1,).
inline bool IsConstantScalarShaped(core::builder::GraphGraph& graph, std::string_view value) {
  return ConstantScalarValue(graph, value).has_value();
}

}  // namespace onnxopt::onnx_patterns::expand
