#include "onnx_core/builder/graph_builder.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/ir/initializer_inputs.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/ir/renames.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_core/shapes/shape_registry.h"

namespace onnxopt::core::builder {

using ir::ForEachDefinition;
using ir::ForEachMutableSubgraph;
using ir::ForEachSubgraph;
using ir::FreeReads;

namespace {

const std::string& FirstOutput(const NodeProto& node) {
  static const std::string kNone;
  for (const std::string& output : node.output())
    if (!output.empty()) return output;
  return kNone;
}

void CollectNodeNames(const NodeProto& node, NameGenerator& names) {
  names.Reserve(node.name());
  for (const std::string& input : node.input()) names.Reserve(input);
  for (const std::string& output : node.output()) names.Reserve(output);
  ForEachSubgraph(node, [&](const std::string&, int, const GraphProto& graph) { CollectNames(graph, names); });
}

void CollectFunctionNames(const FunctionProto& function, NameGenerator& names) {
  for (const std::string& input : function.input()) names.Reserve(input);
  for (const std::string& output : function.output()) names.Reserve(output);
  for (const NodeProto& node : function.node()) CollectNodeNames(node, names);
}

}  // namespace

// --- Free functions ------------------------------------------------------------------

void CollectNames(const GraphProto& graph, NameGenerator& names) {
  for (const ValueInfoProto& input : graph.input()) names.Reserve(input.name());
  for (const ValueInfoProto& output : graph.output()) names.Reserve(output.name());
  for (const ValueInfoProto& info : graph.value_info()) names.Reserve(info.name());
  for (const TensorProto& init : graph.initializer()) names.Reserve(init.name());
  for (const SparseTensorProto& init : graph.sparse_initializer()) names.Reserve(init.values().name());
  for (const NodeProto& node : graph.node()) CollectNodeNames(node, names);
}

// --- NameGenerator -------------------------------------------------------------------

void NameGenerator::Reserve(std::string_view name) {
  if (!name.empty()) used_.set(name, true);
}

bool NameGenerator::IsUsed(std::string_view name) const { return used_.contains(name); }

std::string NameGenerator::Unique(std::string_view prefix) {
  if (!prefix.empty() && used_.insert(prefix, true)) return std::string(prefix);
  std::uint64_t* next = next_suffix_.find(prefix);
  if (!next) next = &next_suffix_.set(prefix, 1);
  for (;; ++*next) {
    std::string candidate = std::string(prefix) + "_" + std::to_string(*next);
    if (!used_.insert(candidate, true)) continue;
    ++*next;
    return candidate;
  }
}

// --- SubgraphKey ---------------------------------------------------------------------

std::string SubgraphKey::ToString() const {
  std::string text = node_output + ":" + attribute;
  if (index >= 0) text += "[" + std::to_string(index) + "]";
  return text;
}

// --- GraphBuilder: construction and the model ----------------------------------------

GraphBuilder::GraphBuilder(ModelProto model)
    : owned_model_(std::make_unique<ModelProto>(std::move(model))),
      graph_(owned_model_->mutable_graph()),
      names_(std::make_unique<NameGenerator>()) {
  CollectNames(*graph_, *names_);
  for (const FunctionProto& function : owned_model_->functions()) CollectFunctionNames(function, *names_);
}

GraphBuilder::GraphBuilder(GraphProto graph, std::set<std::string> outer_scope)
    : owned_model_(std::make_unique<ModelProto>()),
      outer_scope_(outer_scope),
      names_(std::make_unique<NameGenerator>()) {
  graph_ = owned_model_->mutable_graph();
  *graph_ = std::move(graph);
  CollectNames(*graph_, *names_);
  // A new name equal to an outer one would shadow it, which the IR forbids.
  for (const std::string& name : outer_scope) names_->Reserve(name);
}

GraphBuilder::GraphBuilder(GraphProto* graph, GraphBuilder* parent, SubgraphKey key)
    : graph_(graph), parent_(parent), path_(parent->path_) {
  path_.push_back(std::move(key));
}

GraphBuilder::~GraphBuilder() = default;

ModelProto GraphBuilder::ToModel() const {
  if (IsRoot()) {
    ModelProto model = *owned_model_;
    ir::DeclareIrVersionOfInitializersNotInputs(model);
    return model;
  }
  // Copy the model-level fields, not the root graph, which may be large.
  const ModelProto& root = *Root().owned_model_;
  ModelProto model;
  model.set_ir_version(root.ir_version());
  *model.mutable_opset_import() = root.opset_import();
  *model.mutable_functions() = root.functions();
  *model.mutable_graph() = *graph_;
  return model;
}

ModelProto GraphBuilder::TakeModel() && {
  if (!IsRoot()) throw BuilderError("TakeModel: the builder of '" + PathString() + "' is nested, not a root");
  // Nested builders point into the graph that is about to leave.
  nested_.clear();
  ModelProto model = std::move(*owned_model_);
  graph_ = nullptr;
  ir::DeclareIrVersionOfInitializersNotInputs(model);
  return model;
}

std::string GraphBuilder::PathString() const {
  std::string text;
  for (const SubgraphKey& key : path_) {
    if (!text.empty()) text += "/";
    text += key.ToString();
  }
  return text;
}

GraphBuilder& GraphBuilder::Root() { return parent_ ? parent_->Root() : *this; }
const GraphBuilder& GraphBuilder::Root() const { return parent_ ? parent_->Root() : *this; }

const utils::RepeatedProtoField<OperatorSetIdProto>& GraphBuilder::OpsetImports() const {
  return Root().owned_model_->opset_import();
}

const utils::RepeatedProtoField<FunctionProto>& GraphBuilder::Functions() const {
  return Root().owned_model_->functions();
}

std::optional<std::int64_t> GraphBuilder::OpsetVersion(std::string_view domain) const {
  const bool onnx = IsOnnxDomain(domain);
  for (const OperatorSetIdProto& opset : OpsetImports())
    if (onnx ? IsOnnxDomain(opset.domain()) : opset.domain() == domain) return opset.version();
  return std::nullopt;
}

// --- Local functions -------------------------------------------------------------------

namespace {

std::string FunctionLabel(const FunctionProto& function) {
  return Quote(function.domain() + "." + function.name());
}

std::string NameList(const google::protobuf::RepeatedPtrField<std::string>& names) {
  std::string text = "(";
  for (int i = 0; i < names.size(); ++i) text += (i ? ", " : "") + names.Get(i);
  return text + ")";
}

// Where two functions of one key differ, for the error of GetOrAddFunction.
std::string FunctionDifference(const FunctionProto& existing, const FunctionProto& added) {
  using ir::SerializeDeterministic;
  if (NameList(existing.input()) != NameList(added.input()))
    return "inputs " + NameList(existing.input()) + " vs " + NameList(added.input());
  if (NameList(existing.output()) != NameList(added.output()))
    return "outputs " + NameList(existing.output()) + " vs " + NameList(added.output());
  if (NameList(existing.attribute()) != NameList(added.attribute()))
    return "attributes " + NameList(existing.attribute()) + " vs " + NameList(added.attribute());
  if (existing.node_size() != added.node_size())
    return std::to_string(existing.node_size()) + " nodes vs " + std::to_string(added.node_size());
  for (int i = 0; i < existing.node_size(); ++i)
    if (SerializeDeterministic(existing.node(i)) != SerializeDeterministic(added.node(i)))
      return "node " + std::to_string(i) + " (" + existing.node(i).op_type() + " vs " + added.node(i).op_type() + ")";
  if (existing.opset_import_size() != added.opset_import_size() ||
      !std::equal(existing.opset_import().begin(), existing.opset_import().end(), added.opset_import().begin(),
                  [](const OperatorSetIdProto& a, const OperatorSetIdProto& b) {
                    return a.domain() == b.domain() && a.version() == b.version();
                  }))
    return "opset imports";
  return "other fields (doc_string, value_info, ...)";
}

}  // namespace

const FunctionProto* GraphBuilder::FindFunction(std::string_view domain, std::string_view name) const {
  const bool onnx = IsOnnxDomain(domain);
  for (const FunctionProto& function : Functions())
    if (function.name() == name && (onnx ? IsOnnxDomain(function.domain()) : function.domain() == domain))
      return &function;
  return nullptr;
}

const FunctionProto& GraphBuilder::GetOrAddFunction(FunctionProto function) {
  if (function.name().empty()) throw BuilderError("GetOrAddFunction: the function has no name");
  if (IsOnnxDomain(function.domain()))
    throw BuilderError("GetOrAddFunction: local function '" + function.name() +
                       "' is in the default ONNX domain; a local function needs a custom domain");
  if (const FunctionProto* existing = FindFunction(function.domain(), function.name())) {
    if (ir::SerializeDeterministic(*existing) != ir::SerializeDeterministic(function))
      throw BuilderError("GetOrAddFunction: the model already has local function " + FunctionLabel(function) +
                         " with another content (" + FunctionDifference(*existing, function) +
                         "); a function is added once per (domain, name), with one body");
    return *existing;
  }
  for (const OperatorSetIdProto& opset : function.opset_import()) {
    const std::optional<std::int64_t> version = OpsetVersion(opset.domain());
    if (version && *version != opset.version())
      throw BuilderError("GetOrAddFunction: local function " + FunctionLabel(function) + " imports version " +
                         std::to_string(opset.version()) + " of operator set " +
                         Quote(IsOnnxDomain(opset.domain()) ? "ai.onnx" : opset.domain()) +
                         " but the model imports version " + std::to_string(*version) +
                         " (a local function must use the versions the model imports)");
  }
  ModelProto& model = *Root().owned_model_;
  auto import = [&](const std::string& domain, std::int64_t version) {
    if (OpsetVersion(domain)) return;
    OperatorSetIdProto* opset = model.add_opset_import();
    opset->set_domain(domain);
    opset->set_version(version);
  };
  import(function.domain(), 1);
  for (const OperatorSetIdProto& opset : function.opset_import()) import(opset.domain(), opset.version());
  CollectFunctionNames(function, Names());
  FunctionProto* added = model.add_functions();
  *added = std::move(function);
  return *added;
}

void GraphBuilder::RemoveFunctions(const std::vector<std::size_t>& positions, std::string_view what) {
  auto& functions = *Root().owned_model_->mutable_functions();
  const auto size = static_cast<std::size_t>(functions.size());
  std::vector<bool> removed(size, false);
  for (std::size_t position : positions) {
    if (position >= size)
      throw BuilderError(std::string(what) + ": removes the local function at position " + std::to_string(position) +
                         " but the model has " + std::to_string(size));
    if (removed[position])
      throw BuilderError(std::string(what) + ": removes the local function at position " + std::to_string(position) +
                         " twice");
    removed[position] = true;
  }
  if (positions.empty()) return;
  std::size_t index = 0;
  KeepIf(functions, [&](const FunctionProto&) { return !removed[index++]; });
}

namespace {

void CollectDomains(const GraphProto& graph, std::set<std::string>& domains) {
  for (const NodeProto& node : graph.node()) {
    if (!IsOnnxDomain(node.domain())) domains.insert(node.domain());
    ForEachSubgraph(node, [&](const std::string&, int, const GraphProto& nested) { CollectDomains(nested, domains); });
  }
}

}  // namespace

std::vector<std::string> GraphBuilder::ImportUsedDomains() {
  if (!IsRoot()) throw BuilderError("ImportUsedDomains: call it on the root builder");
  std::set<std::string> used;
  CollectDomains(*graph_, used);
  for (const FunctionProto& function : Functions())
    for (const NodeProto& node : function.node())
      if (!IsOnnxDomain(node.domain())) used.insert(node.domain());
  std::vector<std::string> added;
  for (const std::string& domain : used) {
    if (OpsetVersion(domain)) continue;
    OperatorSetIdProto* opset = owned_model_->add_opset_import();
    opset->set_domain(domain);
    opset->set_version(1);
    added.push_back(domain);
  }
  return added;
}

// --- Values --------------------------------------------------------------------------

bool GraphBuilder::IsGraphInput(std::string_view name) const {
  return std::any_of(Inputs().begin(), Inputs().end(), [&](const ValueInfoProto& v) { return v.name() == name; });
}

bool GraphBuilder::IsGraphOutput(std::string_view name) const {
  return std::any_of(Outputs().begin(), Outputs().end(), [&](const ValueInfoProto& v) { return v.name() == name; });
}

const TensorProto* GraphBuilder::Initializer(std::string_view name) const {
  for (const TensorProto& init : Initializers())
    if (init.name() == name) return &init;
  return nullptr;
}

std::set<std::string> GraphBuilder::OuterScopeReads() const {
  std::set<std::string> reads = FreeReads(*graph_);
  std::erase_if(reads, [&](const std::string& name) { return !outer_scope_.Contains(name); });
  return reads;
}

// --- Names ---------------------------------------------------------------------------

std::string GraphBuilder::UniqueName(std::string_view prefix) { return Names().Unique(prefix); }

NameGenerator& GraphBuilder::Names() { return *Root().names_; }

std::shared_ptr<PatternRegistry>& GraphBuilder::LocalPatternRegistry() { return Root().local_patterns_; }
const PatternRegistry* GraphBuilder::LocalPatternRegistry() const { return Root().local_patterns_.get(); }

// --- Nested graphs -------------------------------------------------------------------

EnclosingNames::EnclosingNames(const std::set<std::string>& names) {
  if (names.empty()) return;
  auto level = std::make_shared<Level>();
  level->names.insert(names.begin(), names.end());
  innermost_ = std::move(level);
}

EnclosingNames::EnclosingNames(std::vector<std::string> names, const EnclosingNames& enclosing) {
  auto level = std::make_shared<Level>();
  level->names.reserve(names.size());
  for (std::string& name : names) level->names.insert(std::move(name));
  level->enclosing = enclosing.innermost_;
  innermost_ = std::move(level);
}

bool EnclosingNames::Contains(std::string_view name) const {
  for (const Level* level = innermost_.get(); level; level = level->enclosing.get())
    if (level->names.contains(name)) return true;
  return false;
}

std::set<std::string> EnclosingNames::Names() const {
  std::set<std::string> all;
  for (const Level* level = innermost_.get(); level; level = level->enclosing.get())
    all.insert(level->names.begin(), level->names.end());
  return all;
}

EnclosingNames GraphBuilder::VisibleToNested() const {
  std::vector<std::string> definitions;
  ForEachDefinition(*graph_, [&](const std::string& name) { definitions.push_back(name); });
  return EnclosingNames(std::move(definitions), outer_scope_);
}

void GraphBuilder::AttachNested(const NodeProto& node, const EnclosingNames& visible,
                                std::vector<GraphBuilder*>& out) {
  ForEachSubgraph(node, [&](const std::string& attribute, int index, const GraphProto& graph) {
    SubgraphKey key{FirstOutput(node), attribute, index};
    std::unique_ptr<GraphBuilder>& nested = nested_[&graph];
    // The builder edits the graph in place; `node` is const only because callers look
    // at nodes through const views of the graph this builder owns.
    if (!nested) nested.reset(new GraphBuilder(const_cast<GraphProto*>(&graph), this, key));
    nested->path_ = path_;
    nested->path_.push_back(std::move(key));
    nested->outer_scope_ = visible;
    out.push_back(nested.get());
  });
}

std::vector<GraphBuilder*> GraphBuilder::Subgraphs() {
  std::vector<GraphBuilder*> result;
  std::optional<EnclosingNames> visible;
  for (const NodeProto& node : Nodes()) {
    if (!HasSubgraph(node)) continue;
    if (!visible) visible = VisibleToNested();
    AttachNested(node, *visible, result);
  }
  std::unordered_set<const GraphProto*> current;
  for (const GraphBuilder* nested : result) current.insert(nested->graph_);
  std::erase_if(nested_, [&](const auto& entry) { return !current.contains(entry.first); });
  return result;
}

std::vector<GraphBuilder*> GraphBuilder::SubgraphsOf(const NodeProto& node) {
  std::vector<GraphBuilder*> result;
  if (HasSubgraph(node)) AttachNested(node, VisibleToNested(), result);
  return result;
}

std::vector<std::pair<GraphBuilder*, std::set<std::string>>> GraphBuilder::ReferencedSubgraphs() {
  std::vector<std::pair<GraphBuilder*, std::set<std::string>>> result;
  for (GraphBuilder* nested : Subgraphs()) {
    std::set<std::string> reads = nested->OuterScopeReads();
    if (!reads.empty()) result.emplace_back(nested, std::move(reads));
  }
  return result;
}

// --- Shapes --------------------------------------------------------------------------

shapes::ShapesContext& GraphBuilder::MutableShapes() {
  if (parent_) return parent_->MutableShapes().Nested(*graph_);
  if (!shapes_) shapes_ = std::make_unique<shapes::ShapesContext>();
  return *shapes_;
}

const shapes::ShapesContext* GraphBuilder::Shapes() const {
  if (!parent_) return shapes_.get();
  const shapes::ShapesContext* enclosing = parent_->Shapes();
  return enclosing ? enclosing->FindNested(*graph_) : nullptr;
}

void GraphBuilder::InferShapes() {
  if (!parent_) shapes_ = std::make_unique<shapes::ShapesContext>();
  shapes::InferGraph(*Root().owned_model_, *graph_, MutableShapes());
}

void GraphBuilder::InferShapesOf(const std::vector<const NodeProto*>& nodes) {
  PendingShapes pending = InferShapesAhead(nodes);
  if (pending.invalid)
    // The model was checked when its shapes were first inferred: a rewrite built a node
    // that its operator's specification forbids.
    throw BuilderError(std::string("a rewrite built an invalid node: ") + pending.invalid->error.what());
  CommitShapes(std::move(pending));
}

GraphBuilder::PendingShapes GraphBuilder::InferShapesAhead(const std::vector<const NodeProto*>& nodes) {
  shapes::ShapesContext& context = MutableShapes();
  const shapes::SymbolGenerator symbols = context.Symbols();
  const std::size_t diagnostics = context.Diagnostics().size();
  PendingShapes pending{std::nullopt, std::make_unique<shapes::ShapesContext>(&context), nodes};
  shapes::ShapesContext& overlay = *pending.overlay;
  std::unordered_set<std::string_view> unseen;
  for (const NodeProto* node : nodes)
    for (const std::string& input : node->input())
      if (!input.empty() && !overlay.Find(input)) unseen.insert(input);
  if (!unseen.empty())
    for (const TensorProto& init : Initializers())
      if (unseen.contains(init.name())) shapes::InferInitializer(init, overlay);
  pending.invalid = shapes::TryInferNodes(*Root().owned_model_, nodes, overlay);
  if (pending.invalid) {
    pending.overlay.reset();
    context.Symbols() = symbols;
    context.Diagnostics().resize(diagnostics);
  }
  return pending;
}

void GraphBuilder::CommitShapes(PendingShapes pending) {
  if (pending.invalid || !pending.overlay)
    throw BuilderError("CommitShapes: the shapes of these nodes were not inferred ahead");
  shapes::ShapesContext& context = MutableShapes();
  // A rewrite may give a value a new producer under its old name (a Reshape whose shape
  // became a constant): what inference knew of it before, to tell whether it knows more now.
  std::vector<std::pair<std::string_view, shapes::SymTensor>> redefined;
  for (const NodeProto* node : pending.nodes)
    for (const std::string& output : node->output())
      if (const shapes::SymTensor* held = output.empty() ? nullptr : context.Find(output))
        redefined.emplace_back(output, *held);
  context.Adopt(*pending.overlay);
  std::unordered_set<std::string> grown;
  for (auto& [name, before] : redefined)
    if (const shapes::SymTensor* now = context.Find(name); now && shapes::AddKnowledge(before, *now))
      grown.emplace(name);
  if (!grown.empty()) InferReadersAgain(std::move(grown));
}

void GraphBuilder::AddKnowledgeOfFoldedConstants(const std::vector<const TensorProto*>& initializers) {
  if (!Shapes()) return;
  shapes::ShapesContext& context = MutableShapes();
  std::unordered_set<std::string> grown;
  for (const TensorProto* initializer : initializers) {
    const std::string& name = initializer->name();
    const shapes::SymTensor* held = context.Find(name);
    shapes::SymTensor known = held ? *held : shapes::SymTensor::Unknown();
    if (shapes::ShapesContext::KeepsConstant(*initializer))
      context.SetConstant(name, std::make_shared<const TensorProto>(*initializer));
    const bool grew = shapes::AddKnowledge(known, shapes::SymTensor::FromTensor(*initializer));
    context.Set(name, std::move(known));
    if (grew) grown.insert(name);
  }
  if (!grown.empty()) InferReadersAgain(std::move(grown));
}

void GraphBuilder::InferReadersAgain(std::unordered_set<std::string> grown) {
  shapes::ShapesContext& context = MutableShapes();
  // Inferring a node again repeats its diagnostics, if any: those of the first inference
  // stand for it.
  const std::size_t diagnostics = context.Diagnostics().size();
  for (const NodeProto& node : Nodes()) {
    if (HasSubgraph(node)) continue;
    const bool reads_grown = std::any_of(node.input().begin(), node.input().end(),
                                         [&](const std::string& input) { return grown.contains(input); });
    if (!reads_grown) continue;
    std::vector<shapes::SymTensor> before;
    for (const std::string& output : node.output()) {
      const shapes::SymTensor* held = output.empty() ? nullptr : context.Find(output);
      before.push_back(held ? *held : shapes::SymTensor::Unknown());
    }
    try {
      shapes::InferNodes(*Root().owned_model_, {&node}, context);
    } catch (const shapes::InvalidNodeError&) {
      // Knowing more showed a contradiction the first inference could not see (in a branch
      // the model never runs, say): what was known stands.
    }
    for (int i = 0; i < node.output_size(); ++i) {
      const std::string& output = node.output(i);
      if (output.empty()) continue;
      shapes::SymTensor known = std::move(before[static_cast<std::size_t>(i)]);
      const shapes::SymTensor* inferred = context.Find(output);
      if (inferred && shapes::AddKnowledge(known, *inferred)) {
        grown.insert(output);
        refined_values_.push_back(output);
      }
      context.Set(output, std::move(known));
    }
  }
  context.Diagnostics().resize(diagnostics);
}

std::vector<std::string> GraphBuilder::LessKnownThanFreshInference() const {
  std::vector<std::string> result;
  const shapes::ShapesContext* held = Shapes();
  if (!held || !IsRoot()) return result;
  shapes::ShapesContext fresh;
  shapes::InferGraph(*owned_model_, *graph_, fresh);
  for (const NodeProto& node : Nodes())
    for (const std::string& output : node.output()) {
      const shapes::SymTensor* from_scratch = output.empty() ? nullptr : fresh.Find(output);
      if (!from_scratch) continue;
      const shapes::SymTensor* known = held->Find(output);
      shapes::SymTensor knowledge = known ? *known : shapes::SymTensor::Unknown();
      if (shapes::AddKnowledge(knowledge, *from_scratch))
        result.push_back(output + " (" + node.op_type() + "): held " + (known ? known->ToString() : "nothing") +
                         ", from scratch " + from_scratch->ToString());
    }
  return result;
}

const shapes::SymTensor* GraphBuilder::GetShape(std::string_view name) const {
  return GetShape(name, utils::HashString(name));
}

const shapes::SymTensor* GraphBuilder::GetShape(std::string_view name, std::uint64_t name_hash) const {
  const shapes::ShapesContext* context = Shapes();
  if (!context) return nullptr;
  const shapes::SymTensor* value = context->Find(name, name_hash);
  if (!value || value->kind == shapes::SymTensor::Kind::kUnknown) return nullptr;
  return value;
}

bool GraphBuilder::HasShape(std::string_view name) const {
  const shapes::SymTensor* value = GetShape(name);
  return value && value->shape.HasRank();
}

bool GraphBuilder::HasType(std::string_view name) const {
  const shapes::SymTensor* value = GetShape(name);
  return value && value->HasElemType();
}

int GraphBuilder::GetType(std::string_view name) const {
  const shapes::SymTensor* value = GetShape(name);
  return value ? value->elem_type : 0;
}

void GraphBuilder::WriteValueInfo() {
  const shapes::ShapesContext* context = Shapes();
  if (!context) return;
  const auto& values = context->Values();
  auto known = [&](const std::string& name) -> const shapes::SymTensor* {
    const shapes::SymTensor* value = values.find(name);
    if (!value || value->kind == shapes::SymTensor::Kind::kUnknown || !value->HasElemType()) return nullptr;
    return value;
  };
  std::unordered_set<std::string_view> outputs;
  for (const ValueInfoProto& output : Outputs()) outputs.insert(output.name());

  std::vector<ValueInfoProto> infos;
  std::unordered_set<std::string_view> written;
  for (const NodeProto& node : Nodes())
    for (const std::string& name : node.output()) {
      if (name.empty() || outputs.contains(name) || written.contains(name)) continue;
      const shapes::SymTensor* value = known(name);
      if (!value) continue;
      ValueInfoProto& info = infos.emplace_back();
      info.set_name(name);
      value->ToType(*info.mutable_type());
      written.insert(name);
    }
  KeepIf(ValueInfos(), [&](const ValueInfoProto& info) { return !written.contains(info.name()); });
  for (ValueInfoProto& info : infos) *ValueInfos().Add() = std::move(info);

  for (ValueInfoProto& output : *graph_->mutable_output()) {
    const shapes::SymTensor* value = known(output.name());
    if (!value) continue;
    if (!output.has_type()) {
      value->ToType(*output.mutable_type());
      continue;
    }
    TypeProto::Tensor* declared = output.mutable_type()->has_tensor_type() ? output.mutable_type()->mutable_tensor_type() : nullptr;
    if (!declared || declared->has_shape() || value->kind != shapes::SymTensor::Kind::kTensor || !value->shape.HasRank())
      continue;
    if (declared->elem_type() != 0 && declared->elem_type() != value->elem_type) continue;
    declared->set_elem_type(value->elem_type);
    value->shape.ToProto(*declared->mutable_shape());
  }

  for (GraphBuilder* nested : Subgraphs()) nested->WriteValueInfo();
}

void GraphBuilder::RenameUses(const std::string& from, const std::string& to) { RenameUses({{from, to}}); }

void GraphBuilder::RenameUses(const std::unordered_map<std::string, std::string>& renames) {
  if (!renames.empty()) ir::RenameReads(*graph_, renames);
}

void GraphBuilder::RenameUses(const std::string& from, const std::string& to,
                              const std::vector<const NodeProto*>& readers) {
  const ir::RenameMap renames{{from, to}};
  // The builder owns its nodes; it hands them out read-only.
  for (const NodeProto* reader : readers) ir::RenameReads(*const_cast<NodeProto*>(reader), renames);
  ir::DropValueInfo(*graph_, renames);
}

}  // namespace onnxopt::core::builder
