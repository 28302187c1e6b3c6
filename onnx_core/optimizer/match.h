#pragma once
// The matcher vocabulary shared by every pattern family: short queries that return null
// or nullopt instead of throwing, so that Match reads as a list of conditions.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::core::builder {

// `node` is `op_type` in the default ONNX domain.
bool IsOp(const NodeProto& node, std::string_view op_type);

// Sets `*why` to `reason` and returns nullopt: the rejection of a helper that explains
// why it fails, in one line.
inline std::nullopt_t Reject(std::string_view* why, std::string_view reason) {
  *why = reason;
  return std::nullopt;
}

// Whether `node` is a Reshape a pattern may move or merge: default domain, the shape as an
// input (opset 5+, not the old `shape` attribute) and allowzero=0, so that a 0 in a shape
// vector copies the input dimension at its index. With allowzero=1 a 0 would mean an empty
// dimension, which the rewrites do not account for.
bool IsPlainReshape(const NodeProto& node);
// Why `node` is not a plain Reshape, as a NoMatch reason; empty when it is one.
std::string_view WhyNotPlainReshape(const NodeProto& node);

// The node producing `value` when it is a default-domain `op_type`; null otherwise.
const NodeProto* ProducerOf(const GraphGraph& graph, std::string_view value, std::string_view op_type);

// Read by exactly one node, in one of its inputs only, and not a graph output nor read by a
// nested graph.
bool HasOneUse(const GraphGraph& graph, std::string_view value);

// Whether `node` is the first reader of `value` (in graph order) that `qualifies`. A
// pattern that looks at every qualifying reader of a value matches from that one only:
// from each of n readers, it would cost n^2.
bool IsFirstReader(const GraphGraph& graph, std::string_view value, const NodeProto& node,
                   const std::function<bool(const NodeProto&)>& qualifies);

// The only reader of `value` when HasOneUse holds and it is a default-domain `op_type`.
const NodeProto* SoleConsumer(const GraphGraph& graph, std::string_view value, std::string_view op_type);

// The rank of `value` when shape inference knows it.
std::optional<std::size_t> RankOf(const GraphGraph& graph, std::string_view value);

// The elements of a constant integer tensor (any integer type), e.g. axes, shapes,
// indices; nullopt when `value` is not a computable integer constant.
std::optional<std::vector<std::int64_t>> ConstantInts(GraphGraph& graph, std::string_view value);

// The value of a 1-D integer tensor used as a shape (upstream `value_as_shape`): its
// elements when it is constant, else the symbolic value shape inference recorded (the
// output of Shape(x) for x of shape (N, 8) is (N, 8)); nullopt when neither is known. An
// element may itself be unknown.
std::optional<std::vector<shapes::SymDim>> ShapeValue(GraphGraph& graph, std::string_view value);

// A computable constant (of any element type) of shape () or (1,).
bool IsConstantScalarShaped(GraphGraph& graph, std::string_view value);

// The element of a computable numeric constant of shape () or (1,), as a double (booleans
// read as 0/1); nullopt for any other shape, a string or a non-constant value.
std::optional<double> ConstantScalar(GraphGraph& graph, std::string_view value);

// The element of a computable integer constant (any integer type) of shape () or (1,);
// nullopt otherwise. Exact for every int64, unlike ConstantScalar.
std::optional<std::int64_t> ConstantScalarInt(GraphGraph& graph, std::string_view value);

// The dims and elements (as doubles, booleans read as 0/1) of a computable numeric constant.
struct NumericConstant {
  std::vector<std::int64_t> dims;
  std::vector<double> elements;
};
// Nullopt when `value` is not a computable constant or holds strings.
std::optional<NumericConstant> ConstantDoubles(GraphGraph& graph, std::string_view value);

// Whether every element of the numeric tensor equals `expected` (booleans as 0/1; false
// for strings). Reads the bytes in place and stops at the first other element: cheap even
// on large weights, which matchers test against neutral elements on every pass.
bool AllElementsEqual(const TensorProto& tensor, double expected);
// The same for a computable constant `value`; false when it is not one.
bool IsConstantFilledWith(GraphGraph& graph, std::string_view value, double expected);

// The shape of `value` when its rank and every dimension (integer or symbolic) are known.
const shapes::SymShape* KnownShape(const GraphGraph& graph, std::string_view value);

// The integer dims of `value` when its shape is known and static.
std::optional<std::vector<std::int64_t>> StaticDims(const GraphGraph& graph, std::string_view value);

// Whether a Reshape whose output has the dims `output` may write -1 at `position` of its
// new shape: every other output dim is known to be positive (the one at `position` may be
// unknown). Reshape infers a -1 from the
// element count divided by the other dims, which it cannot do when they multiply to 0
// (an empty tensor: a symbolic dim that is 0 at run time); it then fails where the
// original shape, computed, still works.
bool MinusOneInferableAt(const shapes::SymShape& output, std::size_t position);

// The static integer dimension of `value` along `axis` (negative counts from the end);
// nullopt when the rank is unknown, the axis out of range or the dim not an integer.
std::optional<std::int64_t> StaticDim(const GraphGraph& graph, std::string_view value, std::int64_t axis);

// `axis` in [0, rank) after adding `rank` to a negative value; nullopt when out of range.
std::optional<std::int64_t> NormalizeAxis(std::int64_t axis, std::size_t rank);

// The dims left-padded with 1s to `rank` (unchanged when already that long or longer).
std::vector<shapes::SymDim> PadLeft(const std::vector<shapes::SymDim>& dims, std::size_t rank);

// Multidirectional broadcast of two known shapes: after left-padding with 1s, equal dims
// give that dim, a 1 gives the other dim; nullopt when a pair is anything else (including
// two different symbols, which may or may not be equal at run time).
std::optional<std::vector<shapes::SymDim>> Broadcast(const std::vector<shapes::SymDim>& a,
                                                     const std::vector<shapes::SymDim>& b);

// Whether `value` is finite and its magnitude lies in the normal range of the float type
// `elem_type` (float16, bfloat16, float, double; 0 and subnormals excluded): a constant a
// rewrite combines from two others then neither overflows to an infinity nor underflows
// to 0 where the original computation did not. For other types: finite and not 0.
bool IsNormalIn(double value, int elem_type);

// Whether QuantizeLinear(DequantizeLinear(q, scale, zero_point), scale, zero_point) gives
// back every q of type `quantized_type` for the constant `scale`: the data has at most 16
// bits (int8, uint8, int16, uint16) and the scale is a
// float32 whose elements, and their products with the largest difference of two such
// values (65535), are normal numbers. (q - zp) * s, then its quotient by s, each round by
// less than 2^-24 relatively, far below the half step that would change q. A float16 or
// bfloat16 scale cannot hold 16-bit data, and a zero scale makes QuantizeLinear divide by
// zero.
bool QuantizationRoundTripsExactly(int quantized_type, const TensorProto& scale);

// Whether a rewrite that multiplies `first` by `second` (element type `elem_type`), where
// the model scaled them apart and multiplied the scaled values, may overflow where the
// model did not: (X * a) * (Y * b) -> (X * Y) * (a * b), (X * a) @ (Y * b) -> (X @ Y) * ab.
// float16 tops out at 65504, so a product overflows from 256 * 256, and exporters scale
// float16 operands before a product exactly to stay below it (attention scales Q and K
// each). Only a product of two constant scalars whose folded value is a normal float16 is
// safe there (X * 1.7 * 0.33). The other float types have 2^127 or more of range: a
// regrouping that overflows there needs values near 1e38, which our definitions count as
// the rounding of the reordering (bfloat16 has float32's exponent range).
bool RegroupedProductMayOverflow(GraphGraph& graph, int elem_type, std::string_view first, std::string_view second);

// --- Permutations (a Transpose's perm: output axis i is input axis perm[i]) ---------------
// Shared by the layout patterns and the transpose optimizer.
// Each of 0 .. size-1 exactly once (the empty perm of a scalar included).
bool IsPermutation(const std::vector<std::int64_t>& perm);
bool IsIdentityPermutation(const std::vector<std::int64_t>& perm);
// inverse[perm[i]] = i: Transpose<inverse> undoes Transpose<perm>.
std::vector<std::int64_t> InversePermutation(const std::vector<std::int64_t>& perm);
// c[i] = first[second[i]]: Transpose<second>(Transpose<first>(x)) = Transpose<c>(x).
// `first` and `second` are permutations of the same length.
std::vector<std::int64_t> ComposePermutations(const std::vector<std::int64_t>& first,
                                              const std::vector<std::int64_t>& second);
// IsIdentityPermutation(ComposePermutations(first, second)) without building the
// composite (false when the lengths differ).
bool ComposesToIdentity(const std::vector<std::int64_t>& first, const std::vector<std::int64_t>& second);

// The version of the default ONNX opset the model imports (0 when none).
std::int64_t OnnxOpset(const GraphGraph& graph);

// Whether the model's binary element-wise operators (Add, Sub, Mul, Div, Pow, And, Or, Xor,
// Equal, Greater, Less) broadcast multidirectionally, as numpy does: from opset 7. Before,
// they broadcast only with the attribute broadcast=1, one way (the second input into the
// first) and aligned at `axis` when given, so a rewrite that creates, moves or regroups
// such a node, written for numpy's rule, builds an invalid node or computes other values.
bool BroadcastsMultidirectionally(const GraphGraph& graph);

// Appends an INT / INTS attribute to a node a pattern builds.
void AddIntAttribute(NodeProto& node, std::string_view name, std::int64_t value);
// Sets the INT attribute `name` of a node a pattern builds, replacing any value it has
// (in place) or appending it.
void SetIntAttribute(NodeProto& node, std::string_view name, std::int64_t value);
void AddIntsAttribute(NodeProto& node, std::string_view name, const std::vector<std::int64_t>& values);

// The attribute `name` when it is an INT / INTS; nullopt when absent or of another type.
std::optional<std::int64_t> IntAttr(const NodeProto& node, std::string_view name);
std::optional<std::vector<std::int64_t>> IntsAttr(const NodeProto& node, std::string_view name);
// The attribute `name` when it is a FLOAT / STRING; nullopt when absent or of another type.
std::optional<float> FloatAttr(const NodeProto& node, std::string_view name);
std::optional<std::string> StringAttr(const NodeProto& node, std::string_view name);

// Input `i` of `node`, or "" when it is absent (past the end or empty).
std::string_view OptionalInput(const NodeProto& node, int i);

// An integer tensor (INT64, or INT32 when `elem_type` says so) with these elements and
// dims, stored in raw_data, for GraphGraph::MakeInitializer; the one-argument form is 1-D.
// Throws BuilderError when the dims do not hold values.size() elements, or for another
// element type when there are values.
TensorProto IntTensor(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& dims,
                      int elem_type = TensorProto::INT64);
TensorProto IntTensor(const std::vector<std::int64_t>& values);

// Appends `output = op_type(inputs)` (default domain) to `replacement`, named after `from`
// (DerivedNodeName), and returns it for attributes to be added. An empty `output` is a new
// name (UniqueName(pattern)).
NodeProto& AddNode(utils::RepeatedProtoField<NodeProto>& replacement, GraphGraph& graph, std::string_view pattern,
                   const NodeProto& from, std::string_view op_type, std::vector<std::string> inputs,
                   std::string output = "");

// "<pattern>--<node name or first output>": the name of a node a pattern creates from
// `node`, made unique in the model.
std::string DerivedNodeName(GraphGraph& graph, std::string_view pattern, const NodeProto& node);

// `output = Identity(input)`, the node a pattern emits where `replaced` computed `output`
// as a copy of `input` (the cleanup then renames and removes it), named from `replaced`.
NodeProto IdentityNode(GraphGraph& graph, std::string_view pattern, const NodeProto& replaced, std::string_view input,
                       std::string_view output);

}  // namespace onnxopt::core::builder
