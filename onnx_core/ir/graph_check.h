#pragma once
// Structural checks of a model's graphs, done once when a model is loaded.
//
// Checked, in the main graph, every nested graph (attributes of type GRAPH / GRAPHS) and
// every local function body:
// - every node input is a graph input, an initializer, an output of an earlier node, or
//   (in a nested graph) a value visible from an enclosing graph;
// - a value read before the node that produces it: reported as a cycle when the nodes
//   form one (the message lists it), otherwise as a graph that is not topologically sorted;
// - no value is defined twice (two node outputs, a node output and an input or an
//   initializer; an input may share its name with an initializer, as the IR allows),
//   and no nested graph redefines (shadows) a name visible from an enclosing graph;
// - every graph output is defined.
// Violations raise ModelError naming the graph, the node and the value.

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

void CheckModel(const ModelProto& model);

}  // namespace onnxopt::core::ir
