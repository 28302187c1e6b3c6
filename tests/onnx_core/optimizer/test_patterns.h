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

/// Max(x, ...) => Identity(x): drops the other inputs, whose producers and initializers
/// may then be left unused.
class MaxTakesFirstPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "MaxTakesFirstPattern";
  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Max"}; }
  MatchResult Match(GraphGraph&, const NodeProto& node) const override { return Matched({&node}); }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph&, const std::vector<const NodeProto*>& nodes) const override {
    core::builder::ExpectMatchedNodes(*this, nodes, {"Max"});
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& identity = *result.Add();
    identity.set_op_type("Identity");
    identity.add_input(nodes[0]->input(0));
    identity.add_output(nodes[0]->output(0));
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

/// Neg(Abs(x)) => intermediate.NegAbs(x), a call of the model-local function
///   NegAbs (X) => (Y) { A = Abs(X)  Y = Neg(A) }   (opset_import: the model's main opset)
/// added to the model on first use (GraphGraph::GetOrAddFunction). With
/// `unique_body_names`, every Apply names the body's intermediate value anew: a second
/// match asks for the same (domain, name) with another body, a contract violation.
class NegAbsFunctionPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "NegAbsFunctionPattern";
  static constexpr core::builder::NumericalClass kNumerics = core::builder::NumericalClass::kExact;
  explicit NegAbsFunctionPattern(bool unique_body_names = false) : unique_body_names_(unique_body_names) {}
  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Neg"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override {
    const NodeProto* abs = core::builder::ProducerOf(graph, node.input(0), "Abs");
    if (!abs) return NoMatch(node, "the input is not produced by Abs");
    if (graph.IsUsedMoreThanOnce(abs->output(0))) return NoMatch(node, "the Abs has other readers");
    return Matched({abs, &node});
  }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override {
    core::builder::ExpectMatchedNodes(*this, nodes, {"Abs", "Neg"});
    const std::string intermediate = unique_body_names_ ? graph.Builder().UniqueName("A") : "A";
    const FunctionProto& function =
        graph.GetOrAddFunction(Body(graph.Builder().OpsetVersion("").value_or(18), intermediate));
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& call = *result.Add();
    // (One append at a time: GCC 12 warns, wrongly, about a chain of + here.)
    std::string name(kName);
    name.append("--").append(nodes[1]->name());
    call.set_name(name);
    call.set_domain(function.domain());
    call.set_op_type(function.name());
    call.add_input(nodes[0]->input(0));
    call.add_output(nodes[1]->output(0));
    return result;
  }

  static FunctionProto Body(std::int64_t opset, const std::string& intermediate = "A") {
    FunctionProto function;
    function.set_domain("intermediate");
    function.set_name("NegAbs");
    function.add_input("X");
    function.add_output("Y");
    OperatorSetIdProto& import = *function.add_opset_import();
    import.set_domain("");
    import.set_version(opset);
    NodeProto& abs = *function.add_node();
    abs.set_op_type("Abs");
    abs.add_input("X");
    abs.add_output(intermediate);
    NodeProto& neg = *function.add_node();
    neg.set_op_type("Neg");
    neg.add_input(intermediate);
    neg.add_output("Y");
    return function;
  }

 private:
  bool unique_body_names_;
};

/// Add(y, Neg(x)) => Sub(y, x): removes the Neg, whose value no longer exists.
class AddNegToSubPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "AddNegToSubPattern";
  static constexpr core::builder::NumericalClass kNumerics = core::builder::NumericalClass::kExact;
  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Add"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override {
    const NodeProto* neg = core::builder::ProducerOf(graph, node.input(1), "Neg");
    if (!neg) return NoMatch(node, "the second input is not produced by Neg");
    if (graph.IsUsedMoreThanOnce(neg->output(0))) return NoMatch(node, "the Neg has other readers");
    return Matched({neg, &node});
  }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph&, const std::vector<const NodeProto*>& nodes) const override {
    core::builder::ExpectMatchedNodes(*this, nodes, {"Neg", "Add"});
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& sub = *result.Add();
    sub.set_op_type("Sub");
    sub.add_input(nodes[1]->input(0));
    sub.add_input(nodes[0]->input(0));
    sub.add_output(nodes[1]->output(0));
    return result;
  }
};

/// Mul(Add(a, b), c) => Add(Mul(a, c), Mul(b, c)): matches the Mul alone and reads the
/// Add's inputs, values produced outside its match (the Add stays while others read it).
class DistributeMulPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "DistributeMulPattern";
  static constexpr core::builder::NumericalClass kNumerics = core::builder::NumericalClass::kRounding;
  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Mul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override {
    if (!core::builder::ProducerOf(graph, node.input(0), "Add")) return NoMatch(node, "the first input is not an Add");
    return Matched({&node});
  }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override {
    core::builder::ExpectMatchedNodes(*this, nodes, {"Mul"});
    const NodeProto& mul = *nodes[0];
    const NodeProto& add = *core::builder::ProducerOf(graph, mul.input(0), "Add");
    utils::RepeatedProtoField<NodeProto> result;
    std::vector<std::string> products;
    for (const std::string& term : add.input()) {
      NodeProto& product = *result.Add();
      product.set_op_type("Mul");
      product.add_input(term);
      product.add_input(mul.input(1));
      product.add_output(products.emplace_back(graph.Builder().UniqueName(kName)));
    }
    NodeProto& sum = *result.Add();
    sum.set_op_type("Add");
    sum.add_input(products[0]);
    sum.add_input(products[1]);
    sum.add_output(mul.output(0));
    return result;
  }
};

}  // namespace onnxopt::testing
