#include "onnx_extensions/kernels/kernel_signature.h"

#include <algorithm>

#include "onnx_extensions/kernels/kernel_helpers.h"

namespace onnxopt::onnx_kernels {

namespace {

std::string Plural(std::size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

std::string Range(std::size_t lo, std::size_t hi, const char* word) {
  if (lo == hi) return Plural(lo, word);
  return std::to_string(lo) + " to " + std::to_string(hi) + " " + word + "s";
}

}  // namespace

void CheckArity(const KernelContext& ctx, std::size_t min_inputs, std::size_t max_inputs, std::size_t max_outputs) {
  const std::size_t inputs = ctx.InputCount();
  if (inputs < min_inputs || inputs > max_inputs)
    Fail("expects " + Range(min_inputs, max_inputs, "input") + ", found " + std::to_string(inputs));
  const std::size_t outputs = ctx.OutputCount();
  if (outputs < 1 || outputs > max_outputs)
    Fail("expects " + Range(1, max_outputs, "output") + ", found " + std::to_string(outputs));
}

std::string TypeList(std::initializer_list<int> types) {
  std::string s;
  for (int t : types) s += (s.empty() ? "" : ", ") + ElemTypeName(t);
  return s;
}

const Tensor& TypedInput(const KernelContext& ctx, std::size_t i, std::string_view what,
                         std::initializer_list<int> types) {
  const Tensor& t = ctx.TensorInput(i);
  if (std::find(types.begin(), types.end(), t.elem_type()) == types.end())
    Fail(std::string(what) + " must be of type " + TypeList(types) + ", found " + ElemTypeName(t.elem_type()));
  return t;
}

namespace {

const Tensor& ScalarTensor(const KernelContext& ctx, std::size_t i, std::string_view what,
                           std::initializer_list<int> types) {
  const Tensor& t = TypedInput(ctx, i, what, types);
  if (t.rank() > 1 || t.size() != 1)
    Fail(std::string(what) + " must be a scalar, found shape " + ShapeToString(t.shape()));
  return t;
}

}  // namespace

std::int64_t ScalarIntInput(const KernelContext& ctx, std::size_t i, std::string_view what,
                            std::initializer_list<int> types) {
  return ScalarTensor(ctx, i, what, types).ToInt64Vector()[0];
}

double ScalarFloatInput(const KernelContext& ctx, std::size_t i, std::string_view what) {
  return ScalarTensor(ctx, i, what,
                      {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::FLOAT16, TensorProto::BFLOAT16})
      .ToDoubleVector()[0];
}

bool BoolAttribute(const KernelContext& ctx, std::string_view name, bool default_value) {
  const std::int64_t v = ctx.IntAttribute(name).value_or(default_value ? 1 : 0);
  if (v != 0 && v != 1) Fail("attribute " + std::string(name) + " must be 0 or 1, found " + std::to_string(v));
  return v == 1;
}

}  // namespace onnxopt::onnx_kernels
