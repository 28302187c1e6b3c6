#include "onnx_extensions/patterns/fusion/fusion_matchers.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/operator_modes.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::fusion {

using core::builder::ConstantDoubles;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::NumericConstant;
using core::builder::OnnxOpset;
using core::builder::OptionalInput;

namespace {

// The output channel of each element of a convolution weight (row-major).
std::int64_t ChannelOfWeightElement(bool transposed, const std::vector<std::int64_t>& dims, std::int64_t group,
                                    std::int64_t element) {
  std::int64_t kernel = 1;
  for (std::size_t d = 2; d < dims.size(); ++d) kernel *= dims[d];
  if (!transposed) return element / (dims[1] * kernel);
  // ConvTranspose: input channel c of group c / (C/group) writes channels
  // group_index * (M/group) + j for j < dims[1].
  const std::int64_t input_channel = element / (dims[1] * kernel);
  const std::int64_t j = (element / kernel) % dims[1];
  return input_channel / (dims[0] / group) * dims[1] + j;
}

}  // namespace

bool IsFloatType(int elem_type) {
  return elem_type == TensorProto::FLOAT || elem_type == TensorProto::DOUBLE || elem_type == TensorProto::FLOAT16 ||
         elem_type == TensorProto::BFLOAT16;
}

TensorProto FloatTensor(int elem_type, const std::vector<std::int64_t>& dims, const std::vector<double>& values) {
  core::eval::Tensor tensor(elem_type, dims);
  for (std::size_t i = 0; i < values.size(); ++i) {
    switch (elem_type) {
      case TensorProto::DOUBLE:
        tensor.MutableData<double>()[i] = values[i];
        break;
      case TensorProto::FLOAT16:
        tensor.MutableData<std::uint16_t>()[i] = core::eval::FloatToHalf(static_cast<float>(values[i]));
        break;
      case TensorProto::BFLOAT16:
        tensor.MutableData<std::uint16_t>()[i] = core::eval::FloatToBFloat16(static_cast<float>(values[i]));
        break;
      default:
        tensor.MutableData<float>()[i] = static_cast<float>(values[i]);
        break;
    }
  }
  return tensor.ToProto("");
}

bool IsConvOrConvTranspose(const NodeProto& node) { return IsOp(node, "Conv") || IsOp(node, "ConvTranspose"); }

const NodeProto* FusableConvProducer(const GraphGraph& graph, std::string_view value) {
  const NodeProto* conv = graph.NodeBefore(value);
  if (!conv || !IsConvOrConvTranspose(*conv) || conv->output_size() != 1) return nullptr;
  if (conv->input_size() < 2 || !core::builder::HasOneUse(graph, value)) return nullptr;
  return conv;
}

std::optional<std::int64_t> OutputChannels(const NodeProto& conv, const std::vector<std::int64_t>& weight_dims) {
  if (weight_dims.size() < 3) return std::nullopt;
  const std::int64_t group = IntAttr(conv, "group").value_or(1);
  if (group < 1 || weight_dims[0] % group != 0) return std::nullopt;
  if (conv.op_type() == "Conv") return weight_dims[0];
  return weight_dims[1] * group;
}

std::optional<std::string_view> WhyWeightsNotFoldable(GraphGraph& graph, const NodeProto& conv, bool scales_weight) {
  const std::string& weight = conv.input(1);
  if (!IsFloatType(graph.GetType(weight))) return "the convolution weight is not of a float type";
  if (scales_weight && !core::builder::HasOneUse(graph, weight))
    return "the convolution weight has another consumer (folding would copy it)";
  // GetComputedConstant answers null above the folding size limit.
  const TensorProto* computed = graph.GetComputedConstant(weight);
  if (!computed) return "the convolution weight is not a constant within the folding limits";
  const std::optional<std::int64_t> channels =
      OutputChannels(conv, std::vector<std::int64_t>(computed->dims().begin(), computed->dims().end()));
  if (!channels) return "the convolution weight has no valid shape for its group";
  const std::string_view bias = OptionalInput(conv, 2);
  if (bias.empty()) return std::nullopt;
  const std::optional<NumericConstant> bias_values = ConstantDoubles(graph, bias);
  if (!bias_values) return "the convolution bias is not a constant";
  if (bias_values->elements.size() != static_cast<std::size_t>(*channels))
    return "the convolution bias does not hold one value per output channel";
  return std::nullopt;
}

std::optional<std::vector<double>> PerChannelConstant(GraphGraph& graph, std::string_view value, std::size_t rank,
                                                      std::int64_t channels) {
  std::optional<NumericConstant> constant = ConstantDoubles(graph, value);
  if (!constant || constant->dims.size() > rank || constant->elements.empty()) return std::nullopt;
  std::vector<std::int64_t> dims(rank - constant->dims.size(), 1);
  dims.insert(dims.end(), constant->dims.begin(), constant->dims.end());
  for (std::size_t d = 0; d < rank; ++d)
    if (dims[d] != 1 && !(d == 1 && dims[d] == channels)) return std::nullopt;
  // Folding an infinity or a NaN into the weights would change which outputs are NaN.
  if (!std::all_of(constant->elements.begin(), constant->elements.end(), [](double v) { return std::isfinite(v); }))
    return std::nullopt;
  if (constant->elements.size() == 1) return std::vector<double>(channels, constant->elements[0]);
  return std::move(constant->elements);
}

std::optional<ChannelAffine> InferenceBatchNormalization(GraphGraph& graph, const NodeProto& bn, std::int64_t channels,
                                                         std::string_view* why) {
  using core::builder::Reject;
  if (!IsOp(bn, "BatchNormalization") || bn.input_size() != 5)
    return Reject(why, "the node is not a default-domain BatchNormalization with five inputs");
  if (const std::string_view trains = core::ir::WhyBatchNormalizationTrains(bn, OnnxOpset(graph)); !trains.empty())
    return Reject(why, trains);
  // Opsets 1 to 8: spatial=0 normalizes per element, not per channel.
  if (IntAttr(bn, "spatial").value_or(1) != 1) return Reject(why, "the BatchNormalization has spatial=0");
  for (int i = 1; i < bn.output_size(); ++i)
    if (!bn.output(i).empty() && graph.IsUsed(bn.output(i)))
      return Reject(why, "the running mean or variance output of the BatchNormalization is used");
  std::vector<std::vector<double>> parameters;
  for (int i = 1; i < 5; ++i) {
    std::optional<NumericConstant> parameter = ConstantDoubles(graph, bn.input(i));
    if (!parameter) return Reject(why, "a BatchNormalization parameter is not a constant");
    if (parameter->elements.size() != static_cast<std::size_t>(channels))
      return Reject(why, "a BatchNormalization parameter does not hold one value per channel");
    parameters.push_back(std::move(parameter->elements));
  }
  const double epsilon = core::builder::FloatAttr(bn, "epsilon").value_or(1e-5f);
  ChannelAffine affine;
  for (std::int64_t c = 0; c < channels; ++c) {
    const double multiplier = parameters[0][c] / std::sqrt(parameters[3][c] + epsilon);
    if (!std::isfinite(multiplier)) return Reject(why, "var + epsilon is not positive in some channel");
    affine.multiplier.push_back(multiplier);
    affine.offset.push_back(parameters[1][c] - parameters[2][c] * multiplier);
  }
  return affine;
}

std::optional<FoldedWeights> FoldIntoWeights(GraphGraph& graph, const NodeProto& conv, const ChannelAffine& affine,
                                             std::string_view* why) {
  using core::builder::IsNormalIn;
  using core::builder::Reject;
  const std::string& weight_name = conv.input(1);
  const int elem_type = graph.GetType(weight_name);
  // Every magnitude from 1 up is normal in each float type: a value that is not normal
  // and not below 1 lies above the finite range (or is a NaN).
  const auto overflows = [elem_type](double v) { return !IsNormalIn(v, elem_type) && !(std::fabs(v) < 1.0); };
  const std::size_t channels = affine.multiplier.size();
  FoldedWeights folded;
  if (!std::all_of(affine.multiplier.begin(), affine.multiplier.end(), [](double m) { return m == 1.0; })) {
    std::vector<double> scaled = ConstantDoubles(graph, weight_name)->elements;
    const TensorProto& weight_proto = *graph.GetComputedConstant(weight_name);
    const std::vector<std::int64_t> dims(weight_proto.dims().begin(), weight_proto.dims().end());
    const bool transposed = conv.op_type() == "ConvTranspose";
    const std::int64_t group = IntAttr(conv, "group").value_or(1);
    std::size_t kernel = 1;
    for (std::size_t d = 2; d < dims.size(); ++d) kernel *= static_cast<std::size_t>(dims[d]);
    // The kernel elements of one (input channel, output channel) pair are contiguous and
    // share their multiplier.
    for (std::size_t start = 0; start < scaled.size(); start += kernel) {
      const double m =
          affine.multiplier[ChannelOfWeightElement(transposed, dims, group, static_cast<std::int64_t>(start))];
      for (std::size_t i = start; i < start + kernel; ++i) {
        const double w = scaled[i];
        scaled[i] = w * m;
        if (IsNormalIn(scaled[i], elem_type) || w == 0.0 || m == 0.0) continue;
        if (overflows(scaled[i])) return Reject(why, "a folded weight overflows the weight type");
        return Reject(why, "a folded weight underflows to 0 or a subnormal of the weight type");
      }
    }
    folded.weight = std::move(scaled);
  }
  folded.bias.assign(channels, 0.0);
  if (const std::string_view old_bias = OptionalInput(conv, 2); !old_bias.empty())
    folded.bias = ConstantDoubles(graph, old_bias)->elements;
  for (std::size_t o = 0; o < channels; ++o) {
    folded.bias[o] = folded.bias[o] * affine.multiplier[o] + affine.offset[o];
    if (overflows(folded.bias[o])) return Reject(why, "a folded bias overflows the weight type");
  }
  return folded;
}

std::optional<ConvWithChannelConstant> MatchConvWithChannelConstant(GraphGraph& graph, const NodeProto& binary,
                                                                    bool scales_weight, std::string_view* why) {
  using core::builder::Reject;
  if (binary.input_size() != 2 || binary.output_size() != 1)
    return Reject(why, "the node does not have two inputs and one output");
  const int conv_side = FusableConvProducer(graph, binary.input(0)) ? 0 : 1;
  const NodeProto* conv = FusableConvProducer(graph, binary.input(conv_side));
  if (!conv) return Reject(why, "no input is produced by a Conv or ConvTranspose with no other use");
  if (std::optional<std::string_view> reason = WhyWeightsNotFoldable(graph, *conv, scales_weight))
    return Reject(why, *reason);
  const TensorProto& weight = *graph.GetComputedConstant(conv->input(1));
  const std::vector<std::int64_t> weight_dims(weight.dims().begin(), weight.dims().end());
  std::optional<std::vector<double>> values =
      PerChannelConstant(graph, binary.input(1 - conv_side), weight_dims.size(), *OutputChannels(*conv, weight_dims));
  if (!values)
    return Reject(why, "the other input is not a constant with one value per output channel that keeps the shape");
  if (graph.GetType(binary.input(1 - conv_side)) != graph.GetType(conv->input(1)))
    return Reject(why, "the constant and the convolution weight have different element types");
  const std::size_t channels = values->size();
  const ChannelAffine affine = scales_weight ? ChannelAffine{std::move(*values), std::vector<double>(channels, 0.0)}
                                             : ChannelAffine{std::vector<double>(channels, 1.0), std::move(*values)};
  std::optional<FoldedWeights> folded = FoldIntoWeights(graph, *conv, affine, why);
  if (!folded) return std::nullopt;
  return ConvWithChannelConstant{conv, std::move(*folded)};
}

void AddFoldedConv(utils::RepeatedProtoField<NodeProto>& replacement, GraphGraph& graph, std::string_view pattern,
                   const NodeProto& conv, const FoldedWeights& folded, const std::string& output) {
  const std::string& weight_name = conv.input(1);
  const int elem_type = graph.GetType(weight_name);
  std::string weight = weight_name;
  if (folded.weight) {
    const TensorProto& weight_proto = *graph.GetComputedConstant(weight_name);
    const std::vector<std::int64_t> weight_dims(weight_proto.dims().begin(), weight_proto.dims().end());
    weight = graph.MakeInitializer(pattern, FloatTensor(elem_type, weight_dims, *folded.weight));
  }
  const std::int64_t channels = static_cast<std::int64_t>(folded.bias.size());
  const std::string bias_name = graph.MakeInitializer(pattern, FloatTensor(elem_type, {channels}, folded.bias));

  NodeProto& fused = *replacement.Add();
  fused.set_op_type(conv.op_type());
  fused.set_domain(conv.domain());
  fused.set_name(core::builder::DerivedNodeName(graph, pattern, conv));
  fused.add_input(conv.input(0));
  fused.add_input(weight);
  fused.add_input(bias_name);
  fused.add_output(output);
  *fused.mutable_attribute() = conv.attribute();
}

utils::RepeatedProtoField<NodeProto> FoldChannelConstantIntoConv(GraphGraph& graph, std::string_view pattern,
                                                                 const NodeProto& conv, const NodeProto& binary,
                                                                 bool scales_weight) {
  // Apply recomputes the folded weights Match found: a match result carries nodes, not values.
  std::string_view why;
  const std::optional<ConvWithChannelConstant> match = MatchConvWithChannelConstant(graph, binary, scales_weight, &why);
  if (!match || match->conv != &conv)
    throw BuilderError(std::string(pattern) + "::Apply called with nodes that do not match: " + std::string(why));
  utils::RepeatedProtoField<NodeProto> replacement;
  AddFoldedConv(replacement, graph, pattern, conv, match->folded, binary.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns::fusion
