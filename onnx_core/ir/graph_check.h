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

#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

void CheckModel(const ModelProto& model);

class LocalFunctions;  // local_functions.h

// CheckModel's checks of one nested graph (and of the graphs nested in it) where it sits in
// a model, for checking a model again after a change confined to that graph: `onnxopt
// replay` checks the model after every batch, and a model with thousands of branches has
// thousands of batches, each in one branch. Checking the whole model after each made such
// a replay quadratic. The scopes of the graphs around the checked one (what they define,
// where) are built on first use and kept until Forget or Clear: a check costs the size of
// the checked graph.
class NestedGraphChecker {
 public:
  // The opset imports and local functions of `model` bind the nodes' operators; it must
  // outlive the checker. Call Clear after changing them.
  explicit NestedGraphChecker(const ModelProto& model);
  ~NestedGraphChecker();
  NestedGraphChecker(const NestedGraphChecker&) = delete;
  NestedGraphChecker& operator=(const NestedGraphChecker&) = delete;

  // One graph around the checked one, and the node in it that holds the next graph inward,
  // named by its first non-empty output.
  struct Level {
    const GraphProto* graph;
    std::string_view holding_node_output;
  };
  // Checks `graph`, nested in `around` (the main graph first; the node of the last level
  // holds `graph`): ModelError on a violation. Returns false, having checked nothing, when
  // a level's holding node is not found by its output or does not hold the next graph.
  bool Check(const std::vector<Level>& around, const GraphProto& graph);
  // Forgets what is kept about `graph` and the graphs nested in it: call it after changing
  // `graph`, before the next Check.
  void Forget(const GraphProto* graph);
  // Forgets everything (after a change of the main graph, or of the model's functions).
  void Clear();

 private:
  struct Kept;
  const ModelProto& model_;
  std::unique_ptr<LocalFunctions> functions_;
  // By graph: what each graph around a checked one defines, and the graphs around it.
  std::unordered_map<const GraphProto*, std::unique_ptr<Kept>> kept_;
};

}  // namespace onnxopt::core::ir
