// Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (the latter is the former
// on LogSoftmax(scores, axis 1)). Computed in double, rounded once to the input's type.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/nn_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

enum class Reduction { kNone, kSum, kMean };

Reduction ReadReduction(const KernelContext& ctx) {
  const std::string reduction = ctx.StringAttribute("reduction").value_or("mean");
  if (reduction == "none") return Reduction::kNone;
  if (reduction == "sum") return Reduction::kSum;
  if (reduction == "mean") return Reduction::kMean;
  Fail("reduction must be 'none', 'sum' or 'mean', found '" + reduction + "'");
}

// The float types of each version: bfloat16 from opset 22 (NegativeLogLikelihoodLoss) or
// 13 (SoftmaxCrossEntropyLoss).
void RequireLossType(const Tensor& t, const std::string& what, std::int64_t bfloat16_since,
                     std::int64_t opset_version) {
  const int type = t.elem_type();
  const bool ok = type == TensorProto::FLOAT || type == TensorProto::DOUBLE || type == TensorProto::FLOAT16 ||
                  (type == TensorProto::BFLOAT16 && opset_version >= bfloat16_since);
  if (!ok) Fail(what + " must be a float tensor, found " + ElemTypeName(type));
}

// A loss over classes of axis 1: values [N, C, D] (D = product of the trailing dims),
// targets [N, D].
struct LossProblem {
  std::int64_t N = 0, C = 0, D = 1;
  Shape target_shape;
  std::vector<std::int64_t> targets;
  std::vector<double> weights;  // empty: every class weighs 1
  std::optional<std::int64_t> ignore_index;
};

LossProblem ReadLossProblem(const KernelContext& ctx, const Tensor& input, const char* input_name,
                            const char* target_name, const char* weight_name) {
  if (input.rank() < 2)
    Fail(std::string(input_name) + " must have rank 2 or more ([N, C, d1, ...]), found shape " +
         ShapeToString(input.shape()));
  const Tensor& target = ctx.TensorInput(1);
  if (target.elem_type() != TensorProto::INT32 && target.elem_type() != TensorProto::INT64)
    Fail(std::string(target_name) + " must be int32 or int64, found " + ElemTypeName(target.elem_type()));
  LossProblem p;
  p.N = input.shape()[0];
  p.C = input.shape()[1];
  p.target_shape = input.shape();
  p.target_shape.erase(p.target_shape.begin() + 1);
  if (target.shape() != p.target_shape)
    Fail(std::string(target_name) + " must have shape " + ShapeToString(p.target_shape) + " (" + input_name +
         "'s shape without axis 1), found " + ShapeToString(target.shape()));
  p.D = ShapeSize(Shape(input.shape().begin() + 2, input.shape().end()));
  p.targets = target.ToInt64Vector();
  p.ignore_index = ctx.IntAttribute("ignore_index");
  for (std::size_t i = 0; i < p.targets.size(); ++i) {
    const std::int64_t t = p.targets[i];
    if (t != p.ignore_index && (t < 0 || t >= p.C))
      Fail(std::string(target_name) + " value " + std::to_string(t) + " at index " + std::to_string(i) +
           " is out of range [0, " + std::to_string(p.C) + ")" +
           (p.ignore_index ? " and is not ignore_index " + std::to_string(*p.ignore_index) : ""));
  }
  if (ctx.HasInput(2)) {
    const Tensor& weight = ctx.TensorInput(2);
    if (weight.elem_type() != input.elem_type())
      Fail(std::string(weight_name) + " must have the element type of " + input_name + " (" +
           ElemTypeName(input.elem_type()) + "), found " + ElemTypeName(weight.elem_type()));
    if (weight.rank() != 1 || weight.shape()[0] != p.C)
      Fail(std::string(weight_name) + " must be a 1-D tensor of C=" + std::to_string(p.C) + " elements, found shape " +
           ShapeToString(weight.shape()));
    p.weights = nn::ReadAs<double>(weight);
  }
  return p;
}

// loss[n, d] = -log_prob[n, target[n, d], d] * weight[target] (0 for ignore_index), then
// reduced: the sum, or the sum divided by the sum of the weights of the targets (by the
// number of targets when there are neither weights nor ignore_index).
Tensor Loss(const LossProblem& p, const std::vector<double>& log_prob, Reduction reduction, int elem_type) {
  std::vector<double> loss(p.targets.size());
  double weight_sum = 0;
  for (std::int64_t n = 0; n < p.N; ++n)
    for (std::int64_t d = 0; d < p.D; ++d) {
      const auto i = static_cast<std::size_t>(n * p.D + d);
      const std::int64_t c = p.targets[i];
      if (c == p.ignore_index) continue;
      const double w = p.weights.empty() ? 1.0 : p.weights[static_cast<std::size_t>(c)];
      loss[i] = -log_prob[static_cast<std::size_t>((n * p.C + c) * p.D + d)] * w;
      weight_sum += w;
    }
  if (reduction == Reduction::kNone) return nn::WriteAs(elem_type, p.target_shape, loss);
  double total = 0;
  for (double v : loss) total += v;
  if (reduction == Reduction::kMean) {
    // 0 / 0 is NaN, as in the reference, when every target is ignored.
    const bool weighted = !p.weights.empty() || p.ignore_index.has_value();
    total /= weighted ? weight_sum : static_cast<double>(loss.size());
  }
  return nn::WriteAs(elem_type, {}, &total);
}

// NegativeLogLikelihoodLoss(input, target, weight)
std::vector<Value> NegativeLogLikelihoodLossKernel(KernelContext& ctx) {
  const Tensor& input = ctx.TensorInput(0);
  RequireLossType(input, "input", 22, ctx.OpsetVersion());
  const Reduction reduction = ReadReduction(ctx);
  const LossProblem p = ReadLossProblem(ctx, input, "input", "target", "weight");
  return {Loss(p, nn::ReadAs<double>(input), reduction, input.elem_type())};
}

// SoftmaxCrossEntropyLoss(scores, labels, weights) -> (output, log_prob)
std::vector<Value> SoftmaxCrossEntropyLossKernel(KernelContext& ctx) {
  const Tensor& scores = ctx.TensorInput(0);
  RequireLossType(scores, "scores", 13, ctx.OpsetVersion());
  const Reduction reduction = ReadReduction(ctx);
  const LossProblem p = ReadLossProblem(ctx, scores, "scores", "labels", "weights");
  // log_softmax over axis 1: x - max - log(sum(exp(x - max))).
  std::vector<double> log_prob = nn::ReadAs<double>(scores);
  for (std::int64_t n = 0; n < p.N; ++n)
    for (std::int64_t d = 0; d < p.D; ++d) {
      const auto at = [&](std::int64_t c) -> double& { return log_prob[static_cast<std::size_t>((n * p.C + c) * p.D + d)]; };
      double max = -std::numeric_limits<double>::infinity();
      for (std::int64_t c = 0; c < p.C; ++c) max = std::max(max, at(c));
      double sum = 0;
      for (std::int64_t c = 0; c < p.C; ++c) sum += std::exp(at(c) - max);
      const double log_sum = std::log(sum);
      for (std::int64_t c = 0; c < p.C; ++c) at(c) = at(c) - max - log_sum;
    }
  std::vector<Value> outputs{Loss(p, log_prob, reduction, scores.elem_type())};
  if (ctx.OutputCount() > 1) outputs.emplace_back(nn::WriteAs(scores.elem_type(), scores.shape(), log_prob));
  return outputs;
}

}  // namespace

void RegisterLossKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel("", "NegativeLogLikelihoodLoss", NegativeLogLikelihoodLossKernel);
  RegisterKernel("", "SoftmaxCrossEntropyLoss", SoftmaxCrossEntropyLossKernel);
}

}  // namespace onnxopt::onnx_kernels
