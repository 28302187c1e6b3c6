#pragma once
// Helpers shared by the shape functions of onnx_extensions/shapes: broadcasting, axis
// normalization, reading integer arguments (attribute or input, depending on the opset
// version), building outputs. What cannot be told is returned as nullopt / unknown,
// contradictions are reported through Diagnose; a broken rule of the specification
// (an axis out of range) refuses the node (shape_rules.h).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_core/shapes/sym_dim.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::onnx_shapes {

using core::shapes::InferenceContext;
using core::shapes::ShapeFunction;
using core::shapes::SymDim;
using core::shapes::SymShape;
using core::shapes::SymTensor;

// ---------------------------------------------------------------------------------------
// Element types

// The element type of input i (0 when missing or unknown) and its shape (unknown rank
// for a missing input or a value that is not a tensor).
int InputElemType(const InferenceContext& ctx, std::size_t i);
SymShape InputShape(const InferenceContext& ctx, std::size_t i);

bool IsIntegerType(int elem_type);  // INT8..INT64, UINT8..UINT64 (not BOOL)
bool IsFloatType(int elem_type);    // FLOAT, DOUBLE, FLOAT16, BFLOAT16, FLOAT8*, FLOAT4*
// Whether values of this type can carry a SymTensor::value (integers and BOOL).
bool IsValueType(int elem_type);

// ---------------------------------------------------------------------------------------
// Axes

// `axis` in [-rank, rank) mapped to [0, rank); nullopt when out of range.
std::optional<std::int64_t> NormalizeAxis(std::int64_t axis, std::int64_t rank);
// Each axis normalized; nullopt when one is out of range or two are equal.
std::optional<std::vector<std::int64_t>> NormalizeAxes(const std::vector<std::int64_t>& axes, std::int64_t rank);
// The same, refusing the node (InferenceContext::Refuse) when an axis is out of range:
// the specification accepts [-rank, rank-1] wherever an axis is given. A repeated axis
// is only diagnosed (several operators leave it undefined rather than invalid); callers
// whose operator forbids it check it first.
std::optional<std::int64_t> NormalizeAxis(InferenceContext& ctx, std::int64_t axis, std::int64_t rank,
                                          std::string_view what = "axis");
std::optional<std::vector<std::int64_t>> NormalizeAxes(InferenceContext& ctx, const std::vector<std::int64_t>& axes,
                                                       std::int64_t rank, std::string_view what = "axes");

// ---------------------------------------------------------------------------------------
// Broadcasting (numpy rules)

// The broadcast of two dims: equal -> that dim; a constant 1 -> the other; a constant
// c != 1 against a symbol -> c (a valid model needs the symbol to be 1 or c); two
// different constants (neither 1) -> unknown and *incompatible = true; anything else
// (two different symbols, an unknown) -> unknown.
SymDim BroadcastDim(const SymDim& a, const SymDim& b, bool* incompatible = nullptr);
// Broadcast of several shapes; unknown rank when one has unknown rank. Incompatible
// dims become unknown and are reported through ctx.Diagnose.
SymShape BroadcastShapes(InferenceContext& ctx, const std::vector<SymShape>& shapes);
// Without diagnostics; *incompatible set when two constant dims clash.
SymShape BroadcastShapes(const std::vector<SymShape>& shapes, bool* incompatible = nullptr);
// For each element of a tensor of static shape `out` (row-major), the index of the
// element of a tensor of static shape `in` broadcast to it. nullopt when `in` does not
// broadcast to `out`.
std::optional<std::vector<std::size_t>> BroadcastIndices(const std::vector<std::int64_t>& in,
                                                         const std::vector<std::int64_t>& out);

// ---------------------------------------------------------------------------------------
// Signs of symbolic values
//
// Symbols stand for sizes (dim_params of the graph inputs, fresh symbols of run-time
// sizes), hence are non-negative; SymDim itself assumes nothing about signs. An
// expression written without a minus sign (sums, products, divisions and modulos of
// symbols and non-negative constants) is then non-negative.

bool ProvablyNonNegative(const SymDim& a);
bool ProvablyPositive(const SymDim& a);  // >= 1
// max / min when decidable under that assumption (e.g. max(seq, 0) = seq,
// min(0, seq) = 0), else unknown.
SymDim DecidableMax(const SymDim& a, const SymDim& b);
SymDim DecidableMin(const SymDim& a, const SymDim& b);

// ---------------------------------------------------------------------------------------
// Shapes and values

// The dims as integers when every one is a constant.
std::optional<std::vector<std::int64_t>> StaticDims(const SymShape& shape);
// Product of dims[begin, end) (1 for an empty range).
SymDim DimProduct(const std::vector<SymDim>& dims, std::size_t begin, std::size_t end);
// Number of elements of a static shape; nullopt otherwise or on overflow.
std::optional<std::int64_t> StaticElementCount(const SymShape& shape);
// A tensor with the given type and shape, carrying `values` when the shape is static,
// the element count matches, it is at most SymTensor::kMaxValueElements and the type
// can carry values (or is unknown).
SymTensor WithValues(int elem_type, SymShape shape, std::vector<SymDim> values);

// ---------------------------------------------------------------------------------------
// Reading inputs

// The element values of input `i`: its SymTensor value, else the elements of its
// constant tensor (any integer type or BOOL, any size). Elements may be unknown dims.
// nullopt when neither is available.
std::optional<std::vector<SymDim>> InputValues(const InferenceContext& ctx, std::size_t i);
// The same when every element is a constant.
std::optional<std::vector<std::int64_t>> InputInts(const InferenceContext& ctx, std::size_t i);
// The single element of a scalar or one-element input, when known.
std::optional<SymDim> InputScalar(const InferenceContext& ctx, std::size_t i);
std::optional<std::int64_t> InputScalarInt(const InferenceContext& ctx, std::size_t i);
// The rank that a 1-D input of shape (n,) gives the output when only its length is known
// (Reshape's and Expand's shape, ConstantOfShape's input, the axes of Squeeze and
// Unsqueeze): n, or nullopt when the length is unknown or above kMaxRankFromLength. An
// input declared with 2^40 elements holds no value anyone can pass; as a rank it would
// allocate 2^40 dims.
inline constexpr std::int64_t kMaxRankFromLength = 4096;
std::optional<std::size_t> RankFromLength(const InferenceContext& ctx, std::size_t i);
// The elements of a constant input of a floating-point (or integer) type, as doubles
// (Resize scales, Clip bounds, ...). nullopt when not a constant or not decodable.
std::optional<std::vector<double>> InputConstantDoubles(const InferenceContext& ctx, std::size_t i);

// An integer-list argument that is an attribute in early versions and an input later
// (Squeeze axes, Reduce* axes, Split split, Slice starts, Pad pads, ...).
struct IntListArg {
  bool present = false;                               // given at all
  std::optional<std::vector<std::int64_t>> values;    // known when present (all constant)
  bool Known() const { return present && values.has_value(); }
};
// Reads attribute `attribute` when ctx.OpsetVersion() < input_since, else input `input`.
// Absent attribute / missing input -> present = false.
IntListArg IntsAttributeOrInput(const InferenceContext& ctx, std::string_view attribute, std::size_t input,
                                std::int64_t input_since);

// ---------------------------------------------------------------------------------------
// Outputs

// Type and shape of `tensor`, without its value (the value usually does not survive).
SymTensor TypeAndShape(const SymTensor& tensor);
// A tensor of unknown shape; of unknown type when elem_type is 0.
SymTensor UnknownTensor(int elem_type = 0);
// `first`, then SymTensor::Unknown() for every remaining output of the node.
std::vector<SymTensor> Outputs(const InferenceContext& ctx, SymTensor first);
std::vector<SymTensor> Outputs(const InferenceContext& ctx, std::vector<SymTensor> known);
// Every output unknown (rank and type), e.g. after a diagnostic.
std::vector<SymTensor> UnknownOutputs(const InferenceContext& ctx);

// Shape functions for common cases.
// Output 0 = type and shape of input i (value dropped); other outputs unknown.
ShapeFunction SameAsInput(std::size_t i = 0);
// Output 0 = shape of input i with element type `elem_type`.
ShapeFunction SameShapeWithType(int elem_type, std::size_t i = 0);

}  // namespace onnxopt::onnx_shapes
