#include "onnx_core/ir/initializer_inputs.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_set>

namespace onnxopt::core::ir {

bool InitializerInputsAreConstant(const ModelProto& model, InitializerInputs policy) {
  return policy == InitializerInputs::kConstantBeforeIr4 && model.ir_version() < kIrVersionInitializersNotInputs;
}

std::size_t MakeInitializerInputsConstant(ModelProto& model, InitializerInputs policy) {
  if (!InitializerInputsAreConstant(model, policy)) return 0;
  GraphProto& graph = *model.mutable_graph();
  std::unordered_set<std::string> initializers;
  for (const TensorProto& init : graph.initializer()) initializers.insert(init.name());
  for (const SparseTensorProto& init : graph.sparse_initializer()) initializers.insert(init.values().name());
  auto& inputs = *graph.mutable_input();
  const auto kept = std::remove_if(inputs.begin(), inputs.end(),
                                   [&](const ValueInfoProto& input) { return initializers.contains(input.name()); });
  const auto removed = static_cast<std::size_t>(inputs.end() - kept);
  inputs.erase(kept, inputs.end());
  if (removed > 0) model.set_ir_version(kIrVersionInitializersNotInputs);
  return removed;
}

bool DeclareIrVersionOfInitializersNotInputs(ModelProto& model) {
  if (model.ir_version() < 1 || model.ir_version() >= kIrVersionInitializersNotInputs) return false;
  const GraphProto& graph = model.graph();
  std::unordered_set<std::string_view> inputs;
  for (const ValueInfoProto& input : graph.input()) inputs.insert(input.name());
  const bool all_inputs =
      std::all_of(graph.initializer().begin(), graph.initializer().end(),
                  [&](const TensorProto& init) { return inputs.contains(init.name()); }) &&
      std::all_of(graph.sparse_initializer().begin(), graph.sparse_initializer().end(),
                  [&](const SparseTensorProto& init) { return inputs.contains(init.values().name()); });
  if (all_inputs) return false;
  model.set_ir_version(kIrVersionInitializersNotInputs);
  return true;
}

}  // namespace onnxopt::core::ir
