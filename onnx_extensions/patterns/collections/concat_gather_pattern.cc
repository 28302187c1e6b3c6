#include "onnx_extensions/patterns/collections/concat_gather_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::IntTensor;
using core::builder::ProducerOf;
using core::builder::StaticDim;

// Where the index lands: the piece holding it and the index inside that piece.
struct Located {
  int piece = -1;
  std::int64_t local = 0;
  std::int64_t length = 0;
};

enum class Miss { kNone, kSymbolicLength, kPastTheEnd };

// Walks the 1-D pieces with a running offset; every piece up to the located one needs a
// static length.
std::optional<Located> Locate(const GraphGraph& graph, const NodeProto& concat, std::int64_t index,
                              Miss* why = nullptr) {
  std::int64_t offset = 0;
  for (int k = 0; k < concat.input_size(); ++k) {
    const std::optional<std::int64_t> length = StaticDim(graph, concat.input(k), 0);
    if (!length) {
      if (why) *why = Miss::kSymbolicLength;
      return std::nullopt;
    }
    if (offset + *length > index) return Located{k, index - offset, *length};
    offset += *length;
  }
  if (why) *why = Miss::kPastTheEnd;
  return std::nullopt;
}

// The start of a Shape node made non-negative, when it can be.
std::optional<std::int64_t> ShapeStart(const GraphGraph& graph, const NodeProto& shape) {
  const std::int64_t start = IntAttr(shape, "start").value_or(0);
  if (start >= 0) return start;
  const std::optional<std::size_t> rank = core::builder::RankOf(graph, shape.input(0));
  if (!rank) return std::nullopt;
  return std::max<std::int64_t>(0, start + static_cast<std::int64_t>(*rank));
}

}  // namespace

MatchResult ConcatGatherPattern::Match(GraphGraph& graph, const NodeProto& gather) const {
  if (!core::builder::IsOp(gather, "Gather") || gather.input_size() != 2)
    return NoMatch(gather, "the node is not a default-domain Gather with two inputs");
  const NodeProto* concat = ProducerOf(graph, gather.input(0), "Concat");
  if (!concat) return NoMatch(gather, "the data input is not produced by a Concat");
  const TensorProto* index = graph.GetComputedConstant(gather.input(1));
  if (!index) return NoMatch(gather, "the index is not constant");
  if (index->data_type() != TensorProto::INT64) return NoMatch(gather, "the index is not of type int64");
  if (index->dims_size() != 1 || index->dims(0) != 1) return NoMatch(gather, "the index does not have shape (1,)");
  for (const std::string& input : concat->input())
    if (core::builder::RankOf(graph, input) != std::size_t{1})
      return NoMatch(gather, "a Concat input does not have a known rank of 1");
  const std::int64_t i = core::builder::ConstantInts(graph, gather.input(1))->front();
  if (i < 0) return NoMatch(gather, "the index is negative");
  Miss why = Miss::kNone;
  if (!Locate(graph, *concat, i, &why)) {
    if (why == Miss::kSymbolicLength)
      return NoMatch(gather, "a Concat input up to the indexed one has a symbolic length");
    return NoMatch(gather, "the index is past the end of the Concat");
  }
  return Matched({concat, &gather});
}

utils::RepeatedProtoField<NodeProto> ConcatGatherPattern::Apply(GraphGraph& graph,
                                                                const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Concat", "Gather"});
  const NodeProto& concat = *nodes[0];
  const NodeProto& gather = *nodes[1];
  const std::int64_t i = core::builder::ConstantInts(graph, gather.input(1))->front();
  const Located at = *Locate(graph, concat, i);
  const std::string& piece = concat.input(at.piece);

  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, concat.output(0))) *replacement.Add() = concat;
  NodeProto& node = *replacement.Add();
  node.set_name(DerivedNodeName(graph, kName, gather));
  node.add_output(gather.output(0));
  if (at.length == 1) {
    node.set_op_type("Identity");
    node.add_input(piece);
    return replacement;
  }
  const NodeProto* shape = ProducerOf(graph, piece, "Shape");
  const std::optional<std::int64_t> start = shape ? ShapeStart(graph, *shape) : std::nullopt;
  if (start && core::builder::OnnxOpset(graph) >= 15) {
    node.set_op_type("Shape");
    node.add_input(shape->input(0));
    core::builder::AddIntAttribute(node, "start", *start + at.local);
    core::builder::AddIntAttribute(node, "end", *start + at.local + 1);
    return replacement;
  }
  node.set_op_type("Gather");
  node.add_input(piece);
  node.add_input(graph.MakeInitializer(kName, IntTensor({at.local}, {1})));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
