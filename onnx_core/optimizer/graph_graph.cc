// GraphGraph: construction, the index, and the value queries. The driver (Optimize) is in
// optimize.cc.

#include "onnx_core/optimizer/graph_graph.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/constant_values.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_core/optimizer/match_cache.h"

namespace onnxopt::core::builder {

namespace {

bool IsDefaultOp(const NodeProto& node, std::string_view op_type) {
  return node.op_type() == op_type && IsOnnxDomain(node.domain());
}

bool DefaultDoNotRemove(const NodeProto& node) { return node.name().find(kDoNotRemoveMarker) != std::string::npos; }

// A node whose outputs are constant once its inputs are.
bool IsFoldable(const NodeProto& node) {
  return !HasSubgraph(node) && !eval::IsNondeterministicOp(node.domain(), node.op_type()) &&
         eval::FindKernel(node.domain(), node.op_type()) != nullptr;
}

}  // namespace

std::function<bool(const NodeProto&)> KeepNodesNamed(std::vector<std::string> globs) {
  return [globs = std::move(globs)](const NodeProto& node) {
    return DefaultDoNotRemove(node) ||
           std::any_of(globs.begin(), globs.end(),
                       [&](const std::string& glob) { return ::fnmatch(glob.c_str(), node.name().c_str(), 0) == 0; });
  };
}

GraphGraph::GraphGraph(GraphBuilder& builder, std::vector<std::shared_ptr<const PatternOptimization>> patterns,
                       OptimizerOptions options)
    : builder_(builder),
      options_(std::move(options)),
      evaluation_budget_(std::make_shared<eval::WorkBudget>(options_.fold.max_work_steps, kFoldingWorkBudgetName)),
      computed_bytes_(std::make_shared<std::uint64_t>(0)) {
  if (!options_.do_not_remove) options_.do_not_remove = DefaultDoNotRemove;
  for (auto& pattern : CreateSelectedPatterns(builder_, options_.registered)) patterns_.push_back(std::move(pattern));
  // A pattern given replaces the one of the same name, registered or given before. By a
  // map of names, not a search per pattern: each nested graph's optimizer is built with
  // all its parent's patterns.
  std::unordered_map<std::string, std::size_t> position_of_name;
  for (std::size_t i = 0; i < patterns_.size(); ++i) position_of_name.emplace(patterns_[i]->Name(), i);
  for (auto& pattern : patterns) {
    if (!pattern) throw BuilderError("GraphGraph: a null pattern was given");
    const auto [same, added] = position_of_name.emplace(pattern->Name(), patterns_.size());
    if (added)
      patterns_.push_back(std::move(pattern));
    else
      patterns_[same->second] = std::move(pattern);
  }
  std::stable_sort(patterns_.begin(), patterns_.end(),
                   [](const auto& a, const auto& b) { return a->priority < b->priority; });
}

GraphGraph::GraphGraph(GraphBuilder& nested, const GraphGraph& outer)
    : outer_(&outer),
      builder_(nested),
      patterns_(outer.patterns_),
      options_(outer.options_),
      evaluation_budget_(outer.evaluation_budget_),
      computed_bytes_(outer.computed_bytes_) {
  options_.registered = PatternSelection::None();
}

GraphGraph::~GraphGraph() = default;

void GraphGraph::BuildIndex() const {
  value_index_.clear();
  positions_.clear();
  by_op_type_.clear();
  outputs_.clear();
  subgraph_readers_.clear();
  inputs_.clear();
  initializers_.clear();
  index_stale_ = false;
  const auto& nodes = builder_.Nodes();
  positions_.reserve(static_cast<std::size_t>(nodes.size()));
  value_index_.reserve(static_cast<std::size_t>(nodes.size()) * 2);
  for (int i = 0; i < nodes.size(); ++i) {
    const NodeProto& node = nodes.Get(i);
    positions_.insert(&node);
    by_op_type_[node.op_type()].push_back(static_cast<std::size_t>(i));
    for (const std::string& input : node.input()) {
      if (input.empty()) continue;
      std::vector<const NodeProto*>& consumers = AddValue(input).consumers;
      if (consumers.empty() || consumers.back() != &node) consumers.push_back(&node);
    }
    for (const std::string& output : node.output())
      if (!output.empty()) AddValue(output).producer = &node;
    if (HasSubgraph(node))
      for (const std::string& name : SubgraphReads(node)) subgraph_readers_[name].push_back(&node);
  }
  for (const ValueInfoProto& output : builder_.Outputs()) {
    outputs_.insert(output.name());
    if (ValueUses* uses = FindUses(output.name())) uses->graph_output = true;
  }
  for (const auto& [name, readers] : subgraph_readers_)
    if (ValueUses* uses = FindUses(name)) uses->nested_reader = true;
  for (const ValueInfoProto& input : builder_.Inputs()) {
    inputs_.insert(input.name());
    if (ValueUses* uses = FindUses(input.name())) uses->graph_input = true;
  }
  for (const TensorProto& init : builder_.Initializers()) {
    initializers_.emplace(init.name(), &init);
    if (ValueUses* uses = FindUses(init.name())) uses->initializer = &init;
  }
}

GraphGraph::ValueUses& GraphGraph::AddValue(std::string_view name) const {
  const auto [entry, added] = value_index_.insert(name);
  if (entry == values_.size()) return values_.emplace_back();
  ValueUses& uses = values_[entry];
  if (added) {
    uses.producer = nullptr;
    uses.consumers.clear();
    uses.constant.reset();
    uses.computed.reset();
    uses.graph_input = uses.graph_output = uses.nested_reader = false;
    uses.initializer = nullptr;
  }
  return uses;
}

std::size_t GraphGraph::NodeCount() const {
  NoteWholeGraphRead();
  Refresh();
  return positions_.size();
}

GraphGraph::ValueUses* GraphGraph::FindUses(std::string_view name) const {
  Refresh();
  const std::uint32_t entry = value_index_.find(name);
  return entry == value_index_.kNone ? nullptr : &values_[entry];
}

GraphGraph::ValueUses* GraphGraph::Lookup(std::string_view name, ValueSide side, std::uint64_t* hash) const {
  // value_index_ hashes names with utils::StringHash, which is HashString.
  const std::uint64_t name_hash = utils::HashString(name);
  if (hash) *hash = name_hash;
  NoteReadHashed(name_hash, side);
  Refresh();
  const std::uint32_t entry = value_index_.find(name, static_cast<std::size_t>(name_hash));
  return entry == value_index_.kNone ? nullptr : &values_[entry];
}

std::size_t GraphGraph::IndexedPosition(const NodeProto& node) const {
  const std::uint32_t position = positions_.find(&node);
  if (position == positions_.kNone)
    throw BuilderError("GraphGraph: node " + node.op_type() + " '" + node.name() +
                       "' is not a node of this graph (or the index is out of date)");
  return position;
}

// --- Structure --------------------------------------------------------------------------

// Every query about a value notes which side of it it looked at (NoteRead): the incremental
// matching (match_cache.h) learns what a Match depends on.
const NodeProto* GraphGraph::NodeBefore(std::string_view name) const {
  const ValueUses* uses = Lookup(name, ValueSide::kDefinition);
  return uses ? uses->producer : nullptr;
}

const std::vector<const NodeProto*>& GraphGraph::NextNodes(std::string_view name) const {
  static const std::vector<const NodeProto*> kNone;
  const ValueUses* uses = Lookup(name, ValueSide::kReaders);
  return uses ? uses->consumers : kNone;
}

std::vector<const NodeProto*> GraphGraph::Predecessors(const NodeProto& node) const {
  std::vector<const NodeProto*> result;
  for (const std::string& input : node.input())
    if (const NodeProto* producer = NodeBefore(input);
        producer && std::find(result.begin(), result.end(), producer) == result.end())
      result.push_back(producer);
  std::sort(result.begin(), result.end(),
            [&](const NodeProto* a, const NodeProto* b) { return Position(*a) < Position(*b); });
  return result;
}

std::vector<const NodeProto*> GraphGraph::Successors(const NodeProto& node) const {
  std::vector<const NodeProto*> result;
  for (const std::string& output : node.output()) {
    if (output.empty()) continue;
    for (const NodeProto* consumer : NextNodes(output))
      if (std::find(result.begin(), result.end(), consumer) == result.end()) result.push_back(consumer);
  }
  std::sort(result.begin(), result.end(),
            [&](const NodeProto* a, const NodeProto* b) { return Position(*a) < Position(*b); });
  return result;
}

bool GraphGraph::IsOutput(std::string_view name) const {
  const ValueUses* uses = Lookup(name, ValueSide::kDefinition);
  return uses ? uses->graph_output : outputs_.contains(name);
}

bool GraphGraph::IsUsedBySubgraph(std::string_view name) const {
  const ValueUses* uses = Lookup(name, ValueSide::kReaders);
  return uses ? uses->nested_reader : subgraph_readers_.contains(name);
}

bool GraphGraph::IsUsed(std::string_view name) const {
  return !NextNodes(name).empty() || IsOutput(name) || IsUsedBySubgraph(name);
}

bool GraphGraph::IsUsedMoreThanOnce(std::string_view name) const {
  return NextNodes(name).size() > 1 || IsOutput(name) || IsUsedBySubgraph(name);
}

std::size_t GraphGraph::Position(const NodeProto& node) const {
  Refresh();
  return IndexedPosition(node);
}

bool GraphGraph::Contains(const NodeProto& node) const {
  Refresh();
  return positions_.contains(&node);
}

// --- Shapes and types -------------------------------------------------------------------

bool GraphGraph::HasShape(std::string_view name) const { return FindShape(name) != nullptr; }

// Shapes are the builder's (valid while the index is stale, unlike the index): a query
// notes its read and looks the shape up with one hash of the name.
const shapes::SymTensor* GraphGraph::KnownValue(std::string_view name) const {
  const std::uint64_t hash = utils::HashString(name);
  NoteReadHashed(hash, ValueSide::kDefinition);
  return builder_.GetShape(name, hash);
}

const shapes::SymTensor* GraphGraph::FindShape(std::string_view name) const {
  const shapes::SymTensor* shape = KnownValue(name);
  return shape && shape->shape.HasRank() ? shape : nullptr;
}

const shapes::SymTensor& GraphGraph::GetShape(std::string_view name) const {
  const shapes::SymTensor* shape = KnownValue(name);
  if (!shape) throw BuilderError("GraphGraph::GetShape: nothing is known about '" + std::string(name) + "'");
  return *shape;
}

bool GraphGraph::HasType(std::string_view name) const {
  const shapes::SymTensor* value = KnownValue(name);
  return value && value->HasElemType();
}

int GraphGraph::GetType(std::string_view name) const {
  const shapes::SymTensor* value = KnownValue(name);
  return value ? value->elem_type : 0;
}

// --- Constants --------------------------------------------------------------------------

// What is known about `name` without looking at its producer's inputs. A definite answer
// is kept in the index: patterns ask about the same values again and again.
std::optional<bool> GraphGraph::ConstantBaseCase(std::string_view name, ValueUses** entry) const {
  std::uint64_t hash = 0;
  ValueUses* uses = Lookup(name, ValueSide::kDefinition, &hash);
  if (entry) *entry = uses;
  if (uses && uses->constant) return uses->constant;
  const std::optional<bool> known = ConstantWithoutInputs(name, uses);
  if (known) NoteConstnessHashed(name, hash, *known);
  if (uses && known) uses->constant = known;
  return known;
}

std::optional<bool> GraphGraph::ConstantWithoutInputs(std::string_view name, const ValueUses* uses) const {
  // A value the index knows carries these answers; others (read by a nested graph only,
  // say) are looked up.
  if (uses ? uses->graph_input : inputs_.contains(name)) return false;
  if (uses ? uses->initializer != nullptr : initializers_.contains(name)) return true;
  const NodeProto* producer = uses ? uses->producer : nullptr;
  if (!producer) {
    if (outer_) return outer_->IsConstant(name);
    for (const GraphBuilder* scope = builder_.Parent(); scope; scope = scope->Parent()) {
      if (scope->IsGraphInput(name)) return false;
      if (scope->Initializer(name)) return true;
    }
    return false;
  }
  if (IsDefaultOp(*producer, "Constant")) return true;
  if (HasStaticShapeValue(builder_, *producer)) return true;
  if (!IsFoldable(*producer)) return false;
  // What folding keeps quantized is not a constant to the patterns either: a rewrite would
  // turn the quantized weights into float ones, or add a node on them (GemmTransposePattern's
  // Transpose) that folding then leaves to run.
  if (KeepsQuantizedInput(*producer, options_.fold)) return false;
  return std::nullopt;
}

bool GraphGraph::IsConstant(std::string_view name) const {
  ValueUses* entry = nullptr;
  if (std::optional<bool> known = ConstantBaseCase(name, &entry)) return *known;
  // Open only for a value whose producer is a foldable node of this graph (ConstantWithoutInputs).
  // Depth-first over producers, without recursion: constant chains can be long.
  std::vector<const NodeProto*> stack{entry->producer};
  while (!stack.empty()) {
    const NodeProto* node = stack.back();
    bool all_constant = true;
    const NodeProto* pending = nullptr;
    for (const std::string& input : node->input()) {
      if (input.empty()) continue;
      ValueUses* input_entry = nullptr;
      std::optional<bool> known = ConstantBaseCase(input, &input_entry);
      if (!known) {
        pending = input_entry->producer;
        break;
      }
      if (!*known) {
        all_constant = false;
        break;
      }
    }
    if (pending) {
      stack.push_back(pending);
      continue;
    }
    for (const std::string& output : node->output())
      if (!output.empty()) {
        const std::uint64_t hash = utils::HashString(output);
        values_[value_index_.find(output, static_cast<std::size_t>(hash))].constant = all_constant;
        NoteConstnessHashed(output, hash, all_constant);
      }
    stack.pop_back();
  }
  return *entry->constant;
}

bool GraphGraph::IsConstantScalar(std::string_view name, double value, bool broadcast) {
  const TensorProto* tensor = GetComputedConstant(name);
  if (!tensor || tensor->data_type() == TensorProto::STRING) return false;
  const bool all_ones =
      std::all_of(tensor->dims().begin(), tensor->dims().end(), [](std::int64_t dim) { return dim == 1; });
  if (!all_ones || (!broadcast && tensor->dims_size() > 1)) return false;
  const std::vector<double> elements = eval::Tensor::FromProto(*tensor).ToDoubleVector();
  return elements.size() == 1 && elements[0] == value;
}

const TensorProto* GraphGraph::GetComputedConstant(std::string_view name) {
  ValueUses* uses = Lookup(name, ValueSide::kDefinition);
  if (uses && uses->computed) return *uses->computed;
  const TensorProto* value = FindOrComputeConstant(name);
  // The pointer stays valid as long as the index: computed values are never freed, and
  // initializers only go in a cleanup, after which the index is rebuilt.
  if (uses) uses->computed = value;
  return value;
}

const TensorProto* GraphGraph::FindOrComputeConstant(std::string_view name) {
  if (const std::unique_ptr<TensorProto>* known = computed_.find(name)) return known->get();
  if (!IsConstant(name)) return nullptr;
  if (auto it = initializers_.find(name); it != initializers_.end())
    return ir::HasExternalData(*it->second) ? nullptr : it->second;
  const NodeProto* producer = NodeBefore(name);
  if (!producer) {
    if (outer_) return MutableOuter()->GetComputedConstant(name);
    for (const GraphBuilder* scope = builder_.Parent(); scope; scope = scope->Parent())
      if (const TensorProto* init = scope->Initializer(name))
        return ir::HasExternalData(*init) ? nullptr : init;
    return nullptr;
  }
  ComputeConstants(*producer);
  return Computed(name);
}

void GraphGraph::ComputeConstants(const NodeProto& target) {
  // The producers still to evaluate, found depth-first and evaluated in graph order.
  std::vector<const NodeProto*> needed;
  std::unordered_set<const NodeProto*> seen{&target};
  for (std::vector<const NodeProto*> stack{&target}; !stack.empty();) {
    const NodeProto* node = stack.back();
    stack.pop_back();
    needed.push_back(node);
    if (IsDefaultOp(*node, "Constant") || HasStaticShapeValue(builder_, *node)) continue;
    for (const std::string& input : node->input()) {
      if (input.empty() || Computed(input)) continue;
      const NodeProto* producer = NodeBefore(input);
      if (producer && seen.insert(producer).second) stack.push_back(producer);
    }
  }
  std::sort(needed.begin(), needed.end(),
            [&](const NodeProto* a, const NodeProto* b) { return Position(*a) < Position(*b); });
  for (const NodeProto* node : needed) {
    if (!ComputeNode(*node)) {
      // Everything downstream needs this node: stop here.
      for (const auto* outputs : {&node->output(), &target.output()})
        for (const std::string& output : *outputs)
          if (!computed_.find(output)) computed_.set(output, nullptr);
      return;
    }
  }
}

bool GraphGraph::ComputeNode(const NodeProto& node) {
  if (std::all_of(node.output().begin(), node.output().end(),
                  [&](const std::string& output) { return output.empty() || Computed(output); }))
    return true;
  std::vector<std::unique_ptr<TensorProto>> results;
  if (IsDefaultOp(node, "Constant")) {
    std::optional<TensorProto> value = ir::ConstantNodeValue(node);
    if (!value) return false;
    results.push_back(std::make_unique<TensorProto>(std::move(*value)));
  } else if (HasStaticShapeValue(builder_, node)) {
    results.push_back(std::make_unique<TensorProto>(*StaticShapeValue(builder_, node)));
  } else {
    eval::ValueMap known;
    for (const std::string& input : node.input()) {
      if (input.empty() || known.contains(input)) continue;
      const TensorProto* value = GetComputedConstant(input);
      if (!value) return false;
      known.insert_or_assign(input, eval::Tensor::FromProto(*value));
    }
    const std::uint64_t left = ComputedBytesLeft();
    if (left == 0) return false;  // the allowance of computed values is spent
    try {
      // What patterns inspect is computed within constant folding's limit, and what is left
      // of the allowance of computed values (checked below with the protos' overhead).
      ir::ScopedTensorLimit limit(std::min(options_.fold.max_output_bytes, left), kFoldingLimitName);
      eval::ScopedWorkBudget work(*evaluation_budget_);
      eval::RunNodes(builder_.OpsetImports(), builder_.Functions(), {&node}, known);
    } catch (const ModelError&) {
      return false;  // the kernel rejects the inputs: not computable, not our error
    }
    for (const std::string& output : node.output()) {
      if (output.empty()) {
        results.push_back(nullptr);
        continue;
      }
      auto it = known.find(output);
      const eval::Tensor* tensor = it == known.end() ? nullptr : std::get_if<eval::Tensor>(&it->second);
      if (!tensor || tensor->ByteSize() > options_.fold.max_output_bytes) return false;
      results.push_back(std::make_unique<TensorProto>(tensor->ToProto(output)));
    }
  }
  if (results.size() != static_cast<std::size_t>(node.output_size())) return false;
  std::uint64_t bytes = 0;
  for (const auto& result : results)
    if (result) bytes += static_cast<std::uint64_t>(result->ByteSizeLong());
  if (bytes > ComputedBytesLeft()) return false;  // their allowance is spent (FoldOptions::max_computed_bytes)
  *computed_bytes_ += bytes;
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i]) computed_.set(node.output(static_cast<int>(i)), std::move(results[i]));
  return true;
}

std::string GraphGraph::MakeInitializer(std::string_view name_prefix, TensorProto value) {
  const std::string name = builder_.UniqueName(name_prefix);
  value.set_name(name);
  TensorProto* added = builder_.Initializers().Add();
  *added = std::move(value);
  // A stale index is rebuilt whole on its next use, this initializer included: building it
  // here would cost a walk over the graph per call (graph passes edit with it stale).
  if (!index_stale_) {
    initializers_.emplace(added->name(), added);
    if (ValueUses* uses = FindUses(added->name())) uses->initializer = added;
  }
  return name;
}

}  // namespace onnxopt::core::builder
