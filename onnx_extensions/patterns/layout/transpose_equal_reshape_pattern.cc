#include "onnx_extensions/patterns/layout/transpose_equal_reshape_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IntsAttr;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::shapes::SymDim;

namespace {

// [b, e): the axes p moves, between its longest fixed prefix and its longest fixed
// suffix (empty for the identity).
std::pair<std::size_t, std::size_t> MovedAxes(const layout::Ints& perm) {
  std::size_t b = 0, e = perm.size();
  while (b < e && perm[b] == static_cast<std::int64_t>(b)) ++b;
  while (e > b && perm[e - 1] == static_cast<std::int64_t>(e - 1)) --e;
  return {b, e};
}

// How many of the moved dims are not the integer 1 (a symbolic dim may be anything).
std::size_t MovedRealDims(const std::vector<SymDim>& dims, const layout::Ints& perm) {
  const auto [b, e] = MovedAxes(perm);
  std::size_t real = 0;
  for (std::size_t i = b; i < e; ++i) real += dims[i] == SymDim(1) ? 0 : 1;
  return real;
}

// The Reshape target: 0 (copy) where p[i] == i, else the dim X[p[i]] when it is an
// integer, else -1 (the one symbolic moved dim).
layout::Ints ReshapeTarget(const std::vector<SymDim>& dims, const layout::Ints& perm) {
  layout::Ints target;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const SymDim& dim = dims[static_cast<std::size_t>(perm[i])];
    if (perm[i] == static_cast<std::int64_t>(i))
      target.push_back(0);
    else
      target.push_back(dim.Constant().value_or(-1));
  }
  return target;
}

}  // namespace

MatchResult TransposeEqualReshapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Transpose") || node.input_size() != 1 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Transpose with one input and one output");
  // Before opset 5 a Reshape takes its shape as an attribute, not as an input.
  if (core::builder::OnnxOpset(graph) < 5) return NoMatch(node, "the opset is older than 5");
  std::string_view why;
  const auto perm = layout::TransposePerm(graph, node, &why);
  if (!perm) return NoMatch(node, why);
  const core::shapes::SymShape* shape = KnownShape(graph, node.input(0));
  if (!shape) return NoMatch(node, "the shape of the input is not known");
  for (const SymDim& dim : shape->Dims())
    if (dim == SymDim(0)) return NoMatch(node, "the input has a dimension of size 0");
  if (MovedRealDims(shape->Dims(), *perm) > 1)
    return NoMatch(node, "the Transpose moves more than one dimension that may differ from 1");
  const layout::Ints target = ReshapeTarget(shape->Dims(), *perm);
  if (const auto minus_one = std::find(target.begin(), target.end(), -1); minus_one != target.end()) {
    const core::shapes::SymTensor* output = graph.FindShape(node.output(0));
    if (!output ||
        !core::builder::MinusOneInferableAt(output->shape, static_cast<std::size_t>(minus_one - target.begin())))
      return NoMatch(node, "another dim may be 0 (an empty tensor), where the -1 of the Reshape cannot be inferred");
  }
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> TransposeEqualReshapePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Transpose"});
  const NodeProto& transpose = *nodes[0];
  const layout::Ints target =
      ReshapeTarget(KnownShape(graph, transpose.input(0))->Dims(), *IntsAttr(transpose, "perm"));
  const std::string shape = graph.MakeInitializer(kName, core::builder::IntTensor(target));
  utils::RepeatedProtoField<NodeProto> replacement;
  layout::AddNode(replacement, graph, kName, transpose, "Reshape", {transpose.input(0), shape}, transpose.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
