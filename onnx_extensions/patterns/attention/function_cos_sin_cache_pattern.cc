#include "onnx_extensions/patterns/attention/function_cos_sin_cache_pattern.h"

#include <optional>
#include <vector>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"
#include "onnx_extensions/patterns/attention/local_function_builder.h"

namespace onnxopt::onnx_patterns {

namespace {

using attention::AddBodyInt64Constant;
using attention::AddBodyNode;
using core::builder::AddIntAttribute;
using core::builder::ConstantInts;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::ProducerOf;
using core::builder::SoleConsumer;

const std::vector<std::int64_t> kRangeAxes{0, 1};
const std::vector<std::int64_t> kInputAxes{1};

// What the body depends on, read from the matched chain.
struct CacheForm {
  const NodeProto* range = nullptr;  // null: the positions are a graph input or initializer
  std::vector<std::int64_t> axes;    // of the Unsqueeze
  std::optional<std::int64_t> to;    // of the output Casts, when there are some
};

// The function name: CosSinCache[WithRange][_to<T>][_p<axes digits>].
std::string FunctionName(const CacheForm& form) {
  std::string name = "CosSinCache";
  if (form.range) name += "WithRange";
  if (form.to) name += "_to" + std::to_string(*form.to);
  if (form.axes != kRangeAxes) {
    name += "_p";
    for (const std::int64_t axis : form.axes) name += std::to_string(axis);
  }
  return name;
}

FunctionProto CosSinBody(const CacheForm& form, std::int64_t opset) {
  FunctionProto f =
      form.range ? attention::NewLocalFunction(FunctionName(form), {"dim1", "dim2", "weights"}, {"cos", "sin"}, opset)
                 : attention::NewLocalFunction(FunctionName(form), {"position_ids", "weights"}, {"cos", "sin"}, opset);
  std::string positions = "position_ids";
  if (form.range) {
    AddBodyNode(f, "Squeeze", {"dim1"}, {"sA"});
    AddBodyNode(f, "Squeeze", {"dim2"}, {"sB"});
    AddBodyInt64Constant(f, "one", {1}, {});
    AddBodyNode(f, "Range", {"sA", "sB", "one"}, {"rg"});
    positions = "rg";
  }
  AddBodyInt64Constant(f, "axes", form.axes, {static_cast<std::int64_t>(form.axes.size())});
  AddBodyNode(f, "Unsqueeze", {positions, "axes"}, {"u"});
  AddIntAttribute(AddBodyNode(f, "Cast", {"u"}, {"f"}), "to", TensorProto::FLOAT);
  AddBodyInt64Constant(f, "shp", {0, -1, 1}, {3});
  AddBodyNode(f, "Reshape", {"f", "shp"}, {"r"});
  AddBodyNode(f, "Mul", {"weights", "r"}, {"m"});
  if (form.to) {
    AddBodyNode(f, "Cos", {"m"}, {"c"});
    AddBodyNode(f, "Sin", {"m"}, {"s"});
    AddIntAttribute(AddBodyNode(f, "Cast", {"c"}, {"cos"}), "to", *form.to);
    AddIntAttribute(AddBodyNode(f, "Cast", {"s"}, {"sin"}), "to", *form.to);
  } else {
    AddBodyNode(f, "Cos", {"m"}, {"cos"});
    AddBodyNode(f, "Sin", {"m"}, {"sin"});
  }
  return f;
}

// The Cast and the Unsqueeze between the positions and the Reshape, read from the Reshape
// input `data` upwards (either order); nulls when they are not such a pair.
struct CastUnsqueeze {
  const NodeProto* cast = nullptr;
  const NodeProto* unsqueeze = nullptr;
  const NodeProto* upper = nullptr;  // the one reading the positions
};
CastUnsqueeze PairAbove(const GraphGraph& graph, std::string_view data) {
  const NodeProto* lower = graph.NodeBefore(data);
  if (!lower || !(IsOp(*lower, "Cast") || IsOp(*lower, "Unsqueeze")) || lower->input_size() < 1) return {};
  const NodeProto* upper = graph.NodeBefore(lower->input(0));
  const std::string_view other = IsOp(*lower, "Cast") ? "Unsqueeze" : "Cast";
  if (!upper || !IsOp(*upper, other) || upper->input_size() < 1) return {};
  if (IsOp(*lower, "Cast")) return {lower, upper, upper};
  return {upper, lower, upper};
}

// Why the Range producing the positions does not fit; empty when it does.
std::string_view WhyNotRange(GraphGraph& graph, const NodeProto& range) {
  if (range.input_size() != 3) return "the Range does not have three inputs";
  if (!HasOneUse(graph, range.input(0))) return "the Range start has another use";
  if (!HasOneUse(graph, range.input(1))) return "the Range limit has another use";
  if (core::builder::ConstantScalarInt(graph, range.input(2)) != 1) return "the Range delta is not the constant 1";
  for (const std::string& input : range.input())
    if (graph.GetType(input) != TensorProto::INT64) return "the Range inputs are not int64";
  for (int i = 0; i < 2; ++i) {
    const NodeProto* squeeze = ProducerOf(graph, range.input(i), "Squeeze");
    if (!squeeze || squeeze->input_size() != 1)
      return "the Range start or limit is not produced by a one-input Squeeze";
  }
  return {};
}

// The form of the matched chain that ends with `mul` (its Reshape input read upwards) and
// `cos_cast` (the output Cast of the Cos, null when there is none).
CacheForm FormOf(GraphGraph& graph, const NodeProto& mul, const NodeProto* cos_cast) {
  const CastUnsqueeze pair = PairAbove(graph, graph.NodeBefore(mul.input(1))->input(0));
  CacheForm form;
  form.range = graph.NodeBefore(pair.upper->input(0));
  form.axes = *ConstantInts(graph, pair.unsqueeze->input(1));
  if (cos_cast) form.to = IntAttr(*cos_cast, "to");
  return form;
}

}  // namespace

MatchResult FunctionCosSinCachePattern::Match(GraphGraph& graph, const NodeProto& cos) const {
  if (!IsOp(cos, "Cos")) return NoMatch(cos, "the node is not a Cos");
  const std::string& m = cos.input(0);
  const NodeProto* mul = ProducerOf(graph, m, "Mul");
  if (!mul) return NoMatch(cos, "the Cos input is not produced by a Mul");
  const std::vector<const NodeProto*>& readers = graph.NextNodes(m);
  if (readers.size() != 2 || graph.IsOutput(m) || graph.IsUsedBySubgraph(m))
    return NoMatch(cos, "the Mul output does not have exactly two consumers");
  const NodeProto* sin = readers[0] == &cos ? readers[1] : readers[0];
  if (!IsOp(*sin, "Sin")) return NoMatch(cos, "the other consumer of the Mul output is not a Sin");
  const NodeProto* cos_cast = SoleConsumer(graph, cos.output(0), "Cast");
  const NodeProto* sin_cast = SoleConsumer(graph, sin->output(0), "Cast");
  if ((cos_cast == nullptr) != (sin_cast == nullptr))
    return NoMatch(cos, "only one of the Cos and Sin outputs is cast");
  if (cos_cast && (!IntAttr(*cos_cast, "to") || IntAttr(*cos_cast, "to") != IntAttr(*sin_cast, "to")))
    return NoMatch(cos, "the two output Casts are not to the same type");
  if (!HasOneUse(graph, mul->input(0))) return NoMatch(cos, "the weights have another use");
  const NodeProto* reshape = ProducerOf(graph, mul->input(1), "Reshape");
  if (!reshape) return NoMatch(cos, "the Mul input 1 is not produced by a Reshape");
  if (IntAttr(*reshape, "allowzero").value_or(0) != 0) return NoMatch(cos, "the Reshape has allowzero set");
  if (ConstantInts(graph, reshape->input(1)) != std::vector<std::int64_t>{0, -1, 1})
    return NoMatch(cos, "the Reshape shape is not the constant [0, -1, 1]");
  if (!HasOneUse(graph, reshape->input(0))) return NoMatch(cos, "the Reshape data input has another use");
  const CastUnsqueeze pair = PairAbove(graph, reshape->input(0));
  if (!pair.upper) return NoMatch(cos, "the Reshape input is not computed by a Cast and an Unsqueeze");
  if (!HasOneUse(graph, pair.upper->output(0)))
    return NoMatch(cos, "the output of the upper of the Cast and Unsqueeze has another use");
  if (pair.unsqueeze->input_size() != 2) return NoMatch(cos, "the Unsqueeze takes its axes as an attribute");
  if (IntAttr(*pair.cast, "to") != TensorProto::FLOAT)
    return NoMatch(cos, "the Cast before the Reshape is not to float");
  const auto axes = ConstantInts(graph, pair.unsqueeze->input(1));
  if (axes != kRangeAxes && axes != kInputAxes) return NoMatch(cos, "the Unsqueeze axes are neither [0, 1] nor [1]");
  const NodeProto* producer = graph.NodeBefore(pair.upper->input(0));
  if (!producer) {
    if (axes != kInputAxes) return NoMatch(cos, "positions without a Range need the Unsqueeze axes [1]");
  } else {
    if (!IsOp(*producer, "Range")) return NoMatch(cos, "the positions are not produced by a Range");
    if (axes != kRangeAxes) return NoMatch(cos, "positions from a Range need the Unsqueeze axes [0, 1]");
    if (const std::string_view why = WhyNotRange(graph, *producer); !why.empty()) return NoMatch(cos, why);
  }
  const FunctionProto body = CosSinBody(FormOf(graph, *mul, cos_cast), core::builder::OnnxOpset(graph));
  if (const std::string_view why = attention::WhyNotAddable(graph, body); !why.empty()) return NoMatch(cos, why);
  return Matched(cos_cast ? std::vector{mul, &cos, sin, cos_cast, sin_cast} : std::vector{mul, &cos, sin});
}

utils::RepeatedProtoField<NodeProto> FunctionCosSinCachePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  const bool cast = nodes.size() == 5;
  if (cast) {
    core::builder::ExpectMatchedNodes(*this, nodes, {"Mul", "Cos", "Sin", "Cast", "Cast"});
  } else {
    core::builder::ExpectMatchedNodes(*this, nodes, {"Mul", "Cos", "Sin"});
  }
  const NodeProto& mul = *nodes[0];
  const std::string& positions = PairAbove(graph, graph.NodeBefore(mul.input(1))->input(0)).upper->input(0);
  const CacheForm form = FormOf(graph, mul, cast ? nodes[3] : nullptr);
  std::vector<std::string_view> inputs;
  if (form.range) {
    inputs = {graph.NodeBefore(form.range->input(0))->input(0), graph.NodeBefore(form.range->input(1))->input(0),
              mul.input(0)};
  } else {
    inputs = {positions, mul.input(0)};
  }
  const std::vector<std::string_view> outputs{nodes[cast ? 3 : 1]->output(0), nodes[cast ? 4 : 2]->output(0)};
  utils::RepeatedProtoField<NodeProto> out;
  *out.Add() = attention::CallLocalFunction(graph, kName, *nodes[1], CosSinBody(form, core::builder::OnnxOpset(graph)),
                                            inputs, outputs);
  return out;
}

}  // namespace onnxopt::onnx_patterns
