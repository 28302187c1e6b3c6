#pragma once
// Helpers shared by the reshape patterns (../../../../shared/docs/patterns/reshape.md).

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/shapes/sym_dim.h"

namespace onnxopt::onnx_patterns::reshape {

using core::builder::GraphGraph;
using core::shapes::SymDim;

// Whether `node` is a Reshape every pattern of the family may rewrite: default domain, the
// shape as an input (opset 5+, not the old `shape` attribute) and allowzero=0, so that a 0
// in a shape vector copies the input dimension at its index. With allowzero=1 a 0 would
// mean an empty dimension, which none of the rewrites accounts for.
bool IsPlainReshape(const NodeProto& node);

// Why `node` is not a plain Reshape (IsPlainReshape), as a NoMatch reason; empty when it
// is one.
std::string_view WhyNotPlainReshape(const NodeProto& node);

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

// The value of a 1-D integer tensor used as a shape (upstream `value_as_shape`): its
// elements when it is constant, else the symbolic value shape inference recorded (the
// output of Shape(x) for x of shape (N, 8) is (N, 8)); nullopt when neither is known. An
// element may itself be unknown.
// (SwapExpandReshapePattern has a private copy: a candidate for onnx_core/optimizer/match.h.)
std::optional<std::vector<SymDim>> ShapeValue(GraphGraph& graph, std::string_view value);

}  // namespace onnxopt::onnx_patterns::reshape
