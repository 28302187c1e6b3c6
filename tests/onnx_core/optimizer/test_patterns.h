#pragma once
// Small patterns for the engine's tests. They need no operator knowledge (no shape
// functions, no kernels), so the core can be tested without any extension library.

#include <memory>
#include <string>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::testing {

// Options whose registered-pattern selection is `selection` (e.g. None(): only the
// patterns given to the GraphGraph constructor run).
inline core::builder::OptimizerOptions SelectRegistered(core::builder::PatternSelection selection) {
  core::builder::OptimizerOptions options;
  options.registered = std::move(selection);
  return options;
}

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::PatternOptimization;

/// Neg(Neg(x)) => Identity(x).
class NegNegPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "NegNegPattern";
  static constexpr core::builder::NumericalClass kNumerics = core::builder::NumericalClass::kExact;
  explicit NegNegPattern(int priority = 1) : PatternOptimization(priority) {}
  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Neg"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override {
    const NodeProto* previous = core::builder::ProducerOf(graph, node.input(0), "Neg");
    if (!previous) return NoMatch(node, "the input is not produced by Neg");
    if (graph.IsUsedMoreThanOnce(previous->output(0))) return NoMatch(node, "the first Neg has other readers");
    return Matched({previous, &node});
  }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph&, const std::vector<const NodeProto*>& nodes) const override {
    core::builder::ExpectMatchedNodes(*this, nodes, {"Neg", "Neg"});
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& identity = *result.Add();
    identity.set_op_type("Identity");
    identity.add_input(nodes[0]->input(0));
    identity.add_output(nodes[1]->output(0));
    return result;
  }
};

/// Sub(a, b) => Add(a, Neg(b)): one match, two new nodes.
class SubToAddNegPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SubToAddNegPattern";
  static constexpr core::builder::NumericalClass kNumerics = core::builder::NumericalClass::kExact;
  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Sub"}; }
  MatchResult Match(GraphGraph&, const NodeProto& node) const override { return Matched({&node}); }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override {
    core::builder::ExpectMatchedNodes(*this, nodes, {"Sub"});
    const NodeProto& sub = *nodes[0];
    utils::RepeatedProtoField<NodeProto> result;
    const std::string negated = graph.Builder().UniqueName("negated");
    NodeProto& neg = *result.Add();
    neg.set_op_type("Neg");
    neg.add_input(sub.input(1));
    neg.add_output(negated);
    NodeProto& add = *result.Add();
    add.set_op_type("Add");
    add.add_input(sub.input(0));
    add.add_input(negated);
    add.add_output(sub.output(0));
    return result;
  }
};

/// Abs(x) => Abs(x): always matches its own output again (never converges).
class AbsForeverPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "AbsForeverPattern";
  static constexpr core::builder::NumericalClass kNumerics = core::builder::NumericalClass::kExact;
  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Abs"}; }
  MatchResult Match(GraphGraph&, const NodeProto& node) const override { return Matched({&node}); }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph&, const std::vector<const NodeProto*>& nodes) const override {
    utils::RepeatedProtoField<NodeProto> result;
    *result.Add() = *nodes[0];
    return result;
  }
};

/// Renames an op type (From => To, in another domain if given) at a given priority.
class RenameOpPattern final : public PatternOptimization {
 public:
  RenameOpPattern(std::string name, std::string from, std::string to, int priority, std::string to_domain = "")
      : PatternOptimization(priority),
        name_(std::move(name)),
        from_(std::move(from)),
        to_(std::move(to)),
        to_domain_(std::move(to_domain)) {}
  std::string Name() const override { return name_; }
  std::set<std::string> FastOpType() const override { return {from_}; }
  MatchResult Match(GraphGraph&, const NodeProto& node) const override { return Matched({&node}); }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph&, const std::vector<const NodeProto*>& nodes) const override {
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& node = *result.Add() = *nodes[0];
    node.set_op_type(to_);
    node.set_domain(to_domain_);
    return result;
  }

 private:
  std::string name_, from_, to_, to_domain_;
};

}  // namespace onnxopt::testing
