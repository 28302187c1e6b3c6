// com.microsoft FusedConv and FusedGemm, what onnxruntime's optimizer writes for Conv or
// Gemm followed by an activation. The product comes from the default domain's Conv and
// Gemm kernels (run through the registry on inputs converted to the compute type, so that
// float16 rounds once); the activations are onnxruntime's:
//   FusedConv: activation in {Relu, Tanh, Sigmoid, Silu, LeakyRelu, Clip, HardSigmoid},
//     parameters in activation_params (exactly as many as the activation takes);
//     Y = activation(Conv(X, W, B) + Z) with the optional fourth input Z.
//   FusedGemm: activation (required) in {Relu, Tanh, Sigmoid, Softsign, Softplus,
//     LeakyRelu, Elu, Celu, ThresholdedRelu, HardSigmoid, Selu, ScaledTanh,
//     ParametricSoftplus}, parameters in activation_alpha / activation_beta /
//     activation_gamma (required where used); Y = activation(Gemm(A, B, C)).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/nn_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

constexpr const char* kMs = "com.microsoft";

enum class ActivationKind {
  kIdentity, kRelu, kTanh, kSigmoid, kSilu, kSoftsign, kSoftplus, kLeakyRelu, kElu, kCelu, kThresholdedRelu,
  kHardSigmoid, kClip, kSelu, kScaledTanh, kParametricSoftplus
};

struct Activation {
  ActivationKind kind = ActivationKind::kIdentity;
  double a = 0, b = 0;  // the activation's parameters, in the order of its name list below

  double operator()(double x) const {
    auto softplus = [](double v) { return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)); };
    switch (kind) {
      case ActivationKind::kIdentity: return x;
      case ActivationKind::kRelu: return std::max(x, 0.0);
      case ActivationKind::kTanh: return std::tanh(x);
      case ActivationKind::kSigmoid: return 1 / (1 + std::exp(-x));
      case ActivationKind::kSilu: return x / (1 + std::exp(-x));
      case ActivationKind::kSoftsign: return x / (1 + std::abs(x));
      case ActivationKind::kSoftplus: return softplus(x);
      case ActivationKind::kLeakyRelu: return x >= 0 ? x : a * x;
      case ActivationKind::kElu: return x >= 0 ? x : a * (std::exp(x) - 1);
      case ActivationKind::kCelu: return std::max(x, 0.0) + std::min(0.0, a * (std::exp(x / a) - 1));
      case ActivationKind::kThresholdedRelu: return x > a ? x : 0;
      case ActivationKind::kHardSigmoid: return std::clamp(a * x + b, 0.0, 1.0);
      case ActivationKind::kClip: return std::min(std::max(x, a), b);  // b when min > max, as Clip
      case ActivationKind::kSelu: return x > 0 ? b * x : b * (a * std::exp(x) - a);
      case ActivationKind::kScaledTanh: return a * std::tanh(b * x);
      case ActivationKind::kParametricSoftplus: return a * softplus(b * x);
    }
    return x;
  }
};

struct ActivationName {
  const char* name;
  ActivationKind kind;
  std::vector<const char*> parameters;  // FusedGemm's attribute suffixes (alpha, beta, gamma)
};

// FusedConv's activations (MLAS); parameters come from activation_params in this order.
const std::vector<ActivationName>& ConvActivations() {
  static const std::vector<ActivationName> names = {
      {"Relu", ActivationKind::kRelu, {}},
      {"Tanh", ActivationKind::kTanh, {}},
      {"Sigmoid", ActivationKind::kSigmoid, {}},
      {"Silu", ActivationKind::kSilu, {}},
      {"LeakyRelu", ActivationKind::kLeakyRelu, {"alpha"}},
      {"Clip", ActivationKind::kClip, {"min", "max"}},
      {"HardSigmoid", ActivationKind::kHardSigmoid, {"alpha", "beta"}},
  };
  return names;
}

// FusedGemm's activations (the element-wise functors), parameters from
// activation_<name> attributes.
const std::vector<ActivationName>& GemmActivations() {
  static const std::vector<ActivationName> names = {
      {"Relu", ActivationKind::kRelu, {}},
      {"Tanh", ActivationKind::kTanh, {}},
      {"Sigmoid", ActivationKind::kSigmoid, {}},
      {"Softsign", ActivationKind::kSoftsign, {}},
      {"Softplus", ActivationKind::kSoftplus, {}},
      {"LeakyRelu", ActivationKind::kLeakyRelu, {"alpha"}},
      {"Elu", ActivationKind::kElu, {"alpha"}},
      {"Celu", ActivationKind::kCelu, {"alpha"}},
      {"ThresholdedRelu", ActivationKind::kThresholdedRelu, {"alpha"}},
      {"HardSigmoid", ActivationKind::kHardSigmoid, {"alpha", "beta"}},
      {"Selu", ActivationKind::kSelu, {"alpha", "gamma"}},
      {"ScaledTanh", ActivationKind::kScaledTanh, {"alpha", "beta"}},
      {"ParametricSoftplus", ActivationKind::kParametricSoftplus, {"alpha", "beta"}},
  };
  return names;
}

const ActivationName& FindActivation(const std::vector<ActivationName>& names, const std::string& name) {
  for (const ActivationName& n : names)
    if (name == n.name) return n;
  std::string known;
  for (const ActivationName& n : names) known += (known.empty() ? "" : ", ") + std::string(n.name);
  Fail("activation '" + name + "' is not one of " + known);
}

Activation ConvActivation(const KernelContext& ctx) {
  const std::optional<std::string> name = ctx.StringAttribute("activation");
  if (!name) return {};
  const ActivationName& found = FindActivation(ConvActivations(), *name);
  const std::vector<float> params = ctx.FloatsAttribute("activation_params").value_or(std::vector<float>{});
  if (params.size() != found.parameters.size())
    Fail("activation " + *name + " takes " + std::to_string(found.parameters.size()) +
         " activation_params, found " + std::to_string(params.size()));
  return {found.kind, params.size() > 0 ? params[0] : 0.0, params.size() > 1 ? params[1] : 0.0};
}

Activation GemmActivation(const KernelContext& ctx) {
  const std::optional<std::string> name = ctx.StringAttribute("activation");
  if (!name) Fail("the activation attribute is required");
  const ActivationName& found = FindActivation(GemmActivations(), *name);
  Activation activation{found.kind};
  double* slots[] = {&activation.a, &activation.b};
  for (std::size_t i = 0; i < found.parameters.size(); ++i) {
    const std::string attribute = std::string("activation_") + found.parameters[i];
    const std::optional<float> value = ctx.FloatAttribute(attribute);
    if (!value) Fail("activation " + *name + " needs the attribute " + attribute);
    *slots[i] = *value;
  }
  return activation;
}

// The node's context with other input values, to run another operator's kernel (Conv,
// Gemm) on this node's attributes.
class InputsOverride final : public KernelContext {
 public:
  InputsOverride(KernelContext& base, std::vector<Value> inputs) : base_(base), inputs_(std::move(inputs)) {}
  const NodeProto& Node() const override { return base_.Node(); }
  std::int64_t OpsetVersion() const override { return base_.OpsetVersion(); }
  const Value& Input(std::size_t i) const override { return i < inputs_.size() ? inputs_[i] : none_; }
  std::vector<Value> RunSubgraph(std::string_view attribute, const std::vector<Value>& inputs) override {
    return base_.RunSubgraph(attribute, inputs);
  }

 private:
  KernelContext& base_;
  std::vector<Value> inputs_;
  Value none_;
};

// Runs the default domain's `op` kernel on inputs [0, count) of `ctx`, each converted to
// the compute type after checking it has X's float type; returns its single output.
Tensor RunDefaultKernel(KernelContext& ctx, const char* op, std::size_t count) {
  const int type = ctx.TensorInput(0).elem_type();
  if (!IsFloatType(type)) Fail("element type " + ElemTypeName(type) + " is not a float type");
  std::vector<Value> inputs;
  for (std::size_t i = 0; i < count; ++i) {
    if (!ctx.HasInput(i)) {
      inputs.emplace_back();
      continue;
    }
    const Tensor& t = ctx.TensorInput(i);
    if (t.elem_type() != type)
      Fail("input " + std::to_string(i) + " is " + t.Describe() + ", expected element type " + ElemTypeName(type));
    inputs.emplace_back(ToComputeType(t));
  }
  const core::eval::Kernel* kernel = core::eval::FindKernel("", op);
  if (!kernel) throw BuilderError(std::string("the ") + op + " kernel is not registered");
  InputsOverride inner(ctx, std::move(inputs));
  std::vector<Value> outputs = (*kernel)(inner);
  return core::eval::AsTensor(outputs.at(0), op);
}

// y = activation(y + z) in place (z optional, y's shape), then rounded to `elem_type`.
Tensor Activate(Tensor y, const Tensor* z, const Activation& activation, int elem_type) {
  DispatchFloat(y.elem_type(), [&]<class T>(std::type_identity<T>) {
    T* v = y.MutableData<T>();
    const T* add = z ? z->Data<T>() : nullptr;
    for (std::int64_t i = 0; i < y.size(); ++i)
      v[i] = static_cast<T>(activation(static_cast<double>(add ? v[i] + add[i] : v[i])));
  });
  return FromComputeType(y, elem_type);
}

std::vector<Value> FusedConvKernel(KernelContext& ctx) {
  const Activation activation = ConvActivation(ctx);
  const int type = ctx.TensorInput(0).elem_type();
  const Tensor y = RunDefaultKernel(ctx, "Conv", 3);
  if (!ctx.HasInput(3)) return {Activate(y, nullptr, activation, type)};
  const Tensor& z_in = ctx.TensorInput(3);
  if (z_in.elem_type() != type || z_in.shape() != y.shape())
    Fail("Z " + z_in.Describe() + " must have the output's type and shape " + ShapeToString(y.shape()));
  const Tensor z = ToComputeType(z_in);
  return {Activate(y, &z, activation, type)};
}

std::vector<Value> FusedGemmKernel(KernelContext& ctx) {
  const Activation activation = GemmActivation(ctx);
  const int type = ctx.TensorInput(0).elem_type();
  return {Activate(RunDefaultKernel(ctx, "Gemm", 3), nullptr, activation, type)};
}

}  // namespace

void RegisterFusedKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel(kMs, "FusedConv", FusedConvKernel);
  RegisterKernel(kMs, "FusedGemm", FusedGemmKernel);
}

}  // namespace onnxopt::onnx_kernels
