#include "onnx_extensions/patterns/canonicalization/cast_cast_pattern.h"

#include <optional>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::ProducerOf;

// What the two casts reduce to.
struct CastChain {
  enum class Survivor { kNone, kFirst, kSecond };
  int result_type;    // element type of y
  Survivor survivor;  // the Cast whose conversion remains (kNone: y = Identity(x))
};

enum class Rejection { kNone, kLossyRoundTrip, kTwoConversions };

// Types: x is t1, the first Cast converts to t2, the second to t3.
std::optional<CastChain> ComposeCasts(int t1, int t2, int t3, Rejection* why = nullptr) {
  auto reject = [&](Rejection reason) -> std::optional<CastChain> {
    if (why) *why = reason;
    return std::nullopt;
  };
  using Survivor = CastChain::Survivor;
  if (t1 == t3) {
    if (t2 == t1) return CastChain{t1, Survivor::kNone};
    // Every float16, bfloat16 and float value is exactly representable in float and
    // double, so widening and coming back is exact; the reverse (narrowing first) is not.
    const bool small_float = t1 == TensorProto::FLOAT || t1 == TensorProto::FLOAT16 || t1 == TensorProto::BFLOAT16;
    const bool wide_float = t2 == TensorProto::FLOAT || t2 == TensorProto::DOUBLE;
    if (small_float && wide_float) return CastChain{t1, Survivor::kNone};
    return reject(Rejection::kLossyRoundTrip);
  }
  if (t3 == t2) return CastChain{t2, Survivor::kFirst};
  if (t1 == t2) return CastChain{t3, Survivor::kSecond};
  return reject(Rejection::kTwoConversions);
}

}  // namespace

MatchResult CastCastPattern::Match(GraphGraph& graph, const NodeProto& second) const {
  if (!core::builder::IsOp(second, "Cast") || second.input_size() != 1 || second.output_size() != 1)
    return NoMatch(second, "the node is not a default-domain Cast with one input and one output");
  const NodeProto* first = ProducerOf(graph, second.input(0), "Cast");
  if (!first) return NoMatch(second, "the input is not produced by a Cast");
  if (first->input_size() != 1) return NoMatch(second, "the first Cast does not have one input");
  const std::optional<std::int64_t> t2 = IntAttr(*first, "to");
  const std::optional<std::int64_t> t3 = IntAttr(second, "to");
  if (!t2 || !t3) return NoMatch(second, "a Cast has no integer 'to' attribute");
  const int t1 = graph.GetType(first->input(0));
  if (t1 == 0) return NoMatch(second, "the element type of the first Cast's input is unknown");
  Rejection why = Rejection::kNone;
  if (!ComposeCasts(t1, static_cast<int>(*t2), static_cast<int>(*t3), &why)) {
    if (why == Rejection::kLossyRoundTrip)
      return NoMatch(second, "the round trip through the intermediate type is not exact");
    return NoMatch(second, "both casts change the element type");
  }
  return Matched({first, &second});
}

utils::RepeatedProtoField<NodeProto> CastCastPattern::Apply(GraphGraph& graph,
                                                            const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Cast", "Cast"});
  const NodeProto& first = *nodes[0];
  const NodeProto& second = *nodes[1];
  const std::optional<CastChain> chain =
      ComposeCasts(graph.GetType(first.input(0)), static_cast<int>(*IntAttr(first, "to")),
                   static_cast<int>(*IntAttr(second, "to")));
  if (!chain) throw BuilderError(std::string(kName) + "::Apply called with casts that do not compose");

  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, first.output(0))) *replacement.Add() = first;
  NodeProto& node = *replacement.Add();
  node.set_name(DerivedNodeName(graph, kName, second));
  node.add_input(first.input(0));
  node.add_output(second.output(0));
  node.set_doc_string(second.doc_string());
  if (chain->survivor == CastChain::Survivor::kNone) {
    node.set_op_type("Identity");
    return replacement;
  }
  // The surviving conversion keeps its attributes (saturate for float8 targets).
  const NodeProto& survivor = chain->survivor == CastChain::Survivor::kFirst ? first : second;
  node.set_op_type("Cast");
  node.set_domain(survivor.domain());
  *node.mutable_attribute() = survivor.attribute();
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
