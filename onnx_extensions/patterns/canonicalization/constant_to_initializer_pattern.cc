#include "onnx_extensions/patterns/canonicalization/constant_to_initializer_pattern.h"

#include "onnx_core/common/error.h"
#include "onnx_core/ir/constant_values.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/canonicalization_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

// The attribute type the name of a Constant's value attribute calls for.
bool HasTheTypeItsNameSays(const AttributeProto& attr) {
  using A = AttributeProto;
  const std::string& name = attr.name();
  const A::AttributeType type = attr.type();
  if (name == "value") return type == A::TENSOR;
  if (name == "sparse_value") return type == A::SPARSE_TENSOR;
  if (name == "value_float") return type == A::FLOAT;
  if (name == "value_floats") return type == A::FLOATS;
  if (name == "value_int") return type == A::INT;
  if (name == "value_ints") return type == A::INTS;
  if (name == "value_string") return type == A::STRING;
  if (name == "value_strings") return type == A::STRINGS;
  return false;
}

}  // namespace

MatchResult ConstantToInitializerPattern::Match(GraphGraph& graph, const NodeProto& constant) const {
  if (!core::builder::IsOp(constant, "Constant") || constant.output_size() != 1)
    return NoMatch(constant, "the node is not a default-domain Constant with one output");
  if (graph.Builder().OuterScope().Contains(constant.output(0)))
    return NoMatch(constant, "the output name is also a value of an enclosing graph");
  // Some exporters write value_float with type INT: onnxruntime then declares a float and
  // computes an int64, and an int64 initializer in its place no longer loads.
  if (constant.attribute_size() == 1 && !HasTheTypeItsNameSays(constant.attribute(0)))
    return NoMatch(constant, "the Constant attribute's type is not the one its name says");
  if (!core::ir::ConstantNodeValue(constant))
    return NoMatch(constant, "the Constant value cannot be read");
  return Matched({&constant});
}

utils::RepeatedProtoField<NodeProto> ConstantToInitializerPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Constant"});
  const NodeProto& constant = *nodes[0];
  std::optional<TensorProto> value = core::ir::ConstantNodeValue(constant);
  if (!value) throw BuilderError(std::string(kName) + "::Apply: the Constant value cannot be read");
  const std::string initializer = graph.MakeInitializer(constant.output(0) + "_cst2init", std::move(*value));
  utils::RepeatedProtoField<NodeProto> replacement;
  canonicalization::AddIdentity(replacement, graph, kName, constant, initializer);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
