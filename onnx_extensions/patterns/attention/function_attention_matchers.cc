#include "onnx_extensions/patterns/attention/function_attention_matchers.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"

namespace onnxopt::onnx_patterns::attention {

TensorProto FloatVector1(int elem_type, double value) {
  TensorProto tensor;
  tensor.set_data_type(elem_type);
  tensor.add_dims(1);
  switch (elem_type) {
    case TensorProto::FLOAT:
      tensor.add_float_data(static_cast<float>(value));
      break;
    case TensorProto::DOUBLE:
      tensor.add_double_data(value);
      break;
    case TensorProto::FLOAT16:
      tensor.add_int32_data(core::eval::FloatToHalf(static_cast<float>(value)));
      break;
    case TensorProto::BFLOAT16:
      tensor.add_int32_data(core::eval::FloatToBFloat16(static_cast<float>(value)));
      break;
    default:
      throw BuilderError("FloatVector1: element type " + std::to_string(elem_type) +
                                        " is not a float type");
  }
  return tensor;
}

std::string_view WhyNotSameDims(const GraphGraph& graph, std::string_view kv, std::string_view expanded) {
  const auto* a = core::builder::KnownShape(graph, kv);
  const auto* b = core::builder::KnownShape(graph, expanded);
  if (!a || !b || a->Rank() != 4 || b->Rank() != 4) return "the shapes around a head expansion are not known 4-D";
  for (const std::size_t i : {0, 2, 3})
    if ((*a)[i] != (*b)[i]) return "a head expansion changes more than the heads";
  return {};
}

bool IsAttentionElementType(int elem_type) {
  return elem_type == TensorProto::FLOAT || elem_type == TensorProto::FLOAT16 || elem_type == TensorProto::DOUBLE ||
         elem_type == TensorProto::BFLOAT16;
}

std::string LocalAttentionName(const LocalAttentionVariant& variant) {
  std::string name = "LocalAttention";
  if (variant.gqa) name += "GQA";
  if (variant.switched) name += "SW";
  if (variant.squeeze) name += "sQ";
  if (variant.fused) name += "NoT";
  name += "_to";
  name += std::to_string(variant.elem_type);
  return name;
}

std::optional<LocalAttentionVariant> ParseLocalAttentionName(std::string_view op_type) {
  constexpr std::string_view prefix = "LocalAttention";
  if (!op_type.starts_with(prefix)) return std::nullopt;
  std::string_view rest = op_type.substr(prefix.size());
  LocalAttentionVariant variant;
  if (rest.starts_with("SW")) {
    variant.switched = true;
    rest.remove_prefix(2);
  }
  if (rest.starts_with("NoT")) {
    variant.fused = true;
    rest.remove_prefix(3);
  }
  if (!rest.starts_with("_to") || rest.size() == 3 || rest.size() > 5) return std::nullopt;
  rest.remove_prefix(3);
  if (!std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  variant.elem_type = std::stoi(std::string(rest));
  return variant;
}

std::set<std::string> LocalAttentionOpTypes() {
  std::set<std::string> names;
  for (const bool switched : {false, true})
    for (const bool fused : {false, true})
      for (const int type : {TensorProto::FLOAT, TensorProto::FLOAT16, TensorProto::DOUBLE, TensorProto::BFLOAT16})
        names.insert(LocalAttentionName({.switched = switched, .fused = fused, .elem_type = type}));
  return names;
}

FunctionProto LocalAttentionFunction(const LocalAttentionVariant& variant, std::int64_t opset) {
  const std::string_view mask = variant.switched ? "not_mask" : "mask";
  const std::string name = LocalAttentionName(variant);
  FunctionProto f = variant.gqa ? NewLocalFunction(name,
                                                   {"query", "keys", "values", mask, "scale_sqrt", "expand_shape",
                                                    "gqa_shape"},
                                                   {"Y"}, opset)
                                : NewLocalFunction(name, {"query", "keys", "values", mask, "scale_sqrt"}, {"Y"}, opset);
  AddBodyNode(f, "Mul", {"keys", "scale_sqrt"}, {"sk"});
  std::string_view keys = "sk";
  std::string_view values = "values";
  if (variant.gqa) {
    AddBodyConstant(f, "two", core::builder::IntTensor({2}));
    AddBodyNode(f, "Unsqueeze", {"sk", "two"}, {"uk"});
    AddBodyNode(f, "Unsqueeze", {"values", "two"}, {"uv"});
    AddBodyNode(f, "Expand", {"uk", "expand_shape"}, {"ek"});
    AddBodyNode(f, "Expand", {"uv", "expand_shape"}, {"ev"});
    const std::string_view merge = variant.squeeze ? "Squeeze" : "Reshape";
    AddBodyNode(f, merge, {"ek", "gqa_shape"}, {"rk"});
    AddBodyNode(f, merge, {"ev", "gqa_shape"}, {"rv"});
    keys = "rk";
    values = "rv";
  }
  AddBodyNode(f, "Mul", {"query", "scale_sqrt"}, {"sq"});
  core::builder::AddIntsAttribute(AddBodyNode(f, "Transpose", {keys}, {"kt"}), "perm", {0, 1, 3, 2});
  AddBodyNode(f, "MatMul", {"sq", "kt"}, {"qk"});
  AddBodyConstant(f, "minf", FloatVector1(variant.elem_type, -std::numeric_limits<double>::infinity()));
  if (variant.switched)
    AddBodyNode(f, "Where", {"not_mask", "minf", "qk"}, {"mqk"});
  else
    AddBodyNode(f, "Where", {"mask", "qk", "minf"}, {"mqk"});
  core::builder::AddIntAttribute(AddBodyNode(f, "Softmax", {"mqk"}, {"sm"}), "axis", -1);
  AddBodyNode(f, "IsNaN", {"sm"}, {"nan"});
  AddBodyConstant(f, "zero", FloatVector1(variant.elem_type, 0.0));
  AddBodyNode(f, "Where", {"nan", "zero", "sm"}, {"filt"});
  AddBodyNode(f, "MatMul", {"filt", values}, {"Y"});
  return f;
}

}  // namespace onnxopt::onnx_patterns::attention
