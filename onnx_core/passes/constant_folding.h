#pragma once
// Constant folding: a node whose inputs are all constants (initializers, Constant
// nodes, values folded earlier) and whose operator is deterministic is evaluated with
// the registered kernels and replaced by initializers holding its outputs.
//
// Folding must not grow the model: an output larger than FoldOptions::max_output_bytes
// is not materialized, nor one much larger than the inputs it is computed from (a
// ConstantOfShape of 10^6 elements or an Expand of a scalar is cheap to compute and
// expensive to store). Outputs whose shape inference knows are checked before the kernel
// runs; while it runs, no tensor above max_output_bytes is allocated at all (whatever the
// operator: an output shape that depends on values, a large intermediate), so that a
// ConstantOfShape of [2e9] costs nothing. The kernels whose work grows faster than their
// inputs and outputs (MatMul, Conv, Einsum...) take it from a work budget
// (eval/work_budget.h): a small model of many such nodes cannot keep folding busy for
// hours. Graph outputs keep their names. Nodes whose operator has no kernel, whose kernel
// fails, or whose result the spec leaves undefined (a float out of an integer type's
// range: eval/undefined_results.h) are left as they are, and so are DequantizeLinear
// nodes (FoldOptions::fold_dequantize_linear). Sparse initializers are constants too (made dense
// within the limit on tensor sizes).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/eval/work_budget.h"

namespace onnxopt::core::builder {

// How FoldOptions::max_output_bytes appears in messages when a kernel run by folding asks
// for a larger tensor (it runs under an ir::ScopedTensorLimit of that size).
inline constexpr std::string_view kFoldingLimitName =
    "constant folding's limit on the tensors it computes (FoldOptions::max_output_bytes)";

// The name of the work budget folding charges, in messages.
inline constexpr std::string_view kFoldingWorkBudgetName = "constant folding's work budget";

struct FoldOptions {
  // Largest output (bytes) that folding may materialize.
  std::uint64_t max_output_bytes = 1 << 20;
  // Outputs above this size must not exceed twice the bytes of the node's inputs: a
  // small recipe (Range, Expand, ConstantOfShape, Tile, a mask from Less(Range, Range))
  // stays a recipe rather than becoming a large tensor in the file.
  std::uint64_t growth_free_bytes = 64 << 10;
  // Elementary steps (multiply-adds, comparisons; eval/work_budget.h) that the kernels of
  // one folding call may spend in all, and those of one optimization (GraphGraph): about a
  // second with the slowest kernels (Einsum's, 4 ns a step). Nodes that would need more
  // stay as they are.
  std::uint64_t max_work_steps = std::uint64_t{1} << 28;
  // Bytes that the values computed for patterns to inspect (GraphGraph::GetComputedConstant)
  // may hold in all, nested graphs included. They are kept for the whole optimization
  // (patterns hold pointers to them), so 4 000 ConstantOfShape nodes of 1 MiB each, a
  // 330 KB model, held 4 GB. Beyond it a value is not computed, and the patterns that would
  // inspect it do not fire. The PP-OCR models hold 0.3 to 6 MB, the corpus models 3 KB.
  std::uint64_t max_computed_bytes = std::uint64_t{256} << 20;
  // Whether a DequantizeLinear of constants is folded. By default it is not: its integer
  // input is the point of a quantized model (runtimes run the DequantizeLinear -> Conv ->
  // QuantizeLinear group in integers, and a weight-only quantized MatMul reads 4 or 8 bits
  // a weight); its float result would make the file 2 to 8 times larger and the runtime
  // compute in float. onnxruntime's folding leaves them too.
  bool fold_dequantize_linear = false;
};

struct FoldResult {
  std::size_t folded_nodes = 0;
  std::vector<std::string> folded;   // "name (OpType)" of each folded node, in order
  std::vector<std::string> skipped;  // "name (OpType): reason" for all-constant nodes left alone
  std::vector<std::string> added_initializers;  // appended to the initializer field, in order
  // Addresses the folded nodes had (they are deleted): lets a caller that indexed the
  // nodes beforehand tell which ones went.
  std::vector<const NodeProto*> folded_node_addresses;
  std::string ToString() const;
};

// Whether `node` is a Shape or Size whose input has a static shape (for Size, one whose
// element count fits int64): its value is known.
bool HasStaticShapeValue(const GraphBuilder& builder, const NodeProto& node);
// That value (named after the node's output); nullopt when HasStaticShapeValue is false.
// Shape's start and end are applied.
std::optional<TensorProto> StaticShapeValue(const GraphBuilder& builder, const NodeProto& node);

// Whether folding leaves `node` for the integers it reads whatever its inputs: a
// DequantizeLinear (of any domain) unless options.fold_dequantize_linear. GraphGraph's
// IsConstant follows it, so that no pattern computes what folding keeps quantized.
bool KeepsQuantizedInput(const NodeProto& node, const FoldOptions& options);

// What one graph defines as constants (initializers, sparse initializers, Constant
// nodes) and its inputs, by name.
struct ConstantSources;

// The constants of the graphs around a nested graph, indexed once for all the graphs
// nested in them. The optimizer folds each nested graph with calls of its own; indexing
// the enclosing graphs again in each call made a graph with thousands of branches
// quadratic. Each level indexes one graph, on first use, and asks `outer` (null at the
// root) about the graphs around it. Valid while those graphs are not edited.
class EnclosingConstants {
 public:
  EnclosingConstants(const GraphBuilder& graph, const EnclosingConstants* outer);
  EnclosingConstants(const EnclosingConstants&) = delete;
  EnclosingConstants& operator=(const EnclosingConstants&) = delete;
  ~EnclosingConstants();

  // The sources of `graph` when it is this level's graph or one around it; null otherwise.
  const ConstantSources* Find(const GraphBuilder& graph) const;

 private:
  const GraphBuilder& graph_;
  const EnclosingConstants* outer_;
  mutable std::unique_ptr<ConstantSources> sources_;
};

// Folds every foldable node of `builder` (nested graphs included), in graph order, so
// that chains of constant nodes fold in one call.
FoldResult FoldConstants(GraphBuilder& builder, const FoldOptions& options = {});

// Folds only `nodes` (nodes of `builder`'s graph, e.g. added by a rewrite) when all
// their inputs are constant. `enclosing`, when given, holds the graphs around `builder`.
// `budget`, when given, is the work budget to charge (the optimizer shares one among all
// its calls); otherwise the call has one of options.max_work_steps.
FoldResult FoldNodes(GraphBuilder& builder, const std::vector<const NodeProto*>& nodes,
                     const FoldOptions& options = {}, const EnclosingConstants* enclosing = nullptr,
                     eval::WorkBudget* budget = nullptr);

}  // namespace onnxopt::core::builder
