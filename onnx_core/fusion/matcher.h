#pragma once
// The matcher of declarative patterns: the normative semantics of
// shared/docs/declarative-fusion.md §7.2 (backward walk from the anchor, forward
// extension with backtracking for the other outputs, boundary checks).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/fusion/pattern_graph.h"
#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::builder {
class GraphGraph;
}

namespace onnxopt::fusion {

class PatternMatcherConfig {
 public:
  bool IsEnableConstValueMatch() const { return const_value_match_; }
  bool IsEnableIrAttrMatch() const { return ir_attr_match_; }

 private:
  friend class PatternMatcherConfigBuilder;
  bool const_value_match_ = false;
  bool ir_attr_match_ = false;
};

class PatternMatcherConfigBuilder {
 public:
  PatternMatcherConfigBuilder& EnableConstValueMatch() {
    config_.const_value_match_ = true;
    return *this;
  }
  PatternMatcherConfigBuilder& EnableIrAttrMatch() {
    config_.ir_attr_match_ = true;
    return *this;
  }
  PatternMatcherConfig Build() const { return config_; }

 private:
  PatternMatcherConfig config_;
};

// What a match binds: the target node of every pattern node and the target value of
// every pattern value (pointers into the graph's node fields: valid until the next batch).
struct Binding {
  std::vector<const NodeProto*> nodes;   // by pattern node; null: unbound
  std::vector<const std::string*> values;  // by pattern value id; null: unbound
};

// The target value of an absent input.
const std::string& AbsentValue();

// What a pattern constant binds to: an initializer of this graph that is not also a graph
// input (IR < 4 lets an input override it), or the output of a Constant node.
bool IsMaterializedConstant(const core::builder::GraphGraph& graph, std::string_view name);
// Its value (a Constant node's value* attribute normalized to a tensor); nullopt otherwise.
std::optional<TensorProto> MaterializedConstant(const core::builder::GraphGraph& graph, std::string_view name);

// Where a failed match stopped: in the backward walk from the anchor (which two matchers
// with SameWalk() repeat identically), or after it (forward extension, boundary, placement).
enum class MatchFailure { kNone, kWalk, kAfterWalk };

class PatternMatcher {
 public:
  PatternMatcher(Pattern pattern, PatternMatcherConfig config);
  const Pattern& GetPattern() const { return pattern_; }
  const PatternMatcherConfig& Config() const { return config_; }

  // The match anchored on `candidate`. On failure returns false and sets `why`: a literal
  // for topology failures, an interned message naming the value and the consumer for
  // boundary failures. On success `insert_at` is where the replacement goes.
  // `failure` (when given) tells where a failed match stopped.
  bool Match(const core::builder::GraphGraph& graph, const NodeProto& candidate, Binding& binding,
             std::string_view& why, const NodeProto*& insert_at, MatchFailure* failure = nullptr) const;

  // Whether the backward walk from the anchor is the same as `other`'s on every candidate:
  // the same nodes, values, anchor and options; only the declared outputs (and labels) may
  // differ. A candidate whose walk failed for one then fails for the other.
  bool SameWalk(const PatternMatcher& other) const;

  // The bindings of the matched nodes the driver hands back to Apply (`nodes[i]` bound to
  // pattern node TopologicalNodes()[i]); throws BuilderError when they do not fit.
  Binding Rebind(const std::vector<const NodeProto*>& nodes, std::string_view rule) const;

  // The matched nodes in the canonical order: by the pattern's topological order.
  std::vector<const NodeProto*> CanonicalNodes(const Binding& binding) const;

 private:
  struct State;
  bool NodeFits(State& state, int pattern_node, const NodeProto& target) const;
  bool Walk(State& state, int pattern_node, const NodeProto& target) const;
  // Walk once `target` is known to fit `pattern_node` (unbound, and bound to no other node).
  bool WalkFitted(State& state, int pattern_node, const NodeProto& target) const;
  bool BindValue(State& state, int value, const std::string& target) const;
  bool Extend(State& state) const;
  bool CheckBoundary(State& state) const;

  Pattern pattern_;
  PatternMatcherConfig config_;
  // Pattern readers of each value: (node, input slot), for the forward extension.
  std::vector<std::vector<std::pair<int, int>>> readers_;
};

}  // namespace onnxopt::fusion
