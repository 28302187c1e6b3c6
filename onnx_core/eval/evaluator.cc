#include "onnx_core/eval/evaluator.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/buffer_recycling.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/ir/constant_values.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/local_functions.h"
#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::eval {

namespace {

using ir::IsOnnxDomain;
using OpsetImports = google::protobuf::RepeatedPtrField<OperatorSetIdProto>;
using Functions = google::protobuf::RepeatedPtrField<FunctionProto>;
using Nodes = google::protobuf::RepeatedPtrField<NodeProto>;

// Calls of local functions nested deeper than this are refused: a chain of calls uses
// the C++ stack.
constexpr std::uint64_t kMaxFunctionDepth = 32;
// Nodes that the calls of local functions may run in one evaluation (nodes of their
// bodies, nested calls expanded): 40 functions each calling the next twice would run
// 2^40 nodes. Real models stay far below (a LLaMA-70B export with one function per
// layer runs about 10^5).
constexpr std::uint64_t kMaxFunctionNodes = 1'000'000;

// The limits above, once hit: the message names the outermost call and RunNode passes it
// on without prefixing one node label per level of calls.
class FunctionLimitError : public ModelError {
 public:
  using ModelError::ModelError;
};

// The node's name, or its first output's when it has none.
std::string NodeName(const NodeProto& node) {
  if (node.name().empty() && node.output_size() > 0) return node.output(0);
  return node.name();
}

std::string NodeLabel(const NodeProto& node) { return "node '" + NodeName(node) + "' (" + node.op_type() + ")"; }

std::string DomainLabel(std::string_view domain) { return IsOnnxDomain(domain) ? "ai.onnx" : std::string(domain); }

// The values visible while running one graph: its own (graph inputs, initializers
// converted on first use, node outputs) and, through `parent`, the enclosing scopes'.
class Frame {
 public:
  explicit Frame(Frame* parent = nullptr) : values_(&owned_), parent_(parent) {}
  explicit Frame(ValueMap& external) : values_(&external) {}
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;

  void AddInitializers(const GraphProto& graph) {
    for (const TensorProto& init : graph.initializer()) lazy_.try_emplace(init.name(), &init);
    for (const SparseTensorProto& init : graph.sparse_initializer()) lazy_.try_emplace(init.values().name(), &init);
  }
  // The value of `name` here or in an enclosing scope; null when none has it.
  const Value* Find(std::string_view name) {
    if (auto it = values_->find(name); it != values_->end()) return &it->second;
    if (auto it = lazy_.find(name); it != lazy_.end()) {
      const Initializer initializer = it->second;
      lazy_.erase(it);
      const auto& [init_name, tensor] = Convert(initializer);
      return &values_->insert_or_assign(init_name, Value(tensor)).first->second;
    }
    return parent_ ? parent_->Find(name) : nullptr;
  }
  void Set(const std::string& name, Value value) {
    lazy_.erase(name);
    values_->insert_or_assign(name, std::move(value));
  }
  // The values of this scope (not the enclosing ones).
  const ValueMap& Own() const { return *values_; }
  // Frees a value of this scope (and forgets an unconverted initializer of that name).
  void Erase(std::string_view name) {
    if (auto it = values_->find(name); it != values_->end()) values_->erase(it);
    lazy_.erase(name);
  }

 private:
  using Initializer = std::variant<const TensorProto*, const SparseTensorProto*>;

  // The initializer's name and value.
  static std::pair<const std::string&, Tensor> Convert(const Initializer& initializer) {
    if (const auto* dense = std::get_if<const TensorProto*>(&initializer))
      return {(*dense)->name(), Tensor::FromProto(**dense)};
    const SparseTensorProto& sparse = *std::get<const SparseTensorProto*>(initializer);
    return {sparse.values().name(), Tensor::FromSparseProto(sparse)};
  }

  ValueMap owned_;
  ValueMap* values_;
  std::unordered_map<std::string_view, Initializer> lazy_;  // views of the protos' names
  Frame* parent_ = nullptr;
};

// Where nodes run: the opset imports binding their operators.
struct Scope {
  const OpsetImports* opsets = nullptr;
  const OpsetImports* fallback = nullptr;  // the model's, for domains a function does not import
  std::uint64_t function_depth = 0;

  std::int64_t Version(std::string_view domain) const {
    if (auto version = ir::FindOpsetVersion(*opsets, domain)) return *version;
    if (fallback)
      if (auto version = ir::FindOpsetVersion(*fallback, domain)) return *version;
    return 0;
  }
};

class Evaluator;

class Context final : public KernelContext {
 public:
  Context(Evaluator& evaluator, const NodeProto& node, const Scope& scope, Frame& frame, std::vector<Value> inputs)
      : evaluator_(evaluator), node_(node), scope_(scope), frame_(frame), inputs_(std::move(inputs)) {}

  const NodeProto& Node() const override { return node_; }
  std::int64_t OpsetVersion() const override { return scope_.Version(node_.domain()); }
  const Value& Input(std::size_t i) const override {
    static const Value kNone;
    return i < inputs_.size() ? inputs_[i] : kNone;
  }
  std::vector<Value> RunSubgraph(std::string_view attribute, const std::vector<Value>& inputs) override;

 private:
  Evaluator& evaluator_;
  const NodeProto& node_;
  const Scope& scope_;
  Frame& frame_;
  std::vector<Value> inputs_;
};

class Evaluator {
 public:
  Evaluator(const OpsetImports& opsets, const Functions& functions,
            std::uint64_t max_nested_node_runs = RunOptions{}.max_nested_node_runs)
      : opsets_(opsets),
        functions_(functions),
        expansions_([this](const NodeProto& node) {
          return FindKernel(node.domain(), node.op_type()) ? nullptr : FindFunction(node);
        }),
        max_nested_node_runs_(max_nested_node_runs) {}

  Scope MainScope() const { return Scope{&opsets_, nullptr, 0}; }

  // Runs `nodes` in `frame`. When `keep` is given, frees every value of the frame after
  // its last use, except the names in `keep`. `options` (main graph only) asks for
  // in-place writes and memory measures.
  void RunSequence(const Nodes& nodes, Frame& frame, const Scope& scope,
                   const std::unordered_set<std::string>* keep, const RunOptions* options = nullptr,
                   RunStats* stats = nullptr) {
    std::unordered_map<std::string, int> last_use;
    if (keep) {
      for (int i = 0; i < nodes.size(); ++i) {
        const NodeProto& node = nodes.Get(i);
        for (const std::string& input : node.input())
          if (!input.empty()) last_use[input] = i;
        if (ir::HasSubgraph(node))
          for (const std::string& read : ir::SubgraphReads(node)) last_use[read] = i;
        for (const std::string& output : node.output())
          if (!output.empty()) last_use.try_emplace(output, i);
      }
    }
    std::vector<std::vector<const std::string*>> frees(keep ? static_cast<std::size_t>(nodes.size()) : 0);
    if (keep)
      for (const auto& [name, index] : last_use)
        if (!keep->contains(name)) frees[static_cast<std::size_t>(index)].push_back(&name);
    for (int i = 0; i < nodes.size(); ++i) {
      if (scope.function_depth > 0) CountFunctionNode();
      const NodeProto& node = nodes.Get(i);
      std::optional<int> in_place;
      if (options && keep)
        if (auto it = options->in_place_inputs.find(i); it != options->in_place_inputs.end()) {
          // Only a value read for the last time here can give its buffer away.
          const std::string& input = it->second < node.input_size() ? node.input(it->second) : std::string();
          auto use = last_use.find(input);
          if (!input.empty() && use != last_use.end() && use->second == i && !keep->contains(input))
            in_place = it->second;
        }
      RunNode(node, frame, scope, in_place, stats);
      // Measured with the node's inputs and outputs both alive: where running in place
      // saves a buffer.
      if (stats && options && options->measure_memory)
        stats->peak_live_bytes = std::max(stats->peak_live_bytes, LiveBytes(frame));
      if (keep)
        for (const std::string* name : frees[static_cast<std::size_t>(i)]) frame.Erase(*name);
    }
  }

  // Bytes of the distinct numeric buffers held by the frame's own values.
  static std::int64_t LiveBytes(const Frame& frame) {
    std::unordered_set<const std::byte*> seen;
    std::int64_t bytes = 0;
    for (const auto& [name, value] : frame.Own()) {
      const auto* tensor = std::get_if<Tensor>(&value);
      if (tensor == nullptr || tensor->elem_type() == TensorProto::STRING || tensor->ByteSize() == 0) continue;
      if (seen.insert(tensor->RawData()).second) bytes += static_cast<std::int64_t>(tensor->ByteSize());
    }
    return bytes;
  }

  void RunNodeList(const std::vector<const NodeProto*>& nodes, Frame& frame) {
    const Scope scope = MainScope();
    for (const NodeProto* node : nodes) RunNode(*node, frame, scope);
  }

  // Runs a nested graph in a scope nested in `parent`.
  std::vector<Value> RunGraph(const GraphProto& graph, Frame& parent, const Scope& scope,
                              const std::vector<Value>& inputs) {
    if (inputs.size() != static_cast<std::size_t>(graph.input_size()))
      throw ModelError("the graph '" + graph.name() + "' takes " + std::to_string(graph.input_size()) +
                       " inputs, " + std::to_string(inputs.size()) + " given");
    // Counted before the run: a body of many nodes is refused whole, an empty one still counts.
    // So do the sequences passed in, element by element: the body gets copies of them (and
    // a SequenceInsert copies its input again), so a Loop carrying a sequence that grows by
    // one element an iteration copied n^2 / 2 elements in n iterations (2^15: 34 s).
    std::uint64_t sequence_elements = 0;
    for (const Value& input : inputs)
      if (const auto* sequence = std::get_if<Sequence>(&input)) sequence_elements += sequence->size();
    const std::uint64_t runs = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(graph.node_size())) +
                               sequence_elements / kSequenceElementsPerNodeRun;
    if (runs > max_nested_node_runs_ - nested_node_runs_)
      throw ModelError("the nested graphs (If branches, Loop and Scan bodies) would run more than " +
                       std::to_string(max_nested_node_runs_) + " nodes in one evaluation (" +
                       std::to_string(nested_node_runs_) + " run so far" +
                       (sequence_elements > 0 ? ", " + std::to_string(kSequenceElementsPerNodeRun) +
                                                    " elements of a sequence passed in counting as one"
                                              : std::string()) +
                       "); a loop that never ends, or loops nested in loops, do that");
    nested_node_runs_ += runs;
    Frame frame(&parent);
    frame.AddInitializers(graph);
    for (int i = 0; i < graph.input_size(); ++i) frame.Set(graph.input(i).name(), inputs[static_cast<std::size_t>(i)]);
    std::unordered_set<std::string> keep;
    for (const ValueInfoProto& output : graph.output()) keep.insert(output.name());
    RunSequence(graph.node(), frame, scope, &keep);
    std::vector<Value> outputs;
    for (const ValueInfoProto& output : graph.output()) {
      const Value* value = frame.Find(output.name());
      if (!value) throw ModelError("the graph '" + graph.name() + "' computes no value for its output '" + output.name() + "'");
      outputs.push_back(*value);
    }
    return outputs;
  }

 private:
  void RunNode(const NodeProto& node, Frame& frame, const Scope& scope, std::optional<int> in_place = std::nullopt,
               RunStats* stats = nullptr) {
    std::vector<Value> outputs;
    if (node.op_type() == "Constant" && IsOnnxDomain(node.domain()) && node.input_size() == 0) {
      try {
        if (const SparseTensorProto* sparse = ir::SparseConstantValue(node)) {
          outputs.emplace_back(Tensor::FromSparseProto(*sparse));
        } else {
          std::optional<TensorProto> value = ir::ConstantNodeValue(node);
          if (!value) throw ModelError("invalid Constant");
          outputs.emplace_back(Tensor::FromProto(*value));
        }
      } catch (const ModelError& error) {
        throw ModelError(NodeLabel(node) + ": " + error.what());
      }
    } else {
      std::vector<Value> inputs;
      inputs.reserve(static_cast<std::size_t>(node.input_size()));
      for (const std::string& input : node.input()) {
        if (input.empty()) {
          inputs.emplace_back();
          continue;
        }
        const Value* value = frame.Find(input);
        if (!value) throw ModelError(NodeLabel(node) + ": input '" + input + "' has no value");
        inputs.push_back(*value);
      }
      Context context(*this, node, scope, frame, std::move(inputs));
      try {
        if (const Kernel* kernel = FindKernel(node.domain(), node.op_type())) {
          outputs = (*kernel)(context);
        } else if (const FunctionProto* function = FindFunction(node)) {
          outputs = CallFunction(context, *function, scope);
        } else {
          throw ModelError("no kernel for " + node.op_type() + " (" + DomainLabel(node.domain()) + ") in node '" +
                           NodeName(node) + "'");
        }
      } catch (const FunctionLimitError&) {
        throw;
      } catch (const ModelError& error) {
        const std::string message = error.what();
        if (message.starts_with("no kernel for ") || message.starts_with(NodeLabel(node))) throw;
        throw ModelError(NodeLabel(node) + ": " + message);
      } catch (const BuilderError& error) {
        // A kernel bug (e.g. asking for the wrong storage type): name the node, keep the call site.
        std::string message = error.what();
        if (message.starts_with("node '")) throw;
        if (const std::size_t at = message.rfind(" [at "); at != std::string::npos) message.resize(at);
        throw BuilderError(NodeLabel(node) + ": " + message, error.where());
      }
    }
    if (outputs.size() < static_cast<std::size_t>(node.output_size()))
      throw BuilderError(NodeLabel(node) + ": the kernel returned " + std::to_string(outputs.size()) +
                         " values for " + std::to_string(node.output_size()) + " outputs");
    if (in_place && !outputs.empty()) {
      const bool written = WriteIntoInput(node, *in_place, frame, outputs[0]);
      if (stats) ++(written ? stats->in_place_writes : stats->in_place_refused);
    }
    for (int i = 0; i < node.output_size(); ++i)
      if (!node.output(i).empty()) frame.Set(node.output(i), std::move(outputs[static_cast<std::size_t>(i)]));
  }

  // Puts `output` into the buffer of the node's input `input`, which the frame holds for
  // the last time (the caller checked): the input's value leaves the frame and its buffer
  // receives the result. Tensors copy on write, so a buffer that something else still
  // shares (a caller's input, a view) is copied instead: false, and the result is the same.
  static bool WriteIntoInput(const NodeProto& node, int input, Frame& frame, Value& output) {
    if (input < 0 || input >= node.input_size() || node.input(input).empty()) return false;
    const std::string& name = node.input(input);
    auto* result = std::get_if<Tensor>(&output);
    auto held = frame.Own().find(name);
    if (!result || held == frame.Own().end()) return false;
    const auto* source = std::get_if<Tensor>(&held->second);
    if (!source || source->elem_type() != result->elem_type() || source->size() != result->size() ||
        source->elem_type() == TensorProto::STRING || source->ByteSize() == 0)
      return false;
    Tensor target = *source;
    frame.Erase(name);
    const std::byte* buffer = target.RawData();
    std::memcpy(target.MutableRawData(), result->RawData(), result->ByteSize());
    const bool exclusive = target.RawData() == buffer;
    output = target.Reshaped(result->shape());
    return exclusive;
  }

  const FunctionProto* FindFunction(const NodeProto& node) {
    if (functions_.empty()) return nullptr;
    if (!function_index_) function_index_.emplace(functions_);
    return function_index_->Find(node);
  }

  // Runs a copy of the function's body in which the call's attributes replace the
  // references to them, in a fresh scope that sees only the formal inputs.
  std::vector<Value> CallFunction(const Context& call, const FunctionProto& function, const Scope& outer) {
    if (outer.function_depth == 0) {
      outermost_call_ = &call.Node();
      CheckExpansion(function);
    } else if (outer.function_depth >= kMaxFunctionDepth) {
      // Only where the static check cannot see: graphs that a call passes as attributes.
      throw FunctionLimitError(NodeLabel(*outermost_call_) + ": calls of local functions nest deeper than " +
                               std::to_string(kMaxFunctionDepth));
    }
    const NodeProto& node = call.Node();
    Frame frame;
    for (int i = 0; i < function.input_size(); ++i)
      if (call.HasInput(static_cast<std::size_t>(i))) frame.Set(function.input(i), call.Input(static_cast<std::size_t>(i)));
    const Nodes body = ir::InstantiateFunctionBody(function, node);
    const Scope scope{&function.opset_import(), &opsets_, outer.function_depth + 1};
    std::unordered_set<std::string> keep(function.output().begin(), function.output().end());
    RunSequence(body, frame, scope, &keep);
    std::vector<Value> outputs;
    for (int i = 0; i < node.output_size(); ++i) {
      if (node.output(i).empty()) {
        outputs.emplace_back();
        continue;
      }
      const Value* value = i < function.output_size() ? frame.Find(function.output(i)) : nullptr;
      if (!value)
        throw ModelError("the function " + function.name() + " computes no value for output " + std::to_string(i));
      outputs.push_back(*value);
    }
    return outputs;
  }

  // Refuses, before running anything, an outermost call that recursion, nesting or the
  // number of nodes it would run puts out of reach.
  void CheckExpansion(const FunctionProto& function) {
    const ir::CallExpansion& expansion = expansions_.Of(function);
    const std::string call = NodeLabel(*outermost_call_);
    if (expansion.recursive)
      throw FunctionLimitError(call + ": local function '" + expansion.recursive->name() +
                               "' calls itself (directly or through other functions); recursive calls cannot be "
                               "evaluated");
    if (expansion.depth > kMaxFunctionDepth)
      throw FunctionLimitError(call + ": calls of local functions nest " + std::to_string(expansion.depth) +
                               " deep from '" + function.name() + "', more than the limit of " +
                               std::to_string(kMaxFunctionDepth));
    if (expansion.nodes > kMaxFunctionNodes - function_nodes_run_)
      throw FunctionLimitError(call + ": calling local function '" + function.name() + "' would run " +
                               std::to_string(expansion.nodes) + " nodes once its nested calls are expanded, " +
                               "more than the " + std::to_string(kMaxFunctionNodes) +
                               " nodes that calls of local functions may run in one evaluation (" +
                               std::to_string(function_nodes_run_) + " run so far)");
  }

  // Counts a node run inside a local function; throws once the limit is passed (Loop
  // bodies, graphs that a call passes as attributes: what CheckExpansion cannot foresee).
  void CountFunctionNode() {
    if (++function_nodes_run_ <= kMaxFunctionNodes) return;
    throw FunctionLimitError(NodeLabel(*outermost_call_) + ": the calls of local functions would run more than the " +
                             std::to_string(kMaxFunctionNodes) + " nodes they may run in one evaluation");
  }

  const OpsetImports& opsets_;
  const Functions& functions_;
  std::optional<ir::LocalFunctions> function_index_;
  ir::CallExpansions expansions_;
  std::uint64_t function_nodes_run_ = 0;
  const NodeProto* outermost_call_ = nullptr;  // the call being run from a graph outside every function
  const std::uint64_t max_nested_node_runs_;
  std::uint64_t nested_node_runs_ = 0;  // RunGraph's count
};

std::vector<Value> Context::RunSubgraph(std::string_view attribute, const std::vector<Value>& inputs) {
  for (const AttributeProto& attr : node_.attribute())
    if (attr.name() == attribute && attr.has_g()) return evaluator_.RunGraph(attr.g(), frame_, scope_, inputs);
  throw ModelError("the node has no graph attribute '" + std::string(attribute) + "'");
}

}  // namespace

void CheckInputValue(const ValueInfoProto& info, const Value& value) {
  if (!info.has_type() || !info.type().has_tensor_type()) return;
  const Tensor& tensor = AsTensor(value, "input '" + info.name() + "'");
  const auto& declared = info.type().tensor_type();
  if (declared.elem_type() != 0 && declared.elem_type() != tensor.elem_type())
    throw ModelError("input '" + info.name() + "' is " + tensor.Describe() + ", declared with element type " +
                     ir::ElementTypeName(declared.elem_type()));
  if (!declared.has_shape()) return;
  const auto& dims = declared.shape().dim();
  if (static_cast<std::size_t>(dims.size()) != tensor.rank())
    throw ModelError("input '" + info.name() + "' is " + tensor.Describe() + ", declared with rank " +
                     std::to_string(dims.size()));
  for (int i = 0; i < dims.size(); ++i)
    if (dims[i].has_dim_value() && dims[i].dim_value() != tensor.shape()[static_cast<std::size_t>(i)])
      throw ModelError("input '" + info.name() + "' is " + tensor.Describe() + ", dimension " + std::to_string(i) +
                       " is declared as " + std::to_string(dims[i].dim_value()));
}

ValueMap Run(const ModelProto& model, const ValueMap& inputs) { return Run(model, inputs, RunOptions{}); }

ValueMap Run(const ModelProto& model, const ValueMap& inputs, const RunOptions& options, RunStats* stats) {
  // Opened first, so that it closes after the frame has freed the values still live.
  BufferRecycling recycling;
  const GraphProto& graph = model.graph();
  Evaluator evaluator(model.opset_import(), model.functions(), options.max_nested_node_runs);
  Frame frame;
  frame.AddInitializers(graph);
  std::unordered_set<std::string_view> declared;
  for (const ValueInfoProto& info : graph.input()) {
    declared.insert(info.name());
    auto it = inputs.find(info.name());
    if (it == inputs.end()) {
      if (!frame.Find(info.name())) throw ModelError("missing input '" + info.name() + "'");
      continue;
    }
    CheckInputValue(info, it->second);
    frame.Set(info.name(), it->second);
  }
  for (const auto& [name, value] : inputs)
    if (!declared.contains(name)) throw ModelError("'" + name + "' is not an input of the model");
  std::unordered_set<std::string> keep;
  for (const ValueInfoProto& output : graph.output()) keep.insert(output.name());
  evaluator.RunSequence(graph.node(), frame, evaluator.MainScope(), &keep, &options, stats);
  ValueMap outputs;
  for (const ValueInfoProto& output : graph.output()) {
    const Value* value = frame.Find(output.name());
    if (!value) throw ModelError("no value was computed for the graph output '" + output.name() + "'");
    outputs.insert_or_assign(output.name(), *value);
  }
  return outputs;
}

void RunNodes(const ModelProto& model, const std::vector<const NodeProto*>& nodes, ValueMap& known) {
  RunNodes(model.opset_import(), model.functions(), nodes, known);
}

void RunNodes(const google::protobuf::RepeatedPtrField<OperatorSetIdProto>& opset_imports,
              const google::protobuf::RepeatedPtrField<FunctionProto>& functions,
              const std::vector<const NodeProto*>& nodes, ValueMap& known) {
  Evaluator evaluator(opset_imports, functions);
  Frame frame(known);
  evaluator.RunNodeList(nodes, frame);
}

}  // namespace onnxopt::core::eval
