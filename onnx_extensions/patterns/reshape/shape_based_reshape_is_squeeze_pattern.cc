#include "onnx_extensions/patterns/reshape/shape_based_reshape_is_squeeze_pattern.h"

#include <algorithm>
#include <iterator>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::IntTensor;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::shapes::SymDim;
using core::shapes::SymShape;

namespace {

using Dims = std::vector<SymDim>;

bool IsOne(const SymDim& d) { return d == SymDim(1); }

Dims WithoutOnes(const Dims& dims) {
  Dims kept;
  std::copy_if(dims.begin(), dims.end(), std::back_inserter(kept), [](const SymDim& d) { return !IsOne(d); });
  return kept;
}

std::vector<std::int64_t> PositionsOfOnes(const Dims& dims) {
  std::vector<std::int64_t> positions;
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (IsOne(dims[i])) positions.push_back(static_cast<std::int64_t>(i));
  return positions;
}

// The Squeeze or Unsqueeze that turns shape x into shape y.
struct SqueezeRewrite {
  std::string op_type;
  std::vector<std::int64_t> axes;
};

// Nullopt with `why` set when y is not x with 1s only inserted, or only removed.
std::optional<SqueezeRewrite> FindSqueeze(const Dims& x, const Dims& y, std::string_view* why) {
  if (x == y) *why = "the input and the output have the same shape";
  else if (WithoutOnes(x) != WithoutOnes(y)) *why = "the shapes differ by more than dimensions equal to 1";
  else if (x.size() < y.size() && !PositionsOfOnes(x).empty()) *why = "the output gains 1s but the input has a 1 too";
  else if (x.size() >= y.size() && !PositionsOfOnes(y).empty()) *why = "the output loses 1s but keeps a 1";
  else if (x.size() < y.size()) return SqueezeRewrite{"Unsqueeze", PositionsOfOnes(y)};
  else return SqueezeRewrite{"Squeeze", PositionsOfOnes(x)};
  return std::nullopt;
}

bool IsAllOnesExpand(GraphGraph& graph, const NodeProto& node) {
  if (!IsOp(node, "Expand") || node.input_size() != 2 || node.output_size() != 1) return false;
  const std::optional<std::vector<std::int64_t>> shape = ConstantInts(graph, node.input(1));
  return shape && !shape->empty() && std::all_of(shape->begin(), shape->end(), [](std::int64_t d) { return d == 1; });
}

}  // namespace

MatchResult ShapeBasedReshapeIsSqueezePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (IsOp(node, "Expand")) {
    if (!IsAllOnesExpand(graph, node)) return NoMatch(node, "the Expand does not have a constant shape of ones");
  } else if (const std::string_view why = reshape::WhyNotPlainReshape(node); !why.empty()) {
    return NoMatch(node, why);
  }
  if (core::builder::OnnxOpset(graph) < 18) return NoMatch(node, "the opset is older than 18");
  const SymShape* x = KnownShape(graph, node.input(0));
  const SymShape* y = KnownShape(graph, node.output(0));
  if (!x || !y) return NoMatch(node, "the shape of the input or of the output is not known");
  std::string_view why;
  if (!FindSqueeze(x->Dims(), y->Dims(), &why)) return NoMatch(node, why);
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> ShapeBasedReshapeIsSqueezePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(
      *this, nodes,
      {{"Reshape or Expand", [](const NodeProto& n) { return IsOp(n, "Reshape") || IsOp(n, "Expand"); }}});
  const NodeProto& original = *nodes[0];
  std::string_view why;
  const std::optional<SqueezeRewrite> rewrite = FindSqueeze(graph.GetShape(original.input(0)).shape.Dims(),
                                                            graph.GetShape(original.output(0)).shape.Dims(), &why);
  if (!rewrite)
    throw BuilderError(std::string(kName) + "::Apply called with a node that is no Squeeze: " + std::string(why));
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add();
  node.set_op_type(rewrite->op_type);
  node.set_name(DerivedNodeName(graph, kName, original));
  node.add_input(original.input(0));
  node.add_input(graph.MakeInitializer(kName, IntTensor(rewrite->axes)));
  node.add_output(original.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
