#include "onnx_extensions/patterns/layout/swap_unsqueeze_transpose_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IntsAttr;
using core::builder::IsOp;

namespace {

// The Transpose of X and the axes of the Unsqueeze after it.
struct Swapped {
  layout::Ints perm;
  layout::Ints axes;
};

// Nullopt when the axes are not constant or not valid axes of U (of rank len(p)).
std::optional<Swapped> Swap(GraphGraph& graph, const NodeProto& unsqueeze, const layout::Ints& perm) {
  const std::optional<layout::Ints> constant = layout::ConstantAxes(graph, unsqueeze.input(1));
  if (!constant) return std::nullopt;
  std::optional<layout::Ints> inserted = layout::NormalizeAxes(*constant, perm.size());
  if (!inserted) return std::nullopt;
  std::sort(inserted->begin(), inserted->end());
  const auto is_inserted = [&](std::int64_t axis) {
    return std::binary_search(inserted->begin(), inserted->end(), axis);
  };
  Swapped swapped;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    if (is_inserted(perm[i])) {
      // Output axis i of Y holds an inserted 1: the inverse of p, not p itself.
      swapped.axes.push_back(static_cast<std::int64_t>(i));
    } else {
      // Axis u of U that is not inserted is axis u - (number of inserted axes before u) of X.
      const auto before = std::lower_bound(inserted->begin(), inserted->end(), perm[i]) - inserted->begin();
      swapped.perm.push_back(perm[i] - before);
    }
  }
  return swapped;
}

}  // namespace

MatchResult SwapUnsqueezeTransposePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Transpose") || node.input_size() != 1 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Transpose with one input and one output");
  const NodeProto* unsqueeze = core::builder::ProducerOf(graph, node.input(0), "Unsqueeze");
  if (!unsqueeze) return NoMatch(node, "the input is not produced by an Unsqueeze");
  if (unsqueeze->input_size() != 2) return NoMatch(node, "the Unsqueeze has no axes input");
  if (!core::builder::HasOneUse(graph, node.input(0)))
    return NoMatch(node, "the output of the Unsqueeze has other readers");
  std::string_view why;
  const auto perm = layout::TransposePerm(graph, node, &why);
  if (!perm) return NoMatch(node, why);
  if (!layout::ConstantAxes(graph, unsqueeze->input(1)))
    return NoMatch(node, "the axes of the Unsqueeze are not a constant 1-D tensor");
  if (!Swap(graph, *unsqueeze, *perm)) return NoMatch(node, "the axes of the Unsqueeze are out of range or repeated");
  return Matched({unsqueeze, &node});
}

utils::RepeatedProtoField<NodeProto> SwapUnsqueezeTransposePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Unsqueeze", "Transpose"});
  const NodeProto& unsqueeze = *nodes[0];
  const NodeProto& transpose = *nodes[1];
  const Swapped swapped = *Swap(graph, unsqueeze, *IntsAttr(transpose, "perm"));
  const std::string axes = graph.MakeInitializer(kName, core::builder::IntTensor(swapped.axes));
  utils::RepeatedProtoField<NodeProto> replacement;
  const std::string transposed = graph.Builder().UniqueName(kName);
  NodeProto& moved =
      layout::AddNode(replacement, graph, kName, transpose, "Transpose", {unsqueeze.input(0)}, transposed);
  core::builder::AddIntsAttribute(moved, "perm", swapped.perm);
  layout::AddNode(replacement, graph, kName, unsqueeze, "Unsqueeze", {transposed, axes}, transpose.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
