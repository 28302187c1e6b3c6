#include "onnx_extensions/patterns/reshape/reduce_reshape_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IntsAttr;
using core::builder::KnownShape;
using core::builder::NormalizeAxis;
using core::builder::OptionalInput;
using core::builder::RankOf;
using core::shapes::SymDim;

namespace {

// Every default-domain operator upstream matches by its "Reduce" prefix; all have keepdims.
const std::set<std::string>& ReduceOps() {
  static const std::set<std::string> kOps = {"ReduceL1",   "ReduceL2",  "ReduceLogSum", "ReduceLogSumExp",
                                             "ReduceMax",  "ReduceMean", "ReduceMin",   "ReduceProd",
                                             "ReduceSum",  "ReduceSumSquare"};
  return kOps;
}

bool IsReduction(const NodeProto& node) {
  return core::builder::IsOnnxDomain(node.domain()) && ReduceOps().contains(node.op_type());
}

// The axes the reduction removes, normalized against rank(x) and sorted: the constant axes
// input (opset 18, ReduceSum 13), else the axes attribute (older opsets), else every axis.
std::optional<std::vector<std::int64_t>> ReducedAxes(GraphGraph& graph, const NodeProto& reduce, std::size_t rank,
                                                     std::string_view* why) {
  std::optional<std::vector<std::int64_t>> axes;
  if (const std::string_view input = OptionalInput(reduce, 1); !input.empty()) {
    axes = ConstantInts(graph, input);
    if (!axes) {
      *why = "the axes input of the reduction is not constant";
      return std::nullopt;
    }
  } else if (!(axes = IntsAttr(reduce, "axes"))) {
    if (IntAttr(reduce, "noop_with_empty_axes").value_or(0) != 0) {
      *why = "the reduction has no axes and noop_with_empty_axes=1";
      return std::nullopt;
    }
    axes.emplace(rank);
    for (std::size_t i = 0; i < rank; ++i) (*axes)[i] = static_cast<std::int64_t>(i);
  }
  if (axes->empty()) {
    *why = "the axes of the reduction are empty";
    return std::nullopt;
  }
  for (std::int64_t& axis : *axes) {
    const std::optional<std::int64_t> normalized = NormalizeAxis(axis, rank);
    if (!normalized) {
      *why = "an axis of the reduction is out of range";
      return std::nullopt;
    }
    axis = *normalized;
  }
  std::sort(axes->begin(), axes->end());
  if (std::adjacent_find(axes->begin(), axes->end()) != axes->end()) {
    *why = "an axis of the reduction is repeated";
    return std::nullopt;
  }
  return axes;
}

// Whether y's dims are x's without the (sorted) reduced axes.
bool KeepsTheOtherDims(const std::vector<SymDim>& x, const std::vector<std::int64_t>& axes,
                       const std::vector<SymDim>& y) {
  std::vector<SymDim> kept;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::binary_search(axes.begin(), axes.end(), static_cast<std::int64_t>(i))) kept.push_back(x[i]);
  return kept.size() == y.size() && std::equal(kept.begin(), kept.end(), y.begin());
}

}  // namespace

std::set<std::string> ReduceReshapePattern::FastOpType() const { return ReduceOps(); }

MatchResult ReduceReshapePattern::Match(GraphGraph& graph, const NodeProto& reduce) const {
  if (!IsReduction(reduce) || reduce.input_size() < 1 || reduce.output_size() != 1)
    return NoMatch(reduce, "the node is not a default-domain reduction with one output");
  if (IntAttr(reduce, "keepdims").value_or(1) != 1) return NoMatch(reduce, "the reduction has keepdims=0");
  const std::string& r = reduce.output(0);
  const NodeProto* reshape = HasOneUse(graph, r) ? graph.NextNodes(r).front() : nullptr;
  if (!reshape || !reshape::IsPlainReshape(*reshape) || reshape->input(0) != r || reshape->input(1) == r)
    return NoMatch(reduce, "the output of the reduction is not read by a plain Reshape alone, as its data");
  const std::optional<std::size_t> rank_x = RankOf(graph, reduce.input(0));
  if (!rank_x) return NoMatch(reduce, "the rank of the input is not known");
  std::string_view why;
  const std::optional<std::vector<std::int64_t>> axes = ReducedAxes(graph, reduce, *rank_x, &why);
  if (!axes) return NoMatch(reduce, why);
  const std::optional<std::size_t> rank_y = RankOf(graph, reshape->output(0));
  if (!rank_y) return NoMatch(reduce, "the rank of the output of the Reshape is not known");
  if (*rank_x != *rank_y + axes->size())
    return NoMatch(reduce, "the rank of the output is not the rank of the input minus the number of axes");
  // With rank(y) <= 1 the dimensions left are laid out in the only possible way.
  if (*rank_y > 1) {
    const auto* x = KnownShape(graph, reduce.input(0));
    const auto* y = KnownShape(graph, reshape->output(0));
    if (!x || !y) return NoMatch(reduce, "the shape of the input or of the output is not known");
    if (!KeepsTheOtherDims(x->Dims(), *axes, y->Dims()))
      return NoMatch(reduce, "the Reshape does not only remove the reduced dimensions");
  }
  return Matched({&reduce, reshape});
}

utils::RepeatedProtoField<NodeProto> ReduceReshapePattern::Apply(GraphGraph& graph,
                                                                 const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {{"reduction", IsReduction}, {"Reshape", reshape::IsPlainReshape}});
  const NodeProto& reduce = *nodes[0];
  const NodeProto& reshape = *nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = reduce;
  node.set_name(DerivedNodeName(graph, kName, reduce));
  node.set_output(0, reshape.output(0));
  bool replaced = false;
  for (AttributeProto& attr : *node.mutable_attribute()) {
    if (attr.name() != "keepdims") continue;
    attr.set_type(AttributeProto::INT);
    attr.set_i(0);
    replaced = true;
  }
  if (!replaced) core::builder::AddIntAttribute(node, "keepdims", 0);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
