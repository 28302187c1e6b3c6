#include "onnx_core/verify/random_outputs.h"

#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "onnx_core/common/quote.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/eval/random_seed.h"
#include "onnx_core/ir/constant_values.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/local_functions.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::verify {

namespace {

// The constant value of `name` in `graph` (an initializer or a Constant node's output).
std::optional<TensorProto> ConstantIn(const GraphProto& graph, std::string_view name) {
  for (const TensorProto& tensor : graph.initializer())
    if (tensor.name() == name) return tensor;
  for (const NodeProto& node : graph.node())
    if (node.op_type() == "Constant" && core::ir::IsOnnxDomain(node.domain()) && node.output_size() == 1 &&
        node.output(0) == name)
      return core::ir::ConstantNodeValue(node);
  return std::nullopt;
}

// Dropout draws only in training mode: since opset 12, when its training_mode input is
// given and not a constant false (before, the evaluator always runs inference).
bool DropoutDraws(const NodeProto& node, const GraphProto& graph, std::int64_t opset) {
  if (opset < 12 || node.input_size() < 3 || node.input(2).empty()) return false;
  const std::optional<TensorProto> mode = ConstantIn(graph, node.input(2));
  if (!mode) return true;
  const std::optional<std::string> bytes = core::ir::RawBytes(*mode);
  return !bytes || bytes->find_first_not_of('\0') != std::string::npos;
}

class RandomNodeFinder {
 public:
  explicit RandomNodeFinder(const ModelProto& model)
      : opset_(core::ir::FindOpsetVersion(model.opset_import(), "").value_or(0)), functions_(model.functions()) {}

  // A random node among `node` and the nodes it holds or calls, or null.
  const NodeProto* RandomNodeIn(const NodeProto& node, const GraphProto& graph) {
    if (core::eval::IsNondeterministicOp(node.domain(), node.op_type()) &&
        (node.op_type() != "Dropout" || !core::ir::IsOnnxDomain(node.domain()) || DropoutDraws(node, graph, opset_)))
      return &node;
    const NodeProto* found = nullptr;
    core::ir::ForEachSubgraph(node, [&](const std::string&, int, const GraphProto& nested) {
      for (const NodeProto& inner : nested.node())
        if (!found) found = RandomNodeIn(inner, nested);
    });
    if (found) return found;
    if (const FunctionProto* function = functions_.Find(node)) return RandomNodeInFunction(*function);
    return nullptr;
  }

  // What makes two models draw alike in `node`: its operator and attributes (nested graphs
  // included), the name a random node draws from (eval::RandomSeedName) and the function
  // it calls. Not its inputs: a shared node draws the same numbers whatever it reads.
  std::string Identity(const NodeProto& node) {
    NodeProto key = node;
    key.clear_name();
    key.clear_input();
    key.clear_output();
    key.clear_doc_string();
    if (core::eval::IsNondeterministicOp(node.domain(), node.op_type()))
      key.set_name(std::string(core::eval::RandomSeedName(node)));
    std::string identity = core::ir::SerializeDeterministic(key);
    if (const FunctionProto* function = functions_.Find(node))
      identity += core::ir::SerializeDeterministic(*function);
    return identity;
  }

 private:
  // Each function's body is searched once: functions that call each other twice per level
  // would otherwise cost 2^depth searches. A function calling itself finds its search in
  // progress (null) and stops there.
  const NodeProto* RandomNodeInFunction(const FunctionProto& function) {
    if (auto known = searched_functions_.find(&function); known != searched_functions_.end()) return known->second;
    searched_functions_.emplace(&function, nullptr);
    GraphProto body;  // the function's nodes seen as a graph, for constants
    *body.mutable_node() = function.node();
    const NodeProto* found = nullptr;
    for (const NodeProto& inner : function.node())
      if (!found) found = RandomNodeIn(inner, body);
    searched_functions_[&function] = found;
    return found;
  }

  std::int64_t opset_;
  core::ir::LocalFunctions functions_;
  std::unordered_map<const FunctionProto*, const NodeProto*> searched_functions_;
};

std::string Describe(const NodeProto& node) {
  const std::string name = node.name().empty() && node.output_size() > 0 ? node.output(0) : node.name();
  return "node " + Quote(name) + " (" + (core::ir::IsOnnxDomain(node.domain()) ? "" : node.domain() + ".") +
         node.op_type() + ")";
}

}  // namespace

std::map<std::string, std::string> OutputsOfUnsharedRandomNodes(const ModelProto& model, const ModelProto& other) {
  RandomNodeFinder finder(model);
  RandomNodeFinder other_finder(other);
  std::set<std::string> other_identities;
  for (const NodeProto& node : other.graph().node())
    if (other_finder.RandomNodeIn(node, other.graph())) other_identities.insert(other_finder.Identity(node));

  // Value -> the unshared random node it is computed from.
  std::unordered_map<std::string, std::string> tainted;
  auto source_of_inputs = [&](const NodeProto& node) -> const std::string* {
    for (const std::string& input : node.input())
      if (auto it = tainted.find(input); it != tainted.end()) return &it->second;
    if (core::ir::HasSubgraph(node))
      for (const std::string& read : core::ir::SubgraphReads(node))
        if (auto it = tainted.find(read); it != tainted.end()) return &it->second;
    return nullptr;
  };
  for (const NodeProto& node : model.graph().node()) {
    std::string source;
    if (const std::string* from = source_of_inputs(node)) {
      source = *from;
    } else if (const NodeProto* random = finder.RandomNodeIn(node, model.graph());
               random && !other_identities.contains(finder.Identity(node))) {
      source = Describe(*random);
    }
    if (source.empty()) continue;
    for (const std::string& output : node.output())
      if (!output.empty()) tainted.emplace(output, source);
  }
  std::map<std::string, std::string> outputs;
  for (const ValueInfoProto& output : model.graph().output())
    if (auto it = tainted.find(output.name()); it != tainted.end()) outputs.emplace(output.name(), it->second);
  return outputs;
}

}  // namespace onnxopt::core::verify
