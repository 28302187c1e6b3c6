#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Op(Reshape(x, sa), Reshape(y, sb)) followed by Reshape(., sw): with at least two of these
/// three Reshapes, the element-wise Op is computed in the shape before them and the missing
/// one is added on the other operand (or the output), so that at least one Reshape goes.
/// Before:  a = Reshape(x, sa); b = Reshape(y, sb); z = Op(a, b); w = Reshape(z, sw)
/// After:   w = Op(x, y)                                        (all three)
///          t = Op(x, y); z = Reshape(t, sb)                    (no output Reshape)
///          r = Reshape(b, sw); w = Op(x, r)                    (no right Reshape; same on the left)
///          plus z = Reshape(w, sb or sa) when z is also a graph output
/// Not valid when an operand is broadcast (a, b and z must have one known shape) or when
/// the shapes before the Reshapes (x, y, w) differ or are not known: every existing
/// Reshape's outer shape must be known, not only two of them as upstream accepts (with w
/// unknown, w = Op(x, y) would assume w has x's shape). A side Reshape whose output has other
/// readers counts as absent: re-emitting it at the Op could place it after those readers.
/// The Op needs exactly two inputs; its attributes (Mod's fmod) are kept.
/// Measure: each rewrite removes more Reshapes than it adds. With one side Reshape, an
/// output Reshape and z a graph output, z = Reshape(w, sa) would be added back beside the
/// Reshape of the other operand: upstream then undoes its own rewrite forever; here it
/// does not match.
class Reshape2Of3Pattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "Reshape2Of3Pattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  Reshape2Of3Pattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& op) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
