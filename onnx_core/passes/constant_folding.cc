#include "onnx_core/passes/constant_folding.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/eval/undefined_results.h"
#include "onnx_core/ir/constant_values.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::builder {

struct ConstantSources {
  // What one name is in the graph: one lookup per input name tells all.
  struct Value {
    const TensorProto* initializer = nullptr;
    const SparseTensorProto* sparse_initializer = nullptr;
    const NodeProto* constant_node = nullptr;
    bool graph_input = false;  // never constant: a caller may override it
    bool IsConstant() const { return initializer || sparse_initializer || constant_node; }
  };

  explicit ConstantSources(const GraphBuilder& builder);

  std::unordered_map<std::string, Value> values;
  std::optional<std::unordered_set<std::string>> nested_definitions;  // ir::NestedDefinitions, when needed
};

ConstantSources::ConstantSources(const GraphBuilder& builder) {
  for (const TensorProto& init : builder.Initializers()) {
    Value& source = values[init.name()];
    if (!source.initializer) source.initializer = &init;
  }
  for (const SparseTensorProto& init : builder.Graph().sparse_initializer()) {
    Value& source = values[init.values().name()];
    if (!source.sparse_initializer) source.sparse_initializer = &init;
  }
  for (const ValueInfoProto& input : builder.Inputs()) values[input.name()].graph_input = true;
  for (const NodeProto& node : builder.Nodes())
    if (node.op_type() == "Constant" && IsOnnxDomain(node.domain()) && node.output_size() == 1) {
      Value& source = values[node.output(0)];
      if (!source.constant_node) source.constant_node = &node;
    }
}

EnclosingConstants::EnclosingConstants(const GraphBuilder& graph, const EnclosingConstants* outer)
    : graph_(graph), outer_(outer) {}

EnclosingConstants::~EnclosingConstants() = default;

const ConstantSources* EnclosingConstants::Find(const GraphBuilder& graph) const {
  if (&graph != &graph_) return outer_ ? outer_->Find(graph) : nullptr;
  if (!sources_) sources_ = std::make_unique<ConstantSources>(graph_);
  return sources_.get();
}

namespace {

using eval::Tensor;
using eval::Value;
using eval::ValueMap;

std::string Label(const NodeProto& node) {
  std::string name = node.name();
  if (name.empty() && node.output_size() > 0) name = node.output(0);
  return name + " (" + node.op_type() + ")";
}

// Bytes a tensor takes once stored as an initializer (string lengths for STRING).
std::uint64_t StoredBytes(const Tensor& tensor) {
  if (tensor.elem_type() != TensorProto::STRING) return tensor.ByteSize();
  std::uint64_t bytes = 0;
  const std::string* data = tensor.Data<std::string>();
  for (std::int64_t i = 0; i < tensor.size(); ++i) bytes += data[i].size();
  return bytes;
}

// Bytes of a node output that inference knows statically (element type and every dim),
// as StoredBytes would count them; UINT64_MAX when the size overflows; nullopt when
// not known before running the kernel (or a STRING, whose size depends on the strings).
std::optional<std::uint64_t> InferredOutputBytes(const GraphBuilder& builder, const std::string& output) {
  const shapes::SymTensor* inferred = builder.GetShape(output);
  if (!inferred || inferred->kind != shapes::SymTensor::Kind::kTensor || !inferred->shape.HasRank() ||
      !inferred->shape.IsStatic())
    return std::nullopt;
  const std::size_t element_bytes = eval::StorageBytes(inferred->elem_type);
  if (element_bytes == 0) return std::nullopt;
  std::vector<std::int64_t> dims;
  for (const shapes::SymDim& dim : inferred->shape.Dims()) dims.push_back(*dim.Constant());
  const std::optional<std::int64_t> count = ir::ElementCount(dims);
  std::uint64_t bytes = 0;
  if (!count || __builtin_mul_overflow(static_cast<std::uint64_t>(*count), element_bytes, &bytes)) return UINT64_MAX;
  return bytes;
}

class Folder {
 public:
  Folder(const FoldOptions& options, FoldResult& result, const EnclosingConstants* enclosing = nullptr,
         eval::WorkBudget* budget = nullptr)
      : options_(options), result_(result), enclosing_(enclosing), budget_(budget) {
    if (!budget_) budget_ = &own_budget_.emplace(options.max_work_steps, kFoldingWorkBudgetName);
  }

  // Folds `nodes` of `builder`'s graph, in order, then removes the folded ones.
  void FoldGraph(GraphBuilder& builder, const std::vector<const NodeProto*>& nodes) {
    // Folding appends the initializers it makes.
    const int first_added = builder.Initializers().size();
    std::unordered_set<const NodeProto*> folded;
    for (const NodeProto* node : nodes) {
      if (!FoldNode(builder, *node)) continue;
      folded.insert(node);
      result_.folded_node_addresses.push_back(node);
    }
    if (folded.empty()) return;
    KeepIf(builder.Nodes(), [&](const NodeProto& node) { return !folded.contains(&node); });
    std::vector<const TensorProto*> added;
    for (int i = first_added; i < builder.Initializers().size(); ++i) added.push_back(&builder.Initializers().Get(i));
    builder.AddKnowledgeOfFoldedConstants(added);
  }

  void FoldAll(GraphBuilder& builder) {
    std::vector<const NodeProto*> nodes;
    for (const NodeProto& node : builder.Nodes()) nodes.push_back(&node);
    FoldGraph(builder, nodes);
    for (GraphBuilder* nested : builder.Subgraphs()) FoldAll(*nested);
  }

 private:
  // The sources of a graph this folder folds, which folding edits.
  ConstantSources& Index(const GraphBuilder& builder) {
    auto it = indexes_.find(&builder);
    if (it == indexes_.end()) it = indexes_.emplace(&builder, std::make_unique<ConstantSources>(builder)).first;
    return *it->second;
  }

  // The sources of `graph`: an enclosing graph's from `enclosing_` when given.
  const ConstantSources& Sources(const GraphBuilder& graph) {
    if (enclosing_)
      if (const ConstantSources* sources = enclosing_->Find(graph)) return *sources;
    return Index(graph);
  }

  // The graph (this one or an enclosing one) where `name` is a constant; null otherwise.
  const ConstantSources* ConstantScope(const GraphBuilder& builder, const std::string& name) {
    for (const GraphBuilder* graph = &builder; graph != nullptr; graph = graph->Parent()) {
      const ConstantSources& index = Sources(*graph);
      auto it = index.values.find(name);
      if (it == index.values.end()) continue;
      if (it->second.graph_input) return nullptr;
      if (it->second.IsConstant()) return &index;
    }
    return nullptr;
  }

  // The constant's value; throws ModelError when it cannot be read (external data, data
  // that does not match the shape, a sparse tensor too large to make dense).
  Tensor ConstantValue(const ConstantSources& index, const std::string& name) {
    if (auto it = cache_.find(name); it != cache_.end()) return it->second;
    Tensor tensor;
    const ConstantSources::Value& source = index.values.at(name);
    if (source.initializer) {
      tensor = Tensor::FromProto(*source.initializer);
    } else if (source.sparse_initializer) {
      tensor = Tensor::FromSparseProto(*source.sparse_initializer);
    } else {
      std::optional<TensorProto> proto = ir::ConstantNodeValue(*source.constant_node);
      if (!proto) throw ModelError("invalid Constant node");
      tensor = Tensor::FromProto(*proto);
    }
    Remember(name, tensor);
    return tensor;
  }

  // Keeps `value` for the next reads of `name` when it is small (kMaxCachedBytes); a larger
  // one is converted again when needed rather than kept twice in memory.
  void Remember(const std::string& name, const Tensor& value) {
    if (StoredBytes(value) <= kMaxCachedBytes) cache_.insert_or_assign(name, value);
  }

  void Skip(const NodeProto& node, const std::string& reason) { result_.skipped.push_back(Label(node) + ": " + reason); }

  // Why an output of `bytes` bytes computed from `input_bytes` bytes of inputs is not
  // materialized; nullopt when it may be.
  std::optional<std::string> OutputSizeProblem(std::uint64_t bytes, std::uint64_t input_bytes) const {
    if (bytes > options_.max_output_bytes) return "output of " + std::to_string(bytes) + " bytes exceeds the limit";
    if (bytes > options_.growth_free_bytes && bytes > 2 * input_bytes)
      return "output of " + std::to_string(bytes) + " bytes computed from " + std::to_string(input_bytes) +
             " bytes of inputs would grow the model";
    return std::nullopt;
  }

  // The same for the outputs whose size inference knows, before running the kernel: a
  // ConstantOfShape of [2e9] is never computed only to be thrown away.
  std::optional<std::string> InferredOutputSizeProblem(const GraphBuilder& builder, const NodeProto& node,
                                                       std::uint64_t input_bytes) const {
    for (const std::string& output : node.output()) {
      if (output.empty()) continue;
      if (const std::optional<std::uint64_t> bytes = InferredOutputBytes(builder, output))
        if (std::optional<std::string> problem = OutputSizeProblem(*bytes, input_bytes))
          return *problem + " (size of the inferred shape)";
    }
    return std::nullopt;
  }

  // Replaces `node` by initializers holding `outputs`, when they fit the size limits
  // (`input_bytes`: what its inputs take).
  bool Commit(GraphBuilder& builder, const NodeProto& node, const std::vector<const Tensor*>& outputs,
              std::uint64_t input_bytes) {
    for (const Tensor* output : outputs) {
      if (!output) continue;
      if (std::optional<std::string> problem = OutputSizeProblem(StoredBytes(*output), input_bytes)) {
        Skip(node, *problem);
        return false;
      }
    }
    ConstantSources& index = Index(builder);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (!outputs[i]) continue;
      // An initializer is visible in every nested graph of its graph: one that defines
      // this name itself (allowed before, when it came after the node) would shadow it.
      if (!index.nested_definitions) index.nested_definitions = ir::NestedDefinitions(builder.Graph());
      if (index.nested_definitions->contains(node.output(static_cast<int>(i)))) {
        Skip(node, "a nested graph defines '" + node.output(static_cast<int>(i)) + "' too");
        return false;
      }
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (!outputs[i]) continue;
      const std::string& name = node.output(static_cast<int>(i));
      TensorProto* init = builder.Initializers().Add();
      *init = outputs[i]->ToProto(name);
      index.values[name].initializer = init;
      Remember(name, *outputs[i]);
      result_.added_initializers.push_back(name);
    }
    ++result_.folded_nodes;
    result_.folded.push_back(Label(node));
    return true;
  }

  // Shape/Size of a value whose shape inference knows statically.
  bool FoldStaticShape(GraphBuilder& builder, const NodeProto& node) {
    std::optional<TensorProto> value = StaticShapeValue(builder, node);
    if (!value) return false;
    const Tensor result = Tensor::FromProto(*value);
    return Commit(builder, node, {&result}, 0);
  }

  bool FoldNode(GraphBuilder& builder, const NodeProto& node) {
    if (node.op_type() == "Constant" && IsOnnxDomain(node.domain())) return false;
    std::vector<const ConstantSources*> scopes;
    for (const std::string& input : node.input()) {
      if (input.empty()) continue;
      const ConstantSources* scope = ConstantScope(builder, input);
      if (!scope) return FoldStaticShape(builder, node);
      scopes.push_back(scope);
    }
    if (HasSubgraph(node)) {
      Skip(node, "the node holds a graph");
      return false;
    }
    if (KeepsQuantizedInput(node, options_)) {
      Skip(node, "a DequantizeLinear keeps its quantized input (FoldOptions::fold_dequantize_linear, "
                 "onnxopt optimize --fold-dequantize)");
      return false;
    }
    if (eval::IsNondeterministicOp(node.domain(), node.op_type())) {
      Skip(node, "the operator is nondeterministic");
      return false;
    }
    if (!eval::FindKernel(node.domain(), node.op_type())) {
      Skip(node, "no kernel for the operator");
      return false;
    }
    ValueMap known;
    try {
      std::size_t next = 0;
      for (const std::string& input : node.input()) {
        if (input.empty()) continue;
        const ConstantSources* scope = scopes[next++];
        if (!known.contains(input)) known.insert_or_assign(input, ConstantValue(*scope, input));
      }
    } catch (const ModelError& error) {
      Skip(node, std::string("an input cannot be read: ") + error.what());
      return false;
    }
    std::uint64_t input_bytes = 0;
    for (const std::string& input : node.input())
      if (const Tensor* tensor = input.empty() ? nullptr : std::get_if<Tensor>(&known.at(input)))
        input_bytes += StoredBytes(*tensor);
    if (std::optional<std::string> problem = InferredOutputSizeProblem(builder, node, input_bytes)) {
      Skip(node, *problem);
      return false;
    }
    // Whatever inference knows, no tensor above the limit is computed (an output whose
    // shape depends on values inference did not know, a large intermediate).
    ir::ScopedTensorLimit limit(options_.max_output_bytes, kFoldingLimitName);
    eval::ScopedWorkBudget work(*budget_);
    eval::ScopedUndefinedResults undefined;
    try {
      eval::RunNodes(builder.OpsetImports(), builder.Functions(), {&node}, known);
    } catch (const ModelError& error) {
      if (const std::optional<std::uint64_t> refused = limit.refused_bytes())
        Skip(node, "the kernel needs a tensor of " +
                       (*refused == UINT64_MAX ? std::string("more than 2^64") : std::to_string(*refused)) +
                       " bytes, above the limit");
      else if (const std::optional<double> steps = work.refused_steps())
        Skip(node, "the kernel needs " + std::to_string(static_cast<std::uint64_t>(*steps)) +
                       " steps, more than the " + std::to_string(budget_->limit() - budget_->spent()) +
                       " left of " + std::string(budget_->name()) + " of " + std::to_string(budget_->limit()) +
                       " (FoldOptions::max_work_steps, onnxopt optimize --fold-work-limit)");
      else
        Skip(node, std::string("the kernel failed: ") + error.what());
      return false;
    }
    // The evaluator's value is one choice among those runtimes make: the node stays.
    if (undefined.first()) {
      Skip(node, "the spec leaves the result undefined (" + *undefined.first() + ")");
      return false;
    }
    std::vector<const Tensor*> outputs;
    for (const std::string& output : node.output()) {
      if (output.empty()) {
        outputs.push_back(nullptr);
        continue;
      }
      auto it = known.find(output);
      const Tensor* tensor = it == known.end() ? nullptr : std::get_if<Tensor>(&it->second);
      if (!tensor) {
        Skip(node, "output '" + output + "' is not a tensor");
        return false;
      }
      outputs.push_back(tensor);
    }
    return Commit(builder, node, outputs, input_bytes);
  }

  const FoldOptions& options_;
  FoldResult& result_;
  const EnclosingConstants* enclosing_;
  std::optional<eval::WorkBudget> own_budget_;  // when the caller gives none
  eval::WorkBudget* budget_;
  std::unordered_map<const GraphBuilder*, std::unique_ptr<ConstantSources>> indexes_;
  // The values read or computed so far, up to kMaxCachedBytes each: the constants read
  // many times are small (shapes, axes, scalars), where converting costs more than the
  // copy; a weight is mostly read once (a Transpose or Cast of it), and converting it
  // again is one copy. Caching every value up to max_output_bytes kept each weight of the
  // 400-layer decoder that folding transposes, and its transpose, to the end of the pass.
  static constexpr std::uint64_t kMaxCachedBytes = 4096;
  std::unordered_map<std::string, Tensor> cache_;
};

}  // namespace

namespace {

// The static dims of the input of a Shape or Size node whose value they give; nullopt
// otherwise, also for a Size whose element count overflows int64 (the model's shapes
// are inconsistent: left to the kernel).
std::optional<std::vector<std::int64_t>> StaticShapeOperand(const GraphBuilder& builder, const NodeProto& node) {
  if (!IsOnnxDomain(node.domain()) || (node.op_type() != "Shape" && node.op_type() != "Size")) return std::nullopt;
  if (node.input_size() != 1 || node.output_size() != 1 || node.output(0).empty()) return std::nullopt;
  const shapes::SymTensor* input = builder.GetShape(node.input(0));
  if (!input || input->kind != shapes::SymTensor::Kind::kTensor || !input->shape.HasRank() ||
      !input->shape.IsStatic())
    return std::nullopt;
  std::vector<std::int64_t> dims;
  for (const shapes::SymDim& dim : input->shape.Dims()) dims.push_back(*dim.Constant());
  if (node.op_type() == "Size" && !ir::ElementCount(dims)) return std::nullopt;
  return dims;
}

}  // namespace

bool KeepsQuantizedInput(const NodeProto& node, const FoldOptions& options) {
  return !options.fold_dequantize_linear && node.op_type() == "DequantizeLinear";
}

bool HasStaticShapeValue(const GraphBuilder& builder, const NodeProto& node) {
  return StaticShapeOperand(builder, node).has_value();
}

std::optional<TensorProto> StaticShapeValue(const GraphBuilder& builder, const NodeProto& node) {
  const std::optional<std::vector<std::int64_t>> dims = StaticShapeOperand(builder, node);
  if (!dims) return std::nullopt;
  TensorProto tensor;
  tensor.set_name(node.output(0));
  tensor.set_data_type(TensorProto::INT64);
  if (node.op_type() == "Size") {
    tensor.add_int64_data(*ir::ElementCount(*dims));
    return tensor;
  }
  const auto rank = static_cast<std::int64_t>(dims->size());
  std::int64_t start = 0, end = rank;
  for (const AttributeProto& attr : node.attribute()) {
    if (attr.name() == "start") start = attr.i();
    if (attr.name() == "end") end = attr.i();
  }
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<std::int64_t>(start, 0, rank);
  end = std::clamp<std::int64_t>(end, start, rank);
  tensor.add_dims(end - start);
  for (std::int64_t i = start; i < end; ++i) tensor.add_int64_data((*dims)[static_cast<std::size_t>(i)]);
  return tensor;
}

std::string FoldResult::ToString() const {
  std::string text = "folded " + std::to_string(folded_nodes) + " nodes, added " +
                     std::to_string(added_initializers.size()) + " initializers, skipped " +
                     std::to_string(skipped.size()) + " nodes\n";
  for (const std::string& line : folded) text += "  folded " + line + "\n";
  for (const std::string& line : skipped) text += "  skipped " + line + "\n";
  return text;
}

FoldResult FoldConstants(GraphBuilder& builder, const FoldOptions& options) {
  FoldResult result;
  Folder(options, result).FoldAll(builder);
  return result;
}

FoldResult FoldNodes(GraphBuilder& builder, const std::vector<const NodeProto*>& nodes, const FoldOptions& options,
                     const EnclosingConstants* enclosing, eval::WorkBudget* budget) {
  FoldResult result;
  Folder(options, result, enclosing, budget).FoldGraph(builder, nodes);
  return result;
}

}  // namespace onnxopt::core::builder
