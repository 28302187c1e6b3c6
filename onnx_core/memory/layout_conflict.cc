#include "onnx_core/memory/layout_conflict.h"

#include <algorithm>
#include <array>
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
constexpr std::pair<A, A> kConflictingPairs[] = {
    {A::kUserOutput, A::kImmutableOutput},      {A::kImmutableOutput, A::kContinuousInput},
    {A::kUserInput, A::kContinuousInput},       {A::kUserOutput, A::kContinuousInput},
    {A::kContinuousInput, A::kContinuousInput},
};

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
  // Two anchors conflict when their attributes form a registered pair and they belong to
  // two nodes; two contiguous slots conflict even on one node (one buffer cannot sit at
  // two places of one block). Counted per attribute rather than tested pair by pair: a
  // value read by n nodes has n anchors, and copies of it were checked in n^2 each.
  struct Owners {
    std::size_t anchors = 0;
    const void* first = nullptr;
    bool several = false;  // at least two distinct owners
  };
  std::array<Owners, static_cast<std::size_t>(A::kContinuousInput) + 1> by_attribute{};
  for (const Anchor& anchor : AnchorsOf(graph, values)) {
    Owners& owners = by_attribute[static_cast<std::size_t>(anchor.attribute)];
    if (owners.anchors++ == 0)
      owners.first = anchor.owner;
    else if (anchor.owner != owners.first)
      owners.several = true;
  }
  for (const auto& [a, b] : kConflictingPairs) {
    const Owners& first = by_attribute[static_cast<std::size_t>(a)];
    const Owners& second = by_attribute[static_cast<std::size_t>(b)];
    if (a == b) {
      if (first.anchors >= 2) return true;
      continue;
    }
    if (first.anchors == 0 || second.anchors == 0) continue;
    if (first.several || second.several || first.first != second.first) return true;
  }
  return false;
}

}  // namespace onnxopt::core::memory
