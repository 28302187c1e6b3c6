#include "onnx_core/memory/layout_conflict.h"

#include <algorithm>
#include <set>
#include <utility>

#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/memory/memory_graph.h"

namespace onnxopt::core::memory {

namespace {

using A = AnchorAttribute;

struct Anchor {
  AnchorAttribute attribute;
  const void* owner;  // the node, or a pseudo node (one per graph input /
                      // initializer / the outputs)
};

// The registry of conflicting pairs (order-insensitive). A REFERENCE_OUTPUT
// never conflicts.
bool Conflicting(A a, A b) {
  static const std::set<std::pair<A, A>> pairs{
      {A::kUserOutput, A::kImmutableOutput},      {A::kImmutableOutput, A::kContinuousInput},
      {A::kUserInput, A::kContinuousInput},       {A::kUserOutput, A::kContinuousInput},
      {A::kContinuousInput, A::kContinuousInput},
  };
  return pairs.contains({a, b}) || pairs.contains({b, a});
}

std::vector<Anchor> AnchorsOf(const MemoryGraph& graph, const std::vector<std::string>& values) {
  static const char kGraphOutputs = 0;
  std::vector<Anchor> anchors;
  for (const std::string& value : values) {
    const Definition& definition = graph.DefinitionOf(value);
    switch (definition.kind) {
      case Definition::Kind::kGraphInput:
        anchors.push_back({graph.TopLevel() ? A::kUserInput : A::kNormalOutput, &value});
        break;
      case Definition::Kind::kInitializer:
        anchors.push_back({A::kImmutableOutput, &value});
        break;
      case Definition::Kind::kNode: {
        const NodeProto& node = *definition.node;
        A attribute = A::kNormalOutput;
        if (ir::IsOnnxDomain(node.domain()) && node.op_type() == "Constant") attribute = A::kImmutableOutput;
        if (graph.AliasedInput(node, definition.index)) attribute = A::kReferenceOutput;
        anchors.push_back({attribute, &node});
        break;
      }
      default:
        break;
    }
    for (const Slot& slot : graph.Consumers(value)) {
      if (slot.IsGraphOutput()) {
        anchors.push_back({graph.TopLevel() ? A::kUserOutput : A::kNormalInput, &kGraphOutputs});
        continue;
      }
      const auto& continuous = graph.Traits(*slot.node).continuous_inputs;
      const bool contiguous = std::find(continuous.begin(), continuous.end(), slot.index) != continuous.end();
      anchors.push_back({contiguous ? A::kContinuousInput : A::kNormalInput, slot.node});
    }
  }
  return anchors;
}

}  // namespace

bool LayoutConflict(const MemoryGraph& graph, const std::vector<std::string>& values) {
  const std::vector<Anchor> anchors = AnchorsOf(graph, values);
  for (std::size_t i = 0; i < anchors.size(); ++i)
    for (std::size_t j = i + 1; j < anchors.size(); ++j) {
      const Anchor& a = anchors[i];
      const Anchor& b = anchors[j];
      // Anchors of one node are skipped, except two contiguous slots: one
      // buffer cannot sit at two places of one block.
      const bool same_node = a.owner == b.owner;
      if (same_node && !(a.attribute == A::kContinuousInput && b.attribute == A::kContinuousInput)) continue;
      if (Conflicting(a.attribute, b.attribute)) return true;
    }
  return false;
}

}  // namespace onnxopt::core::memory
