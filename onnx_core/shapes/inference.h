#pragma once
// The inference driver: walks a graph in node order, calls each node's shape function
// and records a SymTensor per value.
//
// Sources of knowledge: graph inputs (their declared types, dim_param becoming symbols),
// initializers and Constant nodes (exact values for small integer tensors), value_info
// entries are NOT trusted (they may be stale) except for graph inputs and outputs of
// nested graphs. Local functions (FunctionProto) are inferred by instantiating their
// body with the call's inputs and attributes. Operators without a shape function give
// unknown outputs.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/shapes/sym_dim.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::core::shapes {

struct ShapeDiagnostic {
  std::string node;     // node name, or "#index (OpType)" when it has none
  std::string op_type;
  std::string message;
};

// What inference knows about the values of one graph (and, through `parent`, of the
// enclosing graphs).
class ShapesContext {
 public:
  explicit ShapesContext(const ShapesContext* parent = nullptr) : parent_(parent) {}

  // The SymTensor of `name`, looking in enclosing scopes; null when never inferred.
  const SymTensor* Find(std::string_view name) const;
  void Set(const std::string& name, SymTensor value) { values_[name] = std::move(value); }
  const std::unordered_map<std::string, SymTensor>& Values() const { return values_; }
  std::vector<ShapeDiagnostic>& Diagnostics() { return diagnostics_; }
  const std::vector<ShapeDiagnostic>& Diagnostics() const { return diagnostics_; }
  SymbolGenerator& Symbols();
  // The context of a graph nested in this one (If branch, Loop body), created on first
  // use. Sibling graphs may reuse value names, so each has its own context.
  ShapesContext& Nested(const GraphProto& graph);
  const ShapesContext* FindNested(const GraphProto& graph) const;

 private:
  const ShapesContext* parent_;
  std::unordered_map<std::string, SymTensor> values_;
  std::unordered_map<const GraphProto*, std::unique_ptr<ShapesContext>> nested_;
  std::vector<ShapeDiagnostic> diagnostics_;
  SymbolGenerator symbols_;
};

// Infers every value of `graph` (inputs, initializers, node outputs; nested graphs
// included), with `model`'s opset imports and local functions. `context` receives the
// results; it may already hold values (of an enclosing scope via its parent).
void InferGraph(const ModelProto& model, const GraphProto& graph, ShapesContext& context);

// Infers the outputs of the given nodes only, in order, reading their inputs from
// `context` (incremental inference after a rewrite).
void InferNodes(const ModelProto& model, const std::vector<const NodeProto*>& nodes, ShapesContext& context);

}  // namespace onnxopt::core::shapes
