#pragma once
// Helpers shared by the reshape patterns (../../../../shared/docs/patterns/reshape.md).

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/shapes/sym_dim.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::reshape {

using core::builder::GraphGraph;
using core::shapes::SymDim;

using core::builder::IsPlainReshape;
using core::builder::WhyNotPlainReshape;

// `y = Identity(x)` for `y = Reshape(x, s)`: the replacement of a Reshape that provably
// keeps the shape; the output keeps its name, the shape input is dropped.
NodeProto IdentityOf(GraphGraph& graph, std::string_view pattern, const NodeProto& reshape);

// The element-wise binary operators a Reshape moves through (Reshape2Of3Pattern,
// ReshapeReshapeBinaryPattern): computing them in another shape changes neither the values
// nor their order when no operand is broadcast.
const std::set<std::string>& ReshapableBinaryOps();

// A default-domain ReshapableBinaryOps node with exactly two inputs (Max, Min, Mean and Sum
// are variadic) and one output.
bool IsReshapableBinary(const NodeProto& node);

// The default-domain Concat along axis 0 that computes the shape input of `reshape`; null
// with `why` set otherwise.
const NodeProto* ShapeConcat(const GraphGraph& graph, const NodeProto& reshape, std::string_view* why);

// --- Replacing one input of the shape Concat by -1 (ConcatReshapePattern,
// StaticConcatReshapePattern) ----------------------------------------------------------
// Both match {concat, reshape}. The replacement goes at the Reshape, or, when other nodes
// read the Concat's output too, at the Concat, which is re-emitted there unchanged so that
// it still precedes its other readers: the Reshape's data input must then be computed
// before the Concat. Returns the insert position, or null with `why` set.
const NodeProto* InferredPieceInsertAt(const GraphGraph& graph, const NodeProto& concat, const NodeProto& reshape,
                                       std::string_view* why);

// Why a -1 at `position` of `reshape`'s new shape would not be inferred for every input
// (core::builder::MinusOneInferableAt on its output), or an empty reason.
std::string_view WhyMinusOneNotInferable(const GraphGraph& graph, const NodeProto& reshape, std::size_t position);

// [concat again when it has other readers;] s' = Concat(...) with input `piece` replaced by
// a new constant [-1]; y = Reshape(x, s'). The -1 gives the dimension back from the element
// count: the callers check WhyMinusOneNotInferable first.
utils::RepeatedProtoField<NodeProto> InferPiece(GraphGraph& graph, std::string_view pattern, const NodeProto& concat,
                                                const NodeProto& reshape, int piece);

}  // namespace onnxopt::onnx_patterns::reshape
