#pragma once
// CopyElimination as a GraphPass (family "memory", stage kFinal): runs
// EliminateCopies with the default MemoryOptions on each graph (nested graphs
// are their own batches).

#include <string>
#include <string_view>

#include "onnx_core/optimizer/graph_pass.h"

namespace onnxopt::core::memory {

/// t = ai.onnxopt.TensorMove(a) or Identity(a); y = f(t)  =>  y = f(a), when
/// the five rules of shared/docs/copy-elimination.md prove that nobody can
/// observe the sharing.
class CopyEliminationPass final : public builder::GraphPass {
 public:
  static constexpr std::string_view kName = "CopyElimination";
  static constexpr builder::NumericalClass kNumerics = builder::NumericalClass::kExact;
  // Opt-in (copy-elimination.md §2.2): removing copies pays off only for a runtime that
  // executes in place; `--patterns default,+memory` or `onnxopt memory` ask for it.
  static constexpr bool kOptIn = true;
  std::string Name() const override { return std::string(kName); }
  builder::OptimizationStage Stage() const override { return builder::OptimizationStage::kFinal; }
  void Run(builder::GraphGraph& graph, builder::PassResult& result) const override;
};

}  // namespace onnxopt::core::memory
