#pragma once
// Checks of a node's signature that kernels make before reading anything: how many
// inputs and outputs it has, the element type of an input, scalar integer inputs and
// enumerated attributes. Each failure is a ModelError saying what was expected and what
// was found (the evaluator prefixes the node).

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/eval/tensor.h"

namespace onnxopt::onnx_kernels {

// The node has between min_inputs and max_inputs inputs (omitted ones count: they keep
// the positions of the others) and between 1 and max_outputs outputs. A required input
// that is omitted is reported when it is read (KernelContext::TensorInput).
void CheckArity(const core::eval::KernelContext& ctx, std::size_t min_inputs, std::size_t max_inputs,
                std::size_t max_outputs);

// Input i is a tensor of one of `types`; `what` names it ("input 'size'").
const core::eval::Tensor& TypedInput(const core::eval::KernelContext& ctx, std::size_t i, std::string_view what,
                                     std::initializer_list<int> types);

// The value of a scalar (rank 0, or rank 1 with one element) integer input of one of
// `types`; ModelError for another shape or type.
std::int64_t ScalarIntInput(const core::eval::KernelContext& ctx, std::size_t i, std::string_view what,
                            std::initializer_list<int> types);

// The value of a scalar floating-point input (float, double, float16, bfloat16).
double ScalarFloatInput(const core::eval::KernelContext& ctx, std::size_t i, std::string_view what);

// An int attribute that must be 0 or 1.
bool BoolAttribute(const core::eval::KernelContext& ctx, std::string_view name, bool default_value);

// "tensor(float), tensor(int64)" for messages.
std::string TypeList(std::initializer_list<int> types);

}  // namespace onnxopt::onnx_kernels
