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
//   and no nested graph redefines (shadows) a name visible in it;
// - every graph output is defined.
// - every node matches the signature of its operator at the imported opset version
//   (ir::CheckNodeSignature: operator defined, input/output counts, attributes), for the
//   operator sets whose schemas are registered;
// - every imported operator set version is >= 1, and no domain is imported at two versions.
//
// Visibility follows IR.md: a nested graph held by node N of a graph sees that graph's
// inputs, initializers and the outputs of the nodes before N, and what that graph sees
// itself. N's own outputs are not visible in it, so a branch of an If may name its output
// like the If's output (torch's exporter does); a name of an enclosing graph defined at or
// after N is not visible either, and reading it is an ordering error.
// Types of values are checked later, by shape inference (shapes/type_constraints.h).
// Violations raise ModelError naming the graph, the node, the value and the rule (the
// IR.md / Versioning.md / operator-schema rule it breaks).

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

void CheckModel(const ModelProto& model);

}  // namespace onnxopt::core::ir
