#pragma once
// An application-defined pattern: the example of docs/writing-patterns.md.

#include <string>
#include <string_view>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/optimizer/pattern.h"

namespace example {

using onnxopt::NodeProto;
using onnxopt::core::builder::GraphGraph;
using onnxopt::core::builder::MatchResult;
using onnxopt::core::builder::PatternOptimization;

/// Mul(x, 1) => Identity(x), when the 1 is a constant scalar (shape () or (1,)) and x has
/// at least one dimension: then broadcasting leaves x's shape and type unchanged.
/// Before:  y = Mul(x, one)
/// After:   y = Identity(x)        (the driver's cleanup then removes the Identity)
/// Not valid when x is a scalar and the constant has shape (1,): y would have shape (1,).
class MulByOnePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "MulByOnePattern";
  // x * 1 is x exactly for every x (NaN stays NaN, -0 stays -0).
  static constexpr onnxopt::core::builder::NumericalClass kNumerics = onnxopt::core::builder::NumericalClass::kExact;
  MulByOnePattern() : PatternOptimization(/*priority=*/0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Mul"}; }

  MatchResult Match(GraphGraph& graph, const NodeProto& mul) const override {
    if (!onnxopt::core::builder::IsOp(mul, "Mul") || mul.input_size() != 2)
      return NoMatch(mul, "the node is not a default-domain Mul with two inputs");
    if (!graph.IsConstantScalar(mul.input(1), 1.0))
      return NoMatch(mul, "the second input is not the constant scalar 1");
    if (!graph.HasShape(mul.input(0)) || graph.GetShape(mul.input(0)).shape.Rank() == 0)
      return NoMatch(mul, "the first input has no known rank of at least one");
    return Matched({&mul});
  }

  onnxopt::utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                                      const std::vector<const NodeProto*>& nodes) const override {
    onnxopt::core::builder::ExpectMatchedNodes(*this, nodes, {"Mul"});
    const NodeProto& mul = *nodes[0];
    onnxopt::utils::RepeatedProtoField<NodeProto> replacement;
    NodeProto& identity = *replacement.Add();
    identity.set_op_type("Identity");
    identity.set_name(onnxopt::core::builder::DerivedNodeName(graph, kName, mul));
    identity.add_input(mul.input(0));
    identity.add_output(mul.output(0));  // the output keeps its name: readers need no change
    return replacement;
  }
};

}  // namespace example
