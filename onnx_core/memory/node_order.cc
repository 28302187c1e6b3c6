#include "onnx_core/memory/node_order.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/memory/memory_graph.h"

namespace onnxopt::core::memory {

namespace {

std::string FirstOutputName(const NodeProto& node) {
  for (const std::string& output : node.output())
    if (!output.empty()) return output;
  return node.name();
}

using Positions = std::unordered_map<const NodeProto*, std::size_t>;

Positions PositionsOf(const std::vector<const NodeProto*>& order) {
  Positions positions;
  for (std::size_t i = 0; i < order.size(); ++i) positions[order[i]] = i;
  return positions;
}

// Nodes reachable from `start` through `next`, restricted to positions accepted
// by `keep`.
template <class Next, class Keep>
std::vector<const NodeProto*> Reachable(const NodeProto* start, Next&& next, Keep&& keep) {
  std::vector<const NodeProto*> found{start};
  std::unordered_set<const NodeProto*> seen{start};
  for (std::size_t i = 0; i < found.size(); ++i)
    for (const NodeProto* node : next(found[i]))
      if (keep(node) && seen.insert(node).second) found.push_back(node);
  return found;
}

}  // namespace

std::vector<const NodeProto*> NodeOrder::CurrentOrder() const {
  std::vector<const NodeProto*> order;
  for (const NodeProto& node : graph_.Nodes()) order.push_back(&node);
  return order;
}

void NodeOrder::SetOrder(const std::vector<const NodeProto*>& order) {
  auto& nodes = graph_.Nodes();
  std::vector<NodeProto*> owned(static_cast<std::size_t>(nodes.size()));
  std::unordered_map<const NodeProto*, NodeProto*> mutable_of;
  for (int i = 0; i < nodes.size(); ++i) mutable_of[&nodes.Get(i)] = nodes.Mutable(i);
  if (order.size() != owned.size()) throw Error("internal error: a reordering lost nodes");
  const std::vector<const NodeProto*> before = CurrentOrder();
  // Moving pointers out and back keeps every NodeProto where it is in memory.
  nodes.ExtractSubrange(0, nodes.size(), owned.data());
  if (order != before) ++reorderings_;
  for (std::size_t i = 0; i < order.size(); ++i) {
    nodes.AddAllocated(mutable_of.at(order[i]));
    if (before[i] != order[i]) moved_.insert(order[i]);
  }
}

bool NodeOrder::WouldCycle(const MemoryGraph& memory, const NodeProto* from, const NodeProto* to) const {
  if (from == to) return true;
  const Positions positions = PositionsOf(CurrentOrder());
  const std::size_t limit = positions.at(from);
  if (positions.at(to) > limit) return false;  // `to` comes after `from`: no path back
  auto next = [&](const NodeProto* node) {
    std::vector<const NodeProto*> result = memory.DataSuccessors(*node);
    for (const NodeProto* after : ConstraintSuccessors(node)) result.push_back(after);
    return result;
  };
  const auto reached = Reachable(to, next, [&](const NodeProto* node) { return positions.at(node) <= limit; });
  return std::find(reached.begin(), reached.end(), from) != reached.end();
}

bool NodeOrder::Land(const MemoryGraph& memory, const NodeProto* before, const NodeProto* after) {
  if (HasConstraint(before, after)) return true;
  if (before == after) return false;
  std::vector<const NodeProto*> order = CurrentOrder();
  const Positions positions = PositionsOf(order);
  const std::size_t lower = positions.at(after), upper = positions.at(before);
  if (lower > upper) {
    constraints_.insert({before, after});
    return true;
  }
  auto forward = [&](const NodeProto* node) {
    std::vector<const NodeProto*> result = memory.DataSuccessors(*node);
    for (const NodeProto* next : ConstraintSuccessors(node)) result.push_back(next);
    return result;
  };
  auto backward = [&](const NodeProto* node) {
    std::vector<const NodeProto*> result = memory.DataPredecessors(*node);
    for (const NodeProto* previous : ConstraintPredecessors(node)) result.push_back(previous);
    return result;
  };
  std::vector<const NodeProto*> reached_forward =
      Reachable(after, forward, [&](const NodeProto* node) { return positions.at(node) <= upper; });
  if (std::find(reached_forward.begin(), reached_forward.end(), before) != reached_forward.end()) return false;
  std::vector<const NodeProto*> reached_backward =
      Reachable(before, backward, [&](const NodeProto* node) { return positions.at(node) >= lower; });
  auto by_position = [&](const NodeProto* a, const NodeProto* b) { return positions.at(a) < positions.at(b); };
  std::sort(reached_forward.begin(), reached_forward.end(), by_position);
  std::sort(reached_backward.begin(), reached_backward.end(), by_position);
  std::vector<std::size_t> pool;
  for (const NodeProto* node : reached_backward) pool.push_back(positions.at(node));
  for (const NodeProto* node : reached_forward) pool.push_back(positions.at(node));
  std::sort(pool.begin(), pool.end());
  std::size_t next = 0;
  for (const NodeProto* node : reached_backward) order[pool[next++]] = node;
  for (const NodeProto* node : reached_forward) order[pool[next++]] = node;
  SetOrder(order);
  constraints_.insert({before, after});
  return true;
}

std::vector<const NodeProto*> NodeOrder::ConstraintPredecessors(const NodeProto* node) const {
  std::vector<const NodeProto*> result;
  for (const auto& [before, after] : constraints_)
    if (after == node) result.push_back(before);
  return result;
}

std::vector<const NodeProto*> NodeOrder::ConstraintSuccessors(const NodeProto* node) const {
  std::vector<const NodeProto*> result;
  for (const auto& [before, after] : constraints_)
    if (before == node) result.push_back(after);
  return result;
}

void NodeOrder::Forget(const NodeProto* node) {
  std::erase_if(constraints_, [&](const Constraint& c) { return c.first == node || c.second == node; });
}

void NodeOrder::Erase(const NodeProto* node, std::size_t hint) {
  Forget(node);
  moved_.erase(node);
  auto& nodes = graph_.Nodes();
  if (hint < static_cast<std::size_t>(nodes.size()) && &nodes.Get(static_cast<int>(hint)) == node) {
    nodes.DeleteSubrange(static_cast<int>(hint), 1);
    return;
  }
  for (int i = 0; i < nodes.size(); ++i)
    if (&nodes.Get(i) == node) {
      nodes.DeleteSubrange(i, 1);
      return;
    }
}

NodeOrder::Snapshot NodeOrder::Save() const { return {CurrentOrder(), constraints_, moved_}; }

void NodeOrder::Restore(const Snapshot& snapshot) {
  SetOrder(snapshot.order);
  constraints_ = snapshot.constraints;
  moved_ = snapshot.moved;
}

std::vector<std::pair<std::string, std::string>> NodeOrder::ConstraintNames() const {
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& [before, after] : constraints_)
    names.emplace_back(FirstOutputName(*before), FirstOutputName(*after));
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace onnxopt::core::memory
