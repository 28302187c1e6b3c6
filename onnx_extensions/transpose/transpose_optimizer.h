#pragma once
/// TransposeOptimizer: pushes Transposes through layout-agnostic operators
/// until they cancel (inverse perms) or merge with another Transpose
/// (transpose-optimizer.md).
///   Op(Transpose(x, P)) => Transpose(Op'(x), P)   (axes of Op remapped: a ->
///   P[a]) Transpose(Transpose(x, A), B) => x when compose(A, B) is the
///   identity
/// One call: phase A (prefilter, one reverse sweep), phase B (one forward
/// sweep, each push decided by the cost model), phase C (empty DequantizeLinear
/// -> QuantizeLinear pairs left by the pushes are removed). A Transpose is
/// pushed only when the cost model says the graph gets cheaper: by default
/// (cancellation-aware) only toward a cancellation, or a merge of an unshared
/// Transpose, reached on every branch; never out of a DQ -> Transpose -> Q unit
/// unless it cancels. Exact: it only moves data.

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "onnx_core/optimizer/graph_pass.h"
#include "onnx_extensions/transpose/cost_model.h"
#include "onnx_extensions/transpose/handlers.h"

namespace onnxopt::onnx_transpose {

struct TransposeOptimizerOptions {
  CostModel cost_model = CostModel::kCancellationAware;
  // Called first for every push decision (the layout transform's hook): kPush
  // skips the cost model and the QDQ guard.
  CostHook cost_hook;
  // Looked up before the built-in table (provider ops, test ops).
  HandlerTable extended_handlers;
  // Nodes the pass must not edit, besides those marked DoNotRemove. Asked while the
  // pass runs: decide on the op type, domain, name and attributes (a node's inputs
  // and outputs in its proto are written at the end; a node the pass created has no
  // name yet).
  std::function<bool(const NodeProto&)> locked;
  // Walks recompute everything instead of sharing the memo (to check the memo).
  bool use_memo = true;
};

// Supported range of the default-domain opset.
inline constexpr std::int64_t kMinTransposeOpset = 7;
inline constexpr std::int64_t kMaxTransposeOpset = 23;

class TransposeOptimizer final : public core::builder::GraphPass {
 public:
  static constexpr std::string_view kName = "TransposeOptimizer";
  // Rounding, not exact: a reduction over several axes, or a Softmax below opset 13 over
  // the axes after its coercion point, sums the same elements in the order of the
  // transposed input's layout (spec table 4.4; test T41).
  static constexpr core::builder::NumericalClass kNumerics = core::builder::NumericalClass::kRounding;

  TransposeOptimizer() = default;
  explicit TransposeOptimizer(TransposeOptimizerOptions options) : options_(std::move(options)) {}

  std::string Name() const override { return std::string(kName); }
  // Only for drivers that still treat a pass as a pattern: they try it on Transposes only
  // (it never matches; the driver runs it through Run).
  std::set<std::string> FastOpType() const override { return {"Transpose"}; }
  core::builder::OptimizationStage Stage() const override { return core::builder::OptimizationStage::kMain; }
  // A pattern that adds a Transpose (SwapUnaryPattern, TransposeTransposePattern) may have
  // put it where a push now pays.
  std::set<std::string> RunAgainAfterAdding() const override { return {"Transpose"}; }
  // PushGraph::Finish writes back only the nodes it created or modified, and lists the
  // modified and moved ones.
  bool ListsEveryModifiedNode() const override { return true; }
  // Counters: "pushes", "cancelled", "merged", "walk_frames", "memo_hits",
  // "memo_erased", "memo_inspected", and "stop: <reason>" for every refused
  // push.
  void Run(core::builder::GraphGraph& graph, core::builder::PassResult& result) const override;

 private:
  TransposeOptimizerOptions options_;
};

// Registers TransposeOptimizer (family "transpose") in the global pattern
// registry.
void RegisterTransposeOptimizer();

}  // namespace onnxopt::onnx_transpose
