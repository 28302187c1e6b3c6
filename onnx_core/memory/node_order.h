#pragma once
// The schedule of one graph under ordering constraints (§7.4). ONNX has no
// control edges: the node list is the schedule, so a constraint `a -> b` is
// honoured by moving nodes. The order is kept topological under data edges +
// constraints by the minimal stable move of Pearce and Kelly (only the window
// between the two nodes is reordered).

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::builder {
class GraphBuilder;
}

namespace onnxopt::core::memory {

class MemoryGraph;

class NodeOrder {
 public:
  using Constraint = std::pair<const NodeProto*, const NodeProto*>;
  explicit NodeOrder(builder::GraphBuilder& graph) : graph_(graph) {}

  bool HasConstraint(const NodeProto* before, const NodeProto* after) const {
    return constraints_.contains({before, after});
  }
  // `to` reaches `from` through data edges of `memory` or constraints (or from
  // == to).
  bool WouldCycle(const MemoryGraph& memory, const NodeProto* from, const NodeProto* to) const;
  // Adds `before -> after` and moves nodes so that the order respects it; false
  // (the constraint not added, nothing moved) when it would close a cycle.
  bool Land(const MemoryGraph& memory, const NodeProto* before, const NodeProto* after);
  // Adds a constraint the current order already respects (or that the caller
  // vouches for).
  void AddOrdered(const NodeProto* before, const NodeProto* after) { constraints_.insert({before, after}); }

  std::vector<const NodeProto*> ConstraintPredecessors(const NodeProto* node) const;
  std::vector<const NodeProto*> ConstraintSuccessors(const NodeProto* node) const;
  // Drops every constraint involving `node`.
  void Forget(const NodeProto* node);
  // Removes `node` from the graph (constraints included). `hint`: where the node list
  // probably holds it (looked at first).
  void Erase(const NodeProto* node, std::size_t hint = 0);

  struct Snapshot {
    std::vector<const NodeProto*> order;
    std::set<Constraint> constraints;
    std::set<const NodeProto*> moved;
  };
  Snapshot Save() const;
  void Restore(const Snapshot& snapshot);

  // Nodes whose position changed (alive ones).
  const std::set<const NodeProto*>& Moved() const { return moved_; }
  // How many times nodes moved (Land, Restore): an analysis of the graph that saw no
  // move since it was built still has the node order (Erase keeps the others' order).
  std::uint64_t Reorderings() const { return reorderings_; }
  // The constraints by the first output name of each node, sorted.
  std::vector<std::pair<std::string, std::string>> ConstraintNames() const;

 private:
  std::vector<const NodeProto*> CurrentOrder() const;
  void SetOrder(const std::vector<const NodeProto*>& order);

  builder::GraphBuilder& graph_;
  std::set<Constraint> constraints_;
  std::set<const NodeProto*> moved_;
  std::uint64_t reorderings_ = 0;
};

}  // namespace onnxopt::core::memory
