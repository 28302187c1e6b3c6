// Optimizers of the ai.onnx.preview.training domain (version 1): Adagrad, Adam, Momentum.
// Each takes a learning rate R and an update count T, then groups of tensors (the values
// X_1..X_n, their gradients G_1..G_n, then per-optimizer state), and returns the updated
// values followed by the updated state. Element-wise, in double, rounded once.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/nn_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

constexpr const char* kTraining = "ai.onnx.preview.training";

struct OptimizerStep {
  double rate = 0;        // R
  std::int64_t count = 0;  // T
  std::int64_t tensors = 0;  // n
};

// Reads R and T and checks the groups: `input_groups` groups of n tensors each (the first
// is X, the others have X's type and shape) and at most `output_groups` * n outputs.
OptimizerStep ReadOptimizerStep(const KernelContext& ctx, std::int64_t input_groups, std::int64_t output_groups,
                                const char* group_names) {
  if (ctx.InputCount() < 2) Fail("the inputs R and T are required");
  const Tensor& r = ctx.TensorInput(0);
  if (r.elem_type() != TensorProto::FLOAT && r.elem_type() != TensorProto::DOUBLE)
    Fail("R must be float or double, found " + ElemTypeName(r.elem_type()));
  const Tensor& t = ctx.TensorInput(1);
  if (t.elem_type() != TensorProto::INT64) Fail("T must be int64, found " + ElemTypeName(t.elem_type()));
  if (r.size() != 1 || t.size() != 1)
    Fail("R and T must be scalars, found shapes " + ShapeToString(r.shape()) + " and " + ShapeToString(t.shape()));
  OptimizerStep step{r.ToDoubleVector()[0], t.ToInt64Vector()[0], 0};
  const auto variadic = static_cast<std::int64_t>(ctx.InputCount()) - 2;
  if (variadic == 0 || variadic % input_groups != 0)
    Fail("after R and T, the inputs must be " + std::to_string(input_groups) + " groups of n tensors (" +
         group_names + "), found " + std::to_string(variadic) + " tensors");
  step.tensors = variadic / input_groups;
  if (static_cast<std::int64_t>(ctx.OutputCount()) > output_groups * step.tensors)
    Fail("the node has " + std::to_string(ctx.OutputCount()) + " outputs, at most " +
         std::to_string(output_groups * step.tensors) + " expected for " + std::to_string(step.tensors) + " tensors");
  for (std::int64_t i = 0; i < step.tensors; ++i) {
    const Tensor& x = ctx.TensorInput(static_cast<std::size_t>(2 + i));
    if (x.elem_type() != TensorProto::FLOAT && x.elem_type() != TensorProto::DOUBLE)
      Fail("optimized tensor " + std::to_string(i) + " must be float or double, found " + ElemTypeName(x.elem_type()));
    for (std::int64_t g = 1; g < input_groups; ++g) {
      const auto index = static_cast<std::size_t>(2 + g * step.tensors + i);
      const Tensor& other = ctx.TensorInput(index);
      if (other.elem_type() != x.elem_type() || other.shape() != x.shape())
        Fail("input " + std::to_string(index) + " must have the type and shape of optimized tensor " +
             std::to_string(i) + " (" + x.Describe() + "), found " + other.Describe());
    }
  }
  return step;
}

// Input `group` of tensor i as doubles.
std::vector<double> GroupInput(const KernelContext& ctx, const OptimizerStep& step, std::int64_t group, std::int64_t i) {
  return nn::ReadAs<double>(ctx.TensorInput(static_cast<std::size_t>(2 + group * step.tensors + i)));
}

float RequiredFloat(const KernelContext& ctx, const char* name) {
  const auto value = ctx.FloatAttribute(name);
  if (!value) Fail(std::string("attribute ") + name + " is required");
  return *value;
}

// Outputs in order: output group g of tensor i at g * n + i.
class OptimizerOutputs {
 public:
  OptimizerOutputs(std::int64_t groups, const OptimizerStep& step)
      : tensors_(step.tensors), values_(static_cast<std::size_t>(groups * step.tensors)) {}
  void Set(std::int64_t group, std::int64_t i, const Tensor& like, const std::vector<double>& values) {
    values_[static_cast<std::size_t>(group * tensors_ + i)] = nn::WriteAs(like.elem_type(), like.shape(), values);
  }
  std::vector<Value> Take() { return std::move(values_); }

 private:
  std::int64_t tensors_;
  std::vector<Value> values_;
};

// Adagrad(R, T, X..., G..., H...) -> (X_new..., H_new...)
std::vector<Value> AdagradKernel(KernelContext& ctx) {
  const OptimizerStep step = ReadOptimizerStep(ctx, 3, 2, "X, G, H");
  const double decay = ctx.FloatAttribute("decay_factor").value_or(0.0f);
  const double epsilon = ctx.FloatAttribute("epsilon").value_or(0.0f);
  const double norm = ctx.FloatAttribute("norm_coefficient").value_or(0.0f);
  const double rate = step.rate / (1 + static_cast<double>(step.count) * decay);
  OptimizerOutputs out(2, step);
  for (std::int64_t i = 0; i < step.tensors; ++i) {
    std::vector<double> x = GroupInput(ctx, step, 0, i);
    const std::vector<double> g = GroupInput(ctx, step, 1, i);
    std::vector<double> h = GroupInput(ctx, step, 2, i);
    for (std::size_t e = 0; e < x.size(); ++e) {
      const double g_regularized = norm * x[e] + g[e];
      h[e] += g_regularized * g_regularized;
      x[e] -= rate * g_regularized / (std::sqrt(h[e]) + epsilon);
    }
    const Tensor& like = ctx.TensorInput(static_cast<std::size_t>(2 + i));
    out.Set(0, i, like, x);
    out.Set(1, i, like, h);
  }
  return out.Take();
}

// Adam(R, T, X..., G..., V..., H...) -> (X_new..., V_new..., H_new...)
std::vector<Value> AdamKernel(KernelContext& ctx) {
  const OptimizerStep step = ReadOptimizerStep(ctx, 4, 3, "X, G, V, H");
  const double alpha = ctx.FloatAttribute("alpha").value_or(0.9f);
  const double beta = ctx.FloatAttribute("beta").value_or(0.999f);
  const double epsilon = ctx.FloatAttribute("epsilon").value_or(0.0f);
  const double norm = ctx.FloatAttribute("norm_coefficient").value_or(0.0f);
  const double norm_post = ctx.FloatAttribute("norm_coefficient_post").value_or(0.0f);
  // Bias correction of both moments, from the second update on.
  const double t = static_cast<double>(step.count);
  const double rate = step.count > 0 ? step.rate * std::sqrt(1 - std::pow(beta, t)) / (1 - std::pow(alpha, t)) : step.rate;
  OptimizerOutputs out(3, step);
  for (std::int64_t i = 0; i < step.tensors; ++i) {
    std::vector<double> x = GroupInput(ctx, step, 0, i);
    const std::vector<double> g = GroupInput(ctx, step, 1, i);
    std::vector<double> v = GroupInput(ctx, step, 2, i);
    std::vector<double> h = GroupInput(ctx, step, 3, i);
    for (std::size_t e = 0; e < x.size(); ++e) {
      const double g_regularized = norm * x[e] + g[e];
      v[e] = alpha * v[e] + (1 - alpha) * g_regularized;
      h[e] = beta * h[e] + (1 - beta) * g_regularized * g_regularized;
      x[e] = (1 - norm_post) * (x[e] - rate * v[e] / (std::sqrt(h[e]) + epsilon));
    }
    const Tensor& like = ctx.TensorInput(static_cast<std::size_t>(2 + i));
    out.Set(0, i, like, x);
    out.Set(1, i, like, v);
    out.Set(2, i, like, h);
  }
  return out.Take();
}

// Momentum(R, T, X..., G..., V...) -> (X_new..., V_new...), standard or Nesterov.
std::vector<Value> MomentumKernel(KernelContext& ctx) {
  const OptimizerStep step = ReadOptimizerStep(ctx, 3, 2, "X, G, V");
  const double alpha = RequiredFloat(ctx, "alpha");
  const double beta = RequiredFloat(ctx, "beta");
  const double norm = RequiredFloat(ctx, "norm_coefficient");
  const auto mode = ctx.StringAttribute("mode");
  if (!mode) Fail("attribute mode is required");
  if (*mode != "standard" && *mode != "nesterov") Fail("mode must be 'standard' or 'nesterov', found '" + *mode + "'");
  const bool nesterov = *mode == "nesterov";
  // The gradient's coefficient is 1 at the first update.
  const double beta_adjusted = step.count > 0 ? beta : 1.0;
  OptimizerOutputs out(2, step);
  for (std::int64_t i = 0; i < step.tensors; ++i) {
    std::vector<double> x = GroupInput(ctx, step, 0, i);
    const std::vector<double> g = GroupInput(ctx, step, 1, i);
    std::vector<double> v = GroupInput(ctx, step, 2, i);
    for (std::size_t e = 0; e < x.size(); ++e) {
      const double g_regularized = norm * x[e] + g[e];
      v[e] = alpha * v[e] + beta_adjusted * g_regularized;
      x[e] -= step.rate * (nesterov ? g_regularized + alpha * v[e] : v[e]);
    }
    const Tensor& like = ctx.TensorInput(static_cast<std::size_t>(2 + i));
    out.Set(0, i, like, x);
    out.Set(1, i, like, v);
  }
  return out.Take();
}

}  // namespace

void RegisterTrainingKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel(kTraining, "Adagrad", AdagradKernel);
  RegisterKernel(kTraining, "Adam", AdamKernel);
  RegisterKernel(kTraining, "Momentum", MomentumKernel);
}

}  // namespace onnxopt::onnx_kernels
