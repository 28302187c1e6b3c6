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

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/shapes/shape_registry.h"
#include "onnx_core/shapes/sym_dim.h"
#include "onnx_core/shapes/sym_tensor.h"
#include "onnx_core/utils/name_table.h"

namespace onnxopt::core::shapes {

struct ShapeDiagnostic {
  // Node name, or "#index (OpType)" when it has none (index in its graph). Nodes of a
  // nested graph or of a local function's body are prefixed with the label of the node
  // holding them: "loop_1/body/#3 (Add)", "call_7/inner_node". Problems of an initializer
  // or a graph input are labelled "initializer 'w'", "input 'x'".
  std::string node;
  std::string op_type;
  std::string message;
};

// What inference knows about the values of one graph (and, through `parent`, of the
// enclosing graphs).
//
// A context and every context derived from it (Nested(), the contexts that instantiate
// local functions) share one SymbolGenerator, so that fresh symbols are unique
// model-wide, and one list of diagnostics.
class ShapesContext {
 public:
  explicit ShapesContext(const ShapesContext* parent = nullptr);
  ShapesContext(const ShapesContext&) = delete;
  ShapesContext& operator=(const ShapesContext&) = delete;
  ~ShapesContext();

  // The SymTensor of `name`, looking in enclosing scopes; null when never inferred.
  const SymTensor* Find(std::string_view name) const;
  // The same, given utils::HashString(name) (the optimizer's queries hash a name once).
  const SymTensor* Find(std::string_view name, std::uint64_t name_hash) const;
  // Sets `name`'s SymTensor; a shape of more than kMaxKeptRank dims is kept with an
  // unknown rank (and a diagnostic says so).
  void Set(const std::string& name, SymTensor value) {
    if (value.shape.HasRank() && value.shape.Rank() > kMaxKeptRank) ForgetRank(name, value);
    values_.set(name, std::move(value));
  }
  // Inference keeps rank-many dims per value: 10 000 nodes on an input of rank 10 000 (a
  // 250 KB model) asked for 1.6 GB. Real models stay below 10 dims; numpy allows 64.
  static constexpr std::size_t kMaxKeptRank = 64;
  // The values of this scope only (not of enclosing ones).
  const utils::NameTable<SymTensor>& Values() const { return values_; }
  // Prepares room for `count` more values (a graph's inputs, initializers and outputs).
  void Reserve(std::size_t count) { values_.reserve(values_.size() + count); }
  // Diagnostics of every context sharing this one's root, in the order they were found.
  std::vector<ShapeDiagnostic>& Diagnostics() { return shared_->diagnostics; }
  const std::vector<ShapeDiagnostic>& Diagnostics() const { return shared_->diagnostics; }
  // The generator shared by the root and every context derived from it.
  SymbolGenerator& Symbols() { return shared_->symbols; }
  // The context of a graph nested in this one (If branch, Loop body), created on first
  // use. Sibling graphs may reuse value names, so each has its own context.
  ShapesContext& Nested(const GraphProto& graph);
  const ShapesContext* FindNested(const GraphProto& graph) const;
  const ShapesContext* Parent() const { return parent_; }
  // Takes what `overlay` holds, in the order it received it: values, constants and the
  // contexts of nested graphs. `overlay` is a context derived from this one that inferred
  // nodes of this scope before they joined it (GraphBuilder::InferShapesAhead), so the
  // result is what inferring them here would have given (the contexts of nested graphs are
  // keyed by address: the nodes must be where the overlay saw them). The overlay is spent:
  // discard it.
  void Adopt(ShapesContext& overlay);

  // Constant values (initializers, outputs of Constant nodes) that KeepsConstant, for
  // InferenceContext::ConstantInput; looked up in enclosing scopes too. The context keeps
  // its own copy: the graph may change after inference. Null when the value is not a
  // known constant (or not kept).
  const TensorProto* FindConstant(std::string_view name) const;
  std::shared_ptr<const TensorProto> FindConstantShared(std::string_view name) const;
  void SetConstant(const std::string& name, std::shared_ptr<const TensorProto> tensor);
  // Whether a constant is worth a copy, stored inline and of at most kMaxConstantBytes:
  // integer and bool tensors (shapes, axes, pads, indices, split sizes), other types of at
  // most kMaxKeptRank elements: shape functions read those only as scalars or one value
  // per axis (Range, OneHot, Tile-1, Resize and Upsample scales). Copying every float
  // weight of up to 64 KB was 66 MB of the 400-layer decoder's 476 MB peak.
  static bool KeepsConstant(const TensorProto& tensor);
  static constexpr std::uint64_t kMaxConstantBytes = 64 * 1024;

 private:
  void ForgetRank(const std::string& name, SymTensor& value);
  struct Shared {
    SymbolGenerator symbols;
    std::vector<ShapeDiagnostic> diagnostics;
  };
  friend struct ShapesContextAccess;  // inference.cc: contexts of local function bodies

  const ShapesContext* parent_;
  utils::NameTable<SymTensor> values_;
  // A null entry marks a name known not to be constant (it hides an outer constant).
  utils::NameTable<std::shared_ptr<const TensorProto>> constants_;
  std::unordered_map<const GraphProto*, std::unique_ptr<ShapesContext>> nested_;
  std::shared_ptr<Shared> shared_;
};

// Infers every value of `graph` (inputs, initializers, node outputs; nested graphs
// included), with `model`'s opset imports and local functions. `context` receives the
// results; it may already hold values (of an enclosing scope via its parent).
void InferGraph(const ModelProto& model, const GraphProto& graph, ShapesContext& context);

// Infers the outputs of the given nodes only, in order, reading their inputs from
// `context` (incremental inference after a rewrite). Diagnostics name an unnamed node by
// its position in `nodes`.
void InferNodes(const ModelProto& model, const std::vector<const NodeProto*>& nodes, ShapesContext& context);

// The node of `nodes` its operator's specification forbids, and why.
struct InvalidNodeAt {
  std::size_t position;  // in `nodes`
  InvalidNodeError error;
};
// InferNodes, stopping at the first node that breaks its operator's specification instead
// of throwing: the nodes before it are inferred, it and those after are not.
std::optional<InvalidNodeAt> TryInferNodes(const ModelProto& model, const std::vector<const NodeProto*>& nodes,
                                          ShapesContext& context);

// Records an initializer (or any named constant tensor) in `context`: its SymTensor
// (type, shape, and the elements of a small integer tensor) and, when small and stored
// inline, the tensor itself for ConstantInput. External data is never read: such a
// tensor gives its type and shape only. For initializers added by a rewrite.
void InferInitializer(const TensorProto& tensor, ShapesContext& context);

}  // namespace onnxopt::core::shapes
