#pragma once
// Rules of the ONNX specification that shape functions check on the facts they read
// (attributes, constant inputs playing the role of attributes, known ranks and constant
// dims): a node that breaks one is refused through InferenceContext::Refuse, naming the
// operator version, the rule and what the node has. What is merely unknown is never
// refused.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_core/shapes/sym_dim.h"

namespace onnxopt::onnx_shapes {

using core::shapes::InferenceContext;

// "Conv-11": the operator version in force at the node's opset; the op type alone when no
// schema is registered for it.
std::string OperatorName(const InferenceContext& ctx);

// Refuses the node: rule "<OperatorName> <rule>", `found` what the node has.
[[noreturn]] void RefuseNode(const InferenceContext& ctx, std::string_view rule, std::string found);

// "[0,1]", "[2,seq]" (as SymShape::ToString writes dims).
std::string FormatInts(const std::vector<std::int64_t>& values);
std::string DescribeDims(const std::vector<core::shapes::SymDim>& values);

// A flag attribute (keepdims, ceil_mode...): 0 or 1, `default_value` when absent. Any other
// value is refused ("ReduceSum-13 keepdims is 0 or 1"): the spec names only these two and
// runtimes read the others differently (onnxruntime keeps a reduced axis only for keepdims
// 1 and skips an empty reduction only for noop_with_empty_axes 1; ONNX's shape inference
// keeps the axis only for 1 too but skips the reduction for any nonzero noop), so no
// reading of them could be trusted, by folding or by a rewrite.
bool FlagAttribute(const InferenceContext& ctx, std::string_view name, bool default_value);

// Refuses unless every value of `name` is >= minimum ("Conv-11 dilations >= 1").
void RequireAtLeast(const InferenceContext& ctx, std::string_view name, const std::vector<std::int64_t>& values,
                    std::int64_t minimum);
// Refuses unless `name` has `expected` values; `per` says why ("one per spatial axis").
void RequireCount(const InferenceContext& ctx, std::string_view name, std::size_t actual, std::size_t expected,
                  std::string_view per);
// Refuses unless the constant split sizes `sizes` are >= 0 and, when all of them and the
// dim split are constants, add up to the dim ("Split-13 split sizes add up to the dim split").
void RequireSplitSizes(const InferenceContext& ctx, const std::vector<core::shapes::SymDim>& sizes,
                       const core::shapes::SymDim& dim);
// Refuses unless `values` is a permutation of [0, rank).
void RequirePermutation(const InferenceContext& ctx, std::string_view name, const std::vector<std::int64_t>& values,
                        std::size_t rank);
// Refuses when two of `axes` name one axis of a tensor of rank `rank` (axes out of range
// are left to NormalizeAxes).
void RequireDistinctAxes(const InferenceContext& ctx, const std::vector<std::int64_t>& axes, std::int64_t rank);
// Refuses when input `index` (when given) has a known rank other than 1, or than 0 or 1
// when `scalar_ok`: the 1-D inputs of the spec ("1-D tensor of starting indices"), which
// rewrites concatenate and index as vectors.
void RequireVectorInput(const InferenceContext& ctx, std::size_t index, std::string_view name, bool scalar_ok = false);

// Refuses unless string attribute `name` (when present) is one of `allowed` (an empty
// string among them is accepted without being listed in the message).
void RequireOneOf(const InferenceContext& ctx, std::string_view name, std::initializer_list<std::string_view> allowed);

}  // namespace onnxopt::onnx_shapes
