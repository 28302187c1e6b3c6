#pragma once
// Helpers shared by the reshape patterns (../../../../shared/docs/patterns/reshape.md).

#include <string_view>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"

namespace onnxopt::onnx_patterns::reshape {

using core::builder::GraphGraph;

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

}  // namespace onnxopt::onnx_patterns::reshape
