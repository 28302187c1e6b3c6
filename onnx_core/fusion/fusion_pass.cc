#include "onnx_core/fusion/fusion_pass.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <typeinfo>
#include <stdexcept>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/report.h"
#include "onnx_core/shapes/inference.h"
#include "onnx_core/shapes/shape_registry.h"

namespace onnxopt::fusion {

using core::builder::GraphGraph;

namespace {

std::string Quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::int64_t Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

core::builder::OptimizationStage ToOptimizationStage(PassStage stage) {
  switch (stage) {
    case PassStage::kBeforeShapeInference: return core::builder::OptimizationStage::kBeforeShapeInference;
    case PassStage::kAfterShapeInference: return core::builder::OptimizationStage::kMain;
    case PassStage::kAfterBuiltinPatterns: return core::builder::OptimizationStage::kAfterPatterns;
    case PassStage::kAfterOptimization: return core::builder::OptimizationStage::kFinal;
  }
  return core::builder::OptimizationStage::kMain;
}

std::string_view PassStageName(PassStage stage) {
  switch (stage) {
    case PassStage::kBeforeShapeInference: return "BEFORE_SHAPE_INFERENCE";
    case PassStage::kAfterShapeInference: return "AFTER_SHAPE_INFERENCE";
    case PassStage::kAfterBuiltinPatterns: return "AFTER_BUILTIN_PATTERNS";
    case PassStage::kAfterOptimization: return "AFTER_OPTIMIZATION";
  }
  return "?";
}

std::int64_t PassContext::Opset(std::string_view domain) const {
  return graph_.Builder().OpsetVersion(domain).value_or(0);
}

// --- MatchResult ---------------------------------------------------------------------

MatchResult::MatchResult(const PatternMatcher& matcher, const Binding& binding, GraphGraph& graph,
                         std::string_view rule)
    : matcher_(matcher), binding_(binding), graph_(graph), rule_(rule) {}

std::string_view MatchResult::PatternName() const { return GetPattern().Name(); }

const NodeProto& MatchResult::Node(std::string_view label) const {
  const Sketch& sketch = GetPattern().Graph();
  for (std::size_t n = 0; n < sketch.nodes.size(); ++n)
    if (sketch.nodes[n].label == label) return *binding_.nodes[n];
  throw std::out_of_range(std::string(rule_) + ": no pattern node is labelled " + Quoted(label));
}

std::vector<const NodeProto*> MatchResult::MatchedNodes() const {
  std::vector<const NodeProto*> nodes(binding_.nodes.begin(), binding_.nodes.end());
  std::sort(nodes.begin(), nodes.end(),
            [&](const NodeProto* a, const NodeProto* b) { return graph_.Position(*a) < graph_.Position(*b); });
  return nodes;
}

const std::string& MatchResult::Input(std::size_t i) const {
  const Sketch& sketch = GetPattern().Graph();
  for (std::size_t id = 0; id < sketch.values.size(); ++id)
    if (sketch.values[id].kind == Sketch::Kind::kPlaceholder && sketch.values[id].index == static_cast<int>(i))
      return *binding_.values[id];
  throw std::out_of_range(std::string(rule_) + ": the pattern has " + std::to_string(GetPattern().NumInputs()) +
                          " inputs, input " + std::to_string(i) + " was asked");
}

const std::string& MatchResult::Output(std::size_t j) const {
  if (j >= GetPattern().NumOutputs())
    throw std::out_of_range(std::string(rule_) + ": the pattern has " + std::to_string(GetPattern().NumOutputs()) +
                            " outputs, output " + std::to_string(j) + " was asked");
  return *binding_.values[GetPattern().Outputs()[j]];
}

const std::string& MatchResult::Captured(std::size_t i) const {
  const auto& captures = GetPattern().Captures();
  if (i >= captures.size())
    throw std::out_of_range(std::string(rule_) + ": the pattern has " + std::to_string(captures.size()) +
                            " captures, capture " + std::to_string(i) + " was asked");
  return *binding_.values[captures[i].value];
}

const std::string& MatchResult::Captured(std::string_view name) const {
  const auto& captures = GetPattern().Captures();
  for (std::size_t i = 0; i < captures.size(); ++i)
    if (captures[i].name == name) return Captured(i);
  throw std::out_of_range(std::string(rule_) + ": no capture is named " + Quoted(name));
}

const std::string& MatchResult::ConstantName(std::string_view label) const {
  const Sketch& sketch = GetPattern().Graph();
  for (std::size_t id = 0; id < sketch.values.size(); ++id)
    if (sketch.values[id].kind == Sketch::Kind::kConstant && sketch.values[id].label == label)
      return *binding_.values[id];
  throw std::out_of_range(std::string(rule_) + ": no pattern constant is labelled " + Quoted(label));
}

const TensorProto& MatchResult::ConstantValue(std::string_view label) const {
  const std::string& name = ConstantName(label);
  auto it = constants_.find(name);
  if (it == constants_.end()) {
    std::optional<TensorProto> value = MaterializedConstant(graph_, name);
    if (!value) throw BuilderError(std::string(rule_) + ": the value of constant " + Quoted(name) + " is not available");
    it = constants_.emplace(name, std::move(*value)).first;
  }
  return it->second;
}

std::string MatchResult::ToString() const {
  const Sketch& sketch = GetPattern().Graph();
  std::string text = std::string(rule_) + ":";
  for (int n : GetPattern().TopologicalNodes()) {
    const NodeProto& node = *binding_.nodes[n];
    text += " " + sketch.nodes[n].key.ToString() + " -> " + Quoted(node.name().empty() ? node.output(0) : node.name());
  }
  return text;
}

// --- ReplacementBuilder --------------------------------------------------------------

ReplacementBuilder::ReplacementBuilder(std::string rule, std::vector<bool> present)
    : SketchBuilder(std::move(rule)), present_(std::move(present)) {
  for (std::size_t i = 0; i < present_.size(); ++i)
    inputs_.emplace_back(sketch_, sketch_->AddValue(Sketch::Value{Sketch::Kind::kPlaceholder, static_cast<int>(i), 0,
                                                                  {}, {}}));
  sketch_->num_placeholders = static_cast<int>(present_.size());
}

ValueRef ReplacementBuilder::Input(std::size_t i) const {
  if (i >= inputs_.size())
    throw BuilderError(sketch_->name + ": the replacement uses input " + std::to_string(i) + " but the match has " +
                       std::to_string(inputs_.size()) + " inputs");
  return inputs_[i];
}

ValueRef ReplacementBuilder::Existing(const MatchResult& match, std::string_view constant_label) {
  return ValueRef(sketch_, sketch_->AddValue(Sketch::Value{Sketch::Kind::kExisting, -1, 0, {},
                                                           match.ConstantName(constant_label)}));
}

ReplacementGraph ReplacementBuilder::Build(std::vector<ValueRef> outputs) {
  std::vector<int> ids;
  for (const ValueRef& output : outputs) {
    const int id = Own(output);
    if (sketch_->values[id].kind == Sketch::Kind::kAbsent)
      throw BuilderError(sketch_->name + ": a replacement output cannot be an absent input");
    ids.push_back(id);
  }
  return ReplacementGraph(std::make_shared<Sketch>(*sketch_), std::move(ids));
}

// --- Emitting a replacement ----------------------------------------------------------

namespace {

// Throws unless a replacement output keeps the element type and the shape of the output it
// replaces, as far as both are known (type 0 or a null shape: unknown, accepted). Shapes
// differ when their ranks do, or two dims that cannot be equal (3 and 2; not `n` and 3,
// which may be equal at run time).
void CheckOutputType(std::string_view rule, std::size_t j, int original, int replaced, const std::string& name,
                     const core::shapes::SymShape* original_shape = nullptr,
                     const core::shapes::SymShape* replaced_shape = nullptr) {
  if (original != 0 && replaced != 0 && original != replaced)
    throw BuilderError(std::string(rule) + ": replacement output " + std::to_string(j) + " has element type " +
                       std::to_string(replaced) + " where the match produced " + std::to_string(original) + " ('" +
                       name + "')");
  if (!original_shape || !replaced_shape || !original_shape->HasRank() || !replaced_shape->HasRank()) return;
  bool differ = original_shape->Rank() != replaced_shape->Rank();
  for (std::size_t k = 0; !differ && k < original_shape->Rank(); ++k)
    differ = core::shapes::SymDim::ProvablyDifferent((*original_shape)[k], (*replaced_shape)[k]);
  if (differ)
    throw BuilderError(std::string(rule) + ": replacement output " + std::to_string(j) + " has shape " +
                       replaced_shape->ToString() + " where the match produced " + original_shape->ToString() +
                       " ('" + name + "')");
}

// The known shape of `value` in `graph`, or null.
const core::shapes::SymShape* ShapeOf(const GraphGraph& graph, std::string_view value) {
  const core::shapes::SymTensor* tensor = graph.Builder().GetShape(value);
  return tensor && tensor->kind == core::shapes::SymTensor::Kind::kTensor ? &tensor->shape : nullptr;
}

// The element types of the matched outputs that new nodes compute (named after them), as
// inferred on a scratch context: the graph's own inference is not touched (the driver
// infers the batch once it is applied), but a replacement that changes an output's element
// type is refused before anything is applied. Nothing is checked before shape inference.
void CheckComputedOutputTypes(const GraphGraph& graph, std::string_view rule,
                              const utils::RepeatedProtoField<NodeProto>& nodes,
                              const std::vector<std::string>& outputs) {
  const core::builder::GraphBuilder& builder = graph.Builder();
  if (!builder.Shapes()) return;
  std::set<std::string_view> produced;
  for (const NodeProto& node : nodes)
    for (const std::string& output : node.output()) produced.insert(output);
  if (std::none_of(outputs.begin(), outputs.end(),
                   [&](const std::string& o) { return produced.contains(o) && graph.GetType(o) != 0; }))
    return;
  core::shapes::ShapesContext scratch;
  for (const NodeProto& node : nodes)
    for (const std::string& input : node.input()) {
      if (input.empty() || produced.contains(input) || scratch.Find(input)) continue;
      if (const TensorProto* init = builder.Initializer(input); init && !builder.Shapes()->Find(input)) {
        core::shapes::InferInitializer(*init, scratch);  // added by this replacement
        continue;
      }
      if (const core::shapes::SymTensor* value = builder.GetShape(input)) scratch.Set(input, *value);
      if (auto constant = builder.Shapes()->FindConstantShared(input)) scratch.SetConstant(input, std::move(constant));
    }
  ModelProto model;  // what inference reads of the model: its opset imports
  *model.mutable_opset_import() = builder.OpsetImports();
  std::vector<const NodeProto*> order;
  for (const NodeProto& node : nodes) order.push_back(&node);
  try {
    core::shapes::InferNodes(model, order, scratch);
  } catch (const core::shapes::InvalidNodeError& error) {
    throw BuilderError(std::string(rule) + ": the replacement builds an invalid node: " + error.what());
  }
  for (std::size_t j = 0; j < outputs.size(); ++j) {
    if (!produced.contains(outputs[j])) continue;
    const int original = graph.GetType(outputs[j]);
    const core::shapes::SymTensor* inferred = scratch.Find(outputs[j]);
    const bool tensor = inferred && inferred->kind == core::shapes::SymTensor::Kind::kTensor;
    CheckOutputType(rule, j, original, inferred ? inferred->elem_type : 0, outputs[j], ShapeOf(graph, outputs[j]),
                    tensor ? &inferred->shape : nullptr);
  }
}

}  // namespace

utils::RepeatedProtoField<NodeProto> EmitReplacement(GraphGraph& graph, std::string_view rule,
                                                     const ReplacementGraph& replacement,
                                                     const std::vector<std::string>& inputs,
                                                     const std::vector<std::string>& outputs) {
  const Sketch& sketch = replacement.Graph();
  if (replacement.Outputs().size() != outputs.size())
    throw BuilderError(std::string(rule) + ": the replacement has " + std::to_string(replacement.Outputs().size()) +
                       " outputs, the match has " + std::to_string(outputs.size()));
  if (static_cast<std::size_t>(sketch.num_placeholders) != inputs.size())
    throw BuilderError(std::string(rule) + ": the replacement has " + std::to_string(sketch.num_placeholders) +
                       " inputs, the match has " + std::to_string(inputs.size()));
  // Outputs that are existing values (passthroughs, constants) are checked before anything
  // is added to the graph: they must exist and have the element type of the value they
  // replace, when both are known. Outputs computed by new nodes are checked once the nodes
  // are built (CheckComputedOutputTypes).
  for (std::size_t j = 0; j < replacement.Outputs().size(); ++j) {
    const Sketch::Value& v = sketch.values[replacement.Outputs()[j]];
    std::string_view existing;
    if (v.kind == Sketch::Kind::kPlaceholder) existing = inputs[v.index];
    if (v.kind == Sketch::Kind::kExisting) existing = v.label;
    if (v.kind == Sketch::Kind::kPlaceholder && existing.empty())
      throw BuilderError(std::string(rule) + ": replacement output " + std::to_string(j) + " is an absent input");
    const int original = graph.GetType(outputs[j]);
    const int replaced = v.kind == Sketch::Kind::kConstant ? v.tensor->data_type()
                         : existing.empty()                ? 0
                                                           : graph.GetType(existing);
    std::optional<core::shapes::SymShape> constant_shape;
    if (v.kind == Sketch::Kind::kConstant)
      constant_shape = core::shapes::SymShape(std::vector<core::shapes::SymDim>(v.tensor->dims().begin(), v.tensor->dims().end()));
    const core::shapes::SymShape* replaced_shape =
        constant_shape ? &*constant_shape : existing.empty() ? nullptr : ShapeOf(graph, existing);
    CheckOutputType(rule, j, original, replaced, outputs[j], ShapeOf(graph, outputs[j]), replaced_shape);
  }
  core::builder::GraphBuilder& builder = graph.Builder();
  utils::RepeatedProtoField<NodeProto> nodes;
  std::vector<std::string> names(sketch.values.size());
  std::vector<bool> named(sketch.values.size(), false);
  // A node output that is replacement output j takes the name of the match's output j
  // (its producer goes away in the same rewrite); the first such claim wins.
  // An empty output (an optional output the matched node leaves out) is not produced.
  for (std::size_t j = 0; j < outputs.size(); ++j) {
    const int id = replacement.Outputs()[j];
    if (!outputs[j].empty() && sketch.values[id].kind == Sketch::Kind::kNodeOutput && !named[id]) {
      names[id] = outputs[j];
      named[id] = true;
    }
  }
  for (std::size_t id = 0; id < sketch.values.size(); ++id) {
    const Sketch::Value& v = sketch.values[id];
    if (named[id]) continue;
    switch (v.kind) {
      case Sketch::Kind::kPlaceholder: names[id] = inputs[v.index]; break;
      case Sketch::Kind::kAbsent: names[id].clear(); break;
      case Sketch::Kind::kExisting: names[id] = v.label; break;
      // An initializer the driver records with this rewrite (added_initializers).
      case Sketch::Kind::kConstant: names[id] = graph.MakeInitializer(rule, *v.tensor); break;
      case Sketch::Kind::kNodeOutput: names[id] = builder.UniqueName(rule); break;
    }
  }
  // Builder order is topological: an op's inputs exist before it.
  for (const Sketch::Node& node : sketch.nodes) {
    NodeProto& emitted = *nodes.Add();
    emitted.set_op_type(node.key.op_type);
    if (!core::ir::IsOnnxDomain(node.key.domain)) emitted.set_domain(node.key.domain);
    emitted.set_name(builder.UniqueName(rule));
    for (int input : node.inputs) emitted.add_input(names[input]);
    while (emitted.input_size() > 0 && emitted.input(emitted.input_size() - 1).empty())
      emitted.mutable_input()->RemoveLast();
    for (int output : node.outputs) emitted.add_output(names[output]);
    for (const AttributeProto& attribute : node.attributes) *emitted.add_attribute() = attribute;
  }
  CheckComputedOutputTypes(graph, rule, nodes, outputs);
  // Outputs that are not a node output of their own: a copy under the output's name.
  for (std::size_t j = 0; j < outputs.size(); ++j) {
    const int id = replacement.Outputs()[j];
    if (outputs[j].empty() || names[id] == outputs[j]) continue;
    NodeProto& copy = *nodes.Add();
    copy.set_op_type("Identity");
    copy.set_name(builder.UniqueName(rule));
    copy.add_input(names[id]);
    copy.add_output(outputs[j]);
  }
  return nodes;
}

// --- CompiledRule --------------------------------------------------------------------

CallbackStats CompiledRule::Callbacks() const {
  return CallbackStats{topological_matches_.load(), boundary_rejections_.load(), requirement_rejections_.load(),
                       replacements_.load(), callback_time_ns_.load()};
}

void CompiledRule::CountRequirements(std::int64_t time_ns, bool accepted) const {
  ++topological_matches_;
  if (!accepted) ++requirement_rejections_;
  callback_time_ns_ += time_ns;
}

void CompiledRule::CountReplacement(std::int64_t time_ns) const {
  ++replacements_;
  callback_time_ns_ += time_ns;
}

void CompiledRule::CountBoundaryRejection() const { ++boundary_rejections_; }

// --- DeclarativePattern --------------------------------------------------------------

DeclarativePattern::DeclarativePattern(std::shared_ptr<const PatternFusionPass> pass, std::string pass_name,
                                       Pattern pattern, PassStage stage, int priority)
    : CompiledRule(pass_name + "/" + pattern.Name(), pass_name, stage, priority),
      pass_(std::move(pass)),
      matcher_(std::move(pattern), pass_->Config()) {}

std::set<std::string> DeclarativePattern::FastOpType() const { return {matcher_.GetPattern().Anchor().op_type}; }

core::builder::MatchResult DeclarativePattern::Match(GraphGraph& graph, const NodeProto& candidate) const {
  MatchFailure failure = MatchFailure::kNone;
  return Match(graph, candidate, failure);
}

core::builder::MatchResult DeclarativePattern::Match(GraphGraph& graph, const NodeProto& candidate,
                                                     MatchFailure& failure) const {
  Binding binding;
  std::string_view why;
  const NodeProto* insert_at = nullptr;
  if (!matcher_.Match(graph, candidate, binding, why, insert_at, &failure)) {
    if (failure == MatchFailure::kAfterWalk) CountBoundaryRejection();
    return NoMatch(candidate, why);
  }
  MatchResult view(matcher_, binding, graph, name_);
  PassContext context(graph, stage_, pass_name_);
  failure = MatchFailure::kAfterWalk;
  const auto start = std::chrono::steady_clock::now();
  const bool accepted = pass_->MeetRequirements(view, context);
  CountRequirements(Since(start), accepted);
  if (!accepted) return NoMatch(candidate, "MeetRequirements rejected the match");
  failure = MatchFailure::kNone;
  return Matched(matcher_.CanonicalNodes(binding), insert_at);
}

utils::RepeatedProtoField<NodeProto> DeclarativePattern::Apply(GraphGraph& graph,
                                                               const std::vector<const NodeProto*>& nodes) const {
  const Binding binding = matcher_.Rebind(nodes, name_);
  const Pattern& pattern = matcher_.GetPattern();
  MatchResult view(matcher_, binding, graph, name_);
  PassContext context(graph, stage_, pass_name_);
  ReplacementBuilder builder(name_, std::vector<bool>(pattern.NumInputs(), true));
  const auto start = std::chrono::steady_clock::now();
  const ReplacementGraph replacement = pass_->Replacement(view, builder, context);
  CountReplacement(Since(start));
  std::vector<std::string> inputs, outputs;
  for (std::size_t i = 0; i < pattern.NumInputs(); ++i) inputs.push_back(view.Input(i));
  for (std::size_t j = 0; j < pattern.NumOutputs(); ++j) outputs.push_back(view.Output(j));
  return EmitReplacement(graph, name_, replacement, inputs, outputs);
}

// --- DeclarativePatternGroup ---------------------------------------------------------

namespace {

std::string GroupName(const std::string& pass_name,
                      const std::vector<std::shared_ptr<const DeclarativePattern>>& alternatives) {
  std::string name = pass_name + "/";
  for (std::size_t i = 0; i < alternatives.size(); ++i)
    name += (i ? "|" : "") + alternatives[i]->Matcher().GetPattern().Name();
  return name;
}

}  // namespace

DeclarativePatternGroup::DeclarativePatternGroup(std::string pass_name,
                                                 std::vector<std::shared_ptr<const DeclarativePattern>> alternatives,
                                                 PassStage stage, int priority)
    : CompiledRule(GroupName(pass_name, alternatives), pass_name, stage, priority) {
  for (auto& alternative : alternatives) {
    const int index = static_cast<int>(declarative_.size());
    walk_twin_.push_back(-1);
    for (int earlier = 0; earlier < index && walk_twin_.back() < 0; ++earlier)
      if (declarative_[earlier]->Matcher().SameWalk(alternative->Matcher())) walk_twin_.back() = earlier;
    declarative_.push_back(alternative.get());
    alternatives_.push_back(std::move(alternative));
  }
}

std::set<std::string> DeclarativePatternGroup::FastOpType() const { return declarative_.front()->FastOpType(); }

core::builder::MatchResult DeclarativePatternGroup::Match(GraphGraph& graph, const NodeProto& candidate) const {
  // Alternatives beyond 64 are tried without the shortcut.
  std::uint64_t walk_failed = 0;
  MatchFailure failure = MatchFailure::kNone;
  core::builder::MatchResult reported = declarative_.front()->Match(graph, candidate, failure);
  if (reported) return reported;
  // The reason reported is that of the first alternative that got past the walk (its
  // topology matched: the boundary or the requirements refused it), else the first one's.
  bool reported_after_walk = failure == MatchFailure::kAfterWalk;
  if (failure == MatchFailure::kWalk) walk_failed |= 1;
  for (std::size_t i = 1; i < declarative_.size(); ++i) {
    const int twin = walk_twin_[i];
    if (twin >= 0 && twin < 64 && (walk_failed >> twin & 1)) {
      if (i < 64) walk_failed |= std::uint64_t{1} << i;
      continue;
    }
    core::builder::MatchResult match = declarative_[i]->Match(graph, candidate, failure);
    if (match) return match;
    if (failure == MatchFailure::kWalk && i < 64) walk_failed |= std::uint64_t{1} << i;
    if (failure == MatchFailure::kAfterWalk && !reported_after_walk) {
      reported = std::move(match);
      reported_after_walk = true;
    }
  }
  return reported;
}

utils::RepeatedProtoField<NodeProto> DeclarativePatternGroup::Apply(GraphGraph&,
                                                                    const std::vector<const NodeProto*>&) const {
  throw BuilderError(name_ + ": Apply is called on the alternative that matched, not on the group");
}

CallbackStats DeclarativePatternGroup::Callbacks() const {
  CallbackStats sum;
  for (const DeclarativePattern* alternative : declarative_) {
    const CallbackStats stats = alternative->Callbacks();
    sum.topological_matches += stats.topological_matches;
    sum.boundary_rejections += stats.boundary_rejections;
    sum.requirement_rejections += stats.requirement_rejections;
    sum.replacements += stats.replacements;
    sum.callback_time_ns += stats.callback_time_ns;
  }
  return sum;
}

const std::shared_ptr<const core::builder::PatternOptimization>* DeclarativePatternGroup::FindAlternative(
    const core::builder::PatternOptimization& alternative) const {
  for (const auto& owned : alternatives_)
    if (owned.get() == &alternative) return &owned;
  return nullptr;
}

// --- DecomposePass -------------------------------------------------------------------

DecomposePass::DecomposePass(std::vector<OpKey> op_types) : op_types_(std::move(op_types)) {
  if (op_types_.empty()) throw PatternError("a DecomposePass needs at least one op type");
  for (const OpKey& key : op_types_)
    if (key.op_type.empty()) throw PatternError("a DecomposePass op type is empty");
}

DecomposePatternOptimization::DecomposePatternOptimization(std::shared_ptr<const DecomposePass> pass,
                                                           std::string name, PassStage stage, int priority)
    : CompiledRule(name, name, stage, priority), pass_(std::move(pass)) {}

std::set<std::string> DecomposePatternOptimization::FastOpType() const {
  std::set<std::string> types;
  for (const OpKey& key : pass_->OpTypes()) types.insert(key.op_type);
  return types;
}

core::builder::MatchResult DecomposePatternOptimization::Match(GraphGraph& graph, const NodeProto& candidate) const {
  const auto& keys = pass_->OpTypes();
  if (std::none_of(keys.begin(), keys.end(), [&](const OpKey& key) { return key.SameAs(candidate); }))
    return NoMatch(candidate, "the operator is not one the pass decomposes");
  PassContext context(graph, stage_, name_);
  const auto start = std::chrono::steady_clock::now();
  const bool accepted = pass_->MeetRequirements(candidate, context);
  CountRequirements(Since(start), accepted);
  if (!accepted) return NoMatch(candidate, "MeetRequirements rejected the node");
  return Matched({&candidate}, &candidate);
}

utils::RepeatedProtoField<NodeProto> DecomposePatternOptimization::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  if (nodes.size() != 1 || !nodes[0]) throw BuilderError(name_ + ": Apply expects the one decomposed node");
  const NodeProto& node = *nodes[0];
  std::vector<std::string> inputs(node.input().begin(), node.input().end());
  while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
  std::vector<std::string> outputs(node.output().begin(), node.output().end());
  while (!outputs.empty() && outputs.back().empty()) outputs.pop_back();
  std::vector<bool> present;
  for (const std::string& input : inputs) present.push_back(!input.empty());
  PassContext context(graph, stage_, name_);
  ReplacementBuilder builder(name_, present);
  const auto start = std::chrono::steady_clock::now();
  const ReplacementGraph replacement = pass_->Replacement(node, builder, context);
  CountReplacement(Since(start));
  return EmitReplacement(graph, name_, replacement, inputs, outputs);
}

// --- Compilation ---------------------------------------------------------------------

PatternList Compile(std::shared_ptr<const PatternFusionPass> pass, std::string pass_name, PassStage stage,
                    int priority) {
  if (!pass) throw PatternError("Compile: no pass");
  std::vector<std::unique_ptr<DeclarativePattern>> patterns;
  for (Pattern& pattern : pass->Patterns())
    patterns.push_back(std::make_unique<DeclarativePattern>(pass, pass_name, std::move(pattern), stage, priority));
  for (std::size_t i = 0; i < patterns.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (patterns[i]->Name() == patterns[k]->Name())
        throw PatternError("pass " + Quoted(pass_name) + ": two patterns are named " + Quoted(patterns[i]->Name()));
  // Group by anchor operator, in the order each operator first appears.
  std::vector<std::pair<std::string, std::vector<std::unique_ptr<DeclarativePattern>>>> by_anchor;
  for (auto& pattern : patterns) {
    const std::string anchor = pattern->Matcher().GetPattern().Anchor().ToString();
    auto it =
        std::find_if(by_anchor.begin(), by_anchor.end(), [&](const auto& group) { return group.first == anchor; });
    if (it == by_anchor.end()) {
      by_anchor.emplace_back(anchor, std::vector<std::unique_ptr<DeclarativePattern>>{});
      it = std::prev(by_anchor.end());
    }
    it->second.push_back(std::move(pattern));
  }
  PatternList compiled;
  for (auto& [anchor, group] : by_anchor) {
    if (group.size() == 1) {
      compiled.push_back(std::move(group.front()));
      continue;
    }
    std::vector<std::shared_ptr<const DeclarativePattern>> alternatives(std::make_move_iterator(group.begin()),
                                                                         std::make_move_iterator(group.end()));
    compiled.push_back(std::make_unique<DeclarativePatternGroup>(pass_name, std::move(alternatives), stage, priority));
  }
  return compiled;
}

PatternList Compile(std::shared_ptr<const DecomposePass> pass, std::string pass_name, PassStage stage, int priority) {
  if (!pass) throw PatternError("Compile: no pass");
  PatternList compiled;
  compiled.push_back(std::make_unique<DecomposePatternOptimization>(std::move(pass), std::move(pass_name), stage,
                                                                    priority));
  return compiled;
}

std::vector<std::string> ReportedNames(const core::builder::PatternOptimization& compiled) {
  std::vector<std::string> names{compiled.Name()};
  if (const auto* group = dynamic_cast<const DeclarativePatternGroup*>(&compiled))
    for (const auto& alternative : group->Alternatives()) names.push_back(alternative->Name());
  return names;
}

std::vector<RuleReport> ReportRules(
    const core::builder::OptimizationReport& report,
    const std::vector<std::shared_ptr<const core::builder::PatternOptimization>>& compiled) {
  std::vector<RuleReport> rules;
  for (const auto& pattern : compiled) {
    const auto* rule = dynamic_cast<const CompiledRule*>(pattern.get());
    if (!rule) continue;
    auto it = std::find_if(rules.begin(), rules.end(), [&](const RuleReport& r) { return r.pass == rule->PassName(); });
    if (it == rules.end()) {
      it = rules.emplace(rules.end());
      it->pass = rule->PassName();
    }
    RuleReport& line = *it;
    std::size_t matched = 0, applied = 0;
    for (const std::string& name : ReportedNames(*rule)) {
      for (const auto& stats : report.patterns)
        if (stats.name == name) {
          line.candidates += stats.match_calls;
          matched += stats.matched;
          applied += stats.applied;
        }
      for (const auto& no_match : report.no_matches)
        if (no_match.pattern == name) line.reasons[no_match.reason] += no_match.count;
    }
    line.applied += applied;
    line.overlaps_skipped += matched - std::min(matched, applied);
    const CallbackStats callbacks = rule->Callbacks();
    line.topological_matches += callbacks.topological_matches;
    line.boundary_rejections += callbacks.boundary_rejections;
    line.requirement_rejections += callbacks.requirement_rejections;
    line.callback_time_ns += callbacks.callback_time_ns;
  }
  return rules;
}

// --- Registration --------------------------------------------------------------------

namespace {

struct RegisteredPass {
  PassStage stage;
  int priority;
  FusionPassFactory fusion;        // one of the two is set
  DecomposePassFactory decompose;
  const std::type_info* factory_type;
};

std::map<std::string, RegisteredPass, std::less<>>& PassRegistry() {
  static std::map<std::string, RegisteredPass, std::less<>> registry;
  return registry;
}

std::mutex& PassRegistryMutex() {
  static std::mutex mutex;
  return mutex;
}

void Register(std::string name, RegisteredPass entry) {
  if (name.empty()) throw PatternError("a declarative pass needs a name");
  std::lock_guard lock(PassRegistryMutex());
  auto [it, inserted] = PassRegistry().emplace(name, entry);
  if (!inserted && *it->second.factory_type != *entry.factory_type)
    throw PatternError("a declarative pass named " + Quoted(name) + " is already registered with another factory");
}

}  // namespace

void RegisterFusionPass(std::string name, PassStage stage, FusionPassFactory factory, int priority) {
  const std::type_info& type = factory.target_type();
  Register(std::move(name), RegisteredPass{stage, priority, std::move(factory), {}, &type});
}

void RegisterDecomposePass(std::string name, PassStage stage, DecomposePassFactory factory, int priority) {
  const std::type_info& type = factory.target_type();
  Register(std::move(name), RegisteredPass{stage, priority, {}, std::move(factory), &type});
}

std::vector<std::string> RegisteredPassNames() {
  std::lock_guard lock(PassRegistryMutex());
  std::vector<std::string> names;
  for (const auto& [name, entry] : PassRegistry()) names.push_back(name);
  return names;
}

PatternList CompileRegistered(std::optional<PassStage> stage) {
  std::vector<std::pair<std::string, RegisteredPass>> entries;
  {
    std::lock_guard lock(PassRegistryMutex());
    for (const auto& [name, entry] : PassRegistry())
      if (!stage || entry.stage == *stage) entries.emplace_back(name, entry);
  }
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second.stage, a.second.priority) < std::tie(b.second.stage, b.second.priority);
  });  // the map already orders by name
  PatternList compiled;
  for (auto& [name, entry] : entries) {
    PatternList patterns = entry.fusion ? Compile(std::shared_ptr<const PatternFusionPass>(entry.fusion()), name,
                                                  entry.stage, entry.priority)
                                        : Compile(std::shared_ptr<const DecomposePass>(entry.decompose()), name,
                                                  entry.stage, entry.priority);
    for (auto& pattern : patterns) compiled.push_back(std::move(pattern));
  }
  return compiled;
}

}  // namespace onnxopt::fusion
