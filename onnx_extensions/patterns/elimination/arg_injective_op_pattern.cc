#include "onnx_extensions/patterns/elimination/arg_injective_op_pattern.h"

#include <optional>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/elimination/elimination_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IsOp;

namespace {

// An integer type: how many bits hold its magnitude, and whether it has a sign.
struct IntegerType {
  int magnitude_bits;
  bool is_signed;
};
std::optional<IntegerType> AsIntegerType(int elem_type) {
  switch (elem_type) {
    case TensorProto::INT8: return IntegerType{7, true};
    case TensorProto::INT16: return IntegerType{15, true};
    case TensorProto::INT32: return IntegerType{31, true};
    case TensorProto::INT64: return IntegerType{63, true};
    case TensorProto::UINT8: return IntegerType{8, false};
    case TensorProto::UINT16: return IntegerType{16, false};
    case TensorProto::UINT32: return IntegerType{32, false};
    case TensorProto::UINT64: return IntegerType{64, false};
    default: return std::nullopt;
  }
}

// The significand bits of a float type: integers up to 2^bits are exact in it.
std::optional<int> SignificandBits(int elem_type) {
  switch (elem_type) {
    case TensorProto::BFLOAT16: return 8;
    case TensorProto::FLOAT16: return 11;
    case TensorProto::FLOAT: return 24;
    case TensorProto::DOUBLE: return 53;
    default: return std::nullopt;
  }
}

bool IsFloatType(int elem_type) { return SignificandBits(elem_type).has_value(); }

// Whether Cast converts every value of `from` exactly into `to` (hence keeps order,
// equality and NaN).
bool IsExactConversion(int from, int to) {
  const std::optional<IntegerType> from_int = AsIntegerType(from);
  if (from_int) {
    if (const std::optional<IntegerType> to_int = AsIntegerType(to))
      return (to_int->is_signed || !from_int->is_signed) && from_int->magnitude_bits <= to_int->magnitude_bits;
    const std::optional<int> digits = SignificandBits(to);
    return digits && from_int->magnitude_bits <= *digits;
  }
  // float16 and bfloat16 have different exponent ranges: neither holds the other.
  if (from == TensorProto::FLOAT16 || from == TensorProto::BFLOAT16)
    return to == TensorProto::FLOAT || to == TensorProto::DOUBLE;
  return from == TensorProto::FLOAT && to == TensorProto::DOUBLE;
}

// The element types onnxruntime's CPU ArgMax and ArgMin take.
bool ArgRunsOn(int elem_type) {
  return elem_type == TensorProto::FLOAT16 || elem_type == TensorProto::FLOAT || elem_type == TensorProto::INT8 ||
         elem_type == TensorProto::UINT8 || elem_type == TensorProto::INT32;
}

bool IsCastOrNeg(const NodeProto& node) { return IsOp(node, "Cast") || IsOp(node, "Neg"); }

}  // namespace

MatchResult ArgInjectiveOpPattern::Match(GraphGraph& graph, const NodeProto& arg) const {
  std::string_view why;
  const NodeProto* op = elimination::ArgInputProducer(graph, arg, &why);
  if (!op) return NoMatch(arg, why);
  const int input_type = graph.GetType(op->input(0));
  if (IsOp(*op, "Cast")) {
    if (input_type == 0) return NoMatch(arg, "the element type of the Cast input is unknown");
    if (!IsExactConversion(input_type, static_cast<int>(core::builder::IntAttr(*op, "to").value_or(0))))
      return NoMatch(arg, "the Cast does not convert every value exactly");
    if (!ArgRunsOn(input_type))
      return NoMatch(arg, "the Cast input is of a type ArgMax runtimes lack (float16, float, int8, uint8, int32 only)");
    return Matched({op, &arg});
  }
  if (IsOp(*op, "Neg")) {
    if (!IsFloatType(input_type)) return NoMatch(arg, "the Neg input is not of a float type");
    return Matched({op, &arg});
  }
  return NoMatch(arg, "the input is produced by neither a Cast nor a Neg");
}

utils::RepeatedProtoField<NodeProto> ArgInjectiveOpPattern::Apply(GraphGraph& graph,
                                                                  const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {{"Cast or Neg", IsCastOrNeg}, elimination::kArgMaxOrArgMin});
  const NodeProto& op = *nodes[0];
  const NodeProto& arg = *nodes[1];
  const bool reverses = op.op_type() == "Neg";
  const std::string_view op_type = arg.op_type() == "ArgMax" ? (reverses ? "ArgMin" : "ArgMax")
                                                               : (reverses ? "ArgMax" : "ArgMin");
  return elimination::ArgOf(graph, kName, arg, op.input(0), op_type);
}

}  // namespace onnxopt::onnx_patterns
