#include "onnx_core/shapes/inference.h"

#include <exception>
#include <optional>
#include <unordered_set>
#include <utility>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/constant_values.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/local_functions.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_core/shapes/shape_registry.h"
#include "onnx_core/shapes/type_constraints.h"

namespace onnxopt::core::shapes {

// --- ShapesContext -------------------------------------------------------------------

ShapesContext::ShapesContext(const ShapesContext* parent)
    : parent_(parent), shared_(parent ? parent->shared_ : std::make_shared<Shared>()) {}

ShapesContext::~ShapesContext() = default;

const SymTensor* ShapesContext::Find(std::string_view name) const {
  for (const ShapesContext* context = this; context; context = context->parent_) {
    if (const SymTensor* value = context->values_.find(name)) return value;
  }
  return nullptr;
}

ShapesContext& ShapesContext::Nested(const GraphProto& graph) {
  std::unique_ptr<ShapesContext>& nested = nested_[&graph];
  if (!nested) nested = std::make_unique<ShapesContext>(this);
  return *nested;
}

const ShapesContext* ShapesContext::FindNested(const GraphProto& graph) const {
  auto it = nested_.find(&graph);
  return it == nested_.end() ? nullptr : it->second.get();
}

std::shared_ptr<const TensorProto> ShapesContext::FindConstantShared(std::string_view name) const {
  for (const ShapesContext* context = this; context; context = context->parent_) {
    if (const auto* constant = context->constants_.find(name)) return *constant;
    // A value of an inner scope that is not constant shadows an outer one.
    if (context->values_.contains(name)) return nullptr;
  }
  return nullptr;
}

const TensorProto* ShapesContext::FindConstant(std::string_view name) const {
  return FindConstantShared(name).get();
}

void ShapesContext::SetConstant(const std::string& name, std::shared_ptr<const TensorProto> tensor) {
  if (tensor || constants_.contains(name)) constants_.set(name, std::move(tensor));
}

// Contexts that share a root's symbols and diagnostics without seeing its values: the
// body of a local function sees only its formal inputs.
struct ShapesContextAccess {
  static std::unique_ptr<ShapesContext> Isolated(const ShapesContext& root) {
    auto context = std::make_unique<ShapesContext>();
    context->shared_ = root.shared_;
    return context;
  }
};

namespace {

using ir::IsOnnxDomain;
using OpsetImports = google::protobuf::RepeatedPtrField<OperatorSetIdProto>;

// A function calling itself (directly or not) is cut here: its outputs stay unknown.
constexpr int kMaxFunctionDepth = 32;

const SymTensor& UnknownTensor() {
  static const SymTensor unknown = SymTensor::Unknown();
  return unknown;
}

std::string NodeLabel(const NodeProto& node, std::size_t index) {
  if (!node.name().empty()) return node.name();
  return "#" + std::to_string(index) + " (" + node.op_type() + ")";
}

// What a graph input (or a nested graph's output) declares; Unknown when it declares nothing.
SymTensor Declared(const ValueInfoProto& info) {
  if (!info.has_type()) return SymTensor::Unknown();
  return SymTensor::FromType(info.type());
}

std::string KindName(SymTensor::Kind kind) {
  switch (kind) {
    case SymTensor::Kind::kTensor: return "tensor";
    case SymTensor::Kind::kSequence: return "sequence";
    case SymTensor::Kind::kOptional: return "optional";
    case SymTensor::Kind::kUnknown: return "unknown";
  }
  return "unknown";
}

// Combines what is known (`known`: the caller's SymTensor, or the inferred one) with what
// the model declares: the known one wins, the declared one only fills in what is unknown
// (element type, rank, dims). A contradiction is described in `conflict` and resolved in
// favour of `known`.
SymTensor Merge(SymTensor known, const SymTensor& declared, std::string& conflict) {
  if (known.kind == SymTensor::Kind::kUnknown) return declared;
  if (declared.kind == SymTensor::Kind::kUnknown) return known;
  if (known.kind != declared.kind) {
    conflict = "is a " + KindName(known.kind) + ", declared as a " + KindName(declared.kind);
    return known;
  }
  if (!known.HasElemType()) {
    known.elem_type = declared.elem_type;
  } else if (declared.HasElemType() && declared.elem_type != known.elem_type) {
    conflict = "has element type " + std::to_string(known.elem_type) + ", declared as " +
               std::to_string(declared.elem_type);
  }
  if (!declared.shape.HasRank()) return known;
  if (!known.shape.HasRank()) {
    known.shape = declared.shape;
    return known;
  }
  if (known.shape.Rank() != declared.shape.Rank()) {
    conflict = "has shape " + known.shape.ToString() + ", declared as " + declared.shape.ToString();
    return known;
  }
  std::vector<SymDim> dims = known.shape.Dims();
  bool changed = false;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const SymDim& other = declared.shape[i];
    if (dims[i].IsUnknown()) {
      if (other.IsKnown()) {
        dims[i] = other;
        changed = true;
      }
    } else if (other.IsKnown() && SymDim::ProvablyDifferent(dims[i], other)) {
      conflict = "has shape " + known.shape.ToString() + ", declared as " + declared.shape.ToString();
    }
  }
  if (changed) known.shape = SymShape(std::move(dims));
  return known;
}

// Where a node runs: the opset imports that bind its operators and how diagnostics name it.
struct Scope {
  const OpsetImports* opsets = nullptr;    // the model's, or a function's
  const OpsetImports* fallback = nullptr;  // the model's, for domains a function does not import
  std::string label_prefix;                // "call/" inside a function body
  int function_depth = 0;
};

class Inferencer;

// What a shape function sees of one node.
class NodeContext final : public InferenceContext {
 public:
  NodeContext(Inferencer& inferencer, const NodeProto& node, std::size_t index, ShapesContext& context,
              const Scope& scope)
      : inferencer_(inferencer), node_(node), index_(index), context_(context), scope_(scope) {}

  const NodeProto& Node() const override { return node_; }
  std::int64_t OpsetVersion() const override {
    std::optional<std::int64_t> version = ir::FindOpsetVersion(*scope_.opsets, node_.domain());
    if (!version && scope_.fallback) version = ir::FindOpsetVersion(*scope_.fallback, node_.domain());
    return version.value_or(0);
  }
  const SymTensor& Input(std::size_t i) const override {
    if (!HasInput(i)) return UnknownTensor();
    const SymTensor* value = context_.Find(node_.input(static_cast<int>(i)));
    return value ? *value : UnknownTensor();
  }
  const TensorProto* ConstantInput(std::size_t i) const override {
    if (!HasInput(i)) return nullptr;
    return context_.FindConstant(node_.input(static_cast<int>(i)));
  }
  SymDim FreshSymbol() override { return context_.Symbols().Fresh(); }
  void Diagnose(std::string message) override {
    context_.Diagnostics().push_back({Label(), node_.op_type(), std::move(message)});
  }
  std::vector<SymTensor> InferSubgraph(std::string_view attribute, const std::vector<SymTensor>& inputs) override;

  std::string Label() const { return scope_.label_prefix + NodeLabel(node_, index_); }
  ShapesContext& Context() { return context_; }
  const Scope& GetScope() const { return scope_; }
  bool WasInferred(const GraphProto& graph) const { return inferred_.contains(&graph); }

 private:
  Inferencer& inferencer_;
  const NodeProto& node_;
  std::size_t index_;
  ShapesContext& context_;
  const Scope& scope_;
  std::unordered_set<const GraphProto*> inferred_;
};

class Inferencer {
 public:
  explicit Inferencer(const ModelProto& model) : model_(model) {}

  Scope ModelScope() const { return Scope{&model_.opset_import(), nullptr, "", 0}; }

  // Infers `graph` into `context`. With `seed_inputs`, the graph's inputs take their
  // declared types; otherwise the caller has set them.
  void RunGraph(const GraphProto& graph, ShapesContext& context, bool seed_inputs, const Scope& scope) {
    std::size_t outputs = 0;
    for (const NodeProto& node : graph.node()) outputs += static_cast<std::size_t>(node.output_size());
    context.Reserve(static_cast<std::size_t>(graph.input_size() + graph.initializer_size()) + outputs);
    if (seed_inputs)
      for (const ValueInfoProto& input : graph.input()) {
        if (input.name().empty()) continue;
        try {
          context.Set(input.name(), Declared(input));
        } catch (const std::exception& error) {
          context.Set(input.name(), SymTensor::Unknown());
          context.Diagnostics().push_back(
              {scope.label_prefix + "input '" + input.name() + "'", "", std::string("invalid type: ") + error.what()});
        }
      }
    std::unordered_set<std::string_view> inputs;
    if (graph.initializer_size() > 0)
      for (const ValueInfoProto& input : graph.input()) inputs.insert(input.name());
    for (const TensorProto& init : graph.initializer()) {
      // An initializer that is also an input is only a default value (IR < 4): the
      // caller may feed another one, so the declared type rules and there is no value.
      if (init.name().empty() || inputs.contains(init.name())) continue;
      RunInitializer(init, context, scope);
    }
    for (const SparseTensorProto& init : graph.sparse_initializer()) {
      const std::string& name = init.values().name();
      if (name.empty() || inputs.contains(name)) continue;
      std::vector<SymDim> dims(init.dims().begin(), init.dims().end());
      context.Set(name, SymTensor::Tensor(init.values().data_type(), SymShape(std::move(dims))));
    }
    std::size_t index = 0;
    for (const NodeProto& node : graph.node()) RunNode(node, index++, context, scope);
  }

  void RunInitializer(const TensorProto& tensor, ShapesContext& context, const Scope& scope) {
    try {
      InferInitializer(tensor, context);
    } catch (const std::exception& error) {
      context.Set(tensor.name(), SymTensor::Unknown());
      context.Diagnostics().push_back(
          {scope.label_prefix + "initializer '" + tensor.name() + "'", "", std::string("invalid: ") + error.what()});
    }
  }

  void RunNode(const NodeProto& node, std::size_t index, ShapesContext& context, const Scope& scope) {
    NodeContext call(*this, node, index, context, scope);
    std::vector<SymTensor> outputs;
    try {
      CheckInputTypes(call);
      outputs = Outputs(call);
      CheckOutputTypes(call, outputs);
    } catch (const InvalidNodeError& error) {
      throw error.Located(call.Label(), node.op_type());  // the model is invalid: no diagnostic, a refusal
    } catch (const std::exception& error) {
      call.Diagnose(std::string("shape inference failed: ") + error.what());
      outputs.clear();
    }
    if (outputs.size() != static_cast<std::size_t>(node.output_size())) {
      if (!outputs.empty())
        call.Diagnose("the shape function returned " + std::to_string(outputs.size()) + " outputs, the node has " +
                      std::to_string(node.output_size()));
      outputs.assign(static_cast<std::size_t>(node.output_size()), SymTensor::Unknown());
    }
    for (int i = 0; i < node.output_size(); ++i)
      if (!node.output(i).empty()) context.Set(node.output(i), std::move(outputs[static_cast<std::size_t>(i)]));
    InferRemainingSubgraphs(call);
  }

  // The outputs of the node; empty when nothing is known (the caller makes them unknown).
  std::vector<SymTensor> Outputs(NodeContext& call) {
    const NodeProto& node = call.Node();
    ShapesContext& context = call.Context();
    if (node.op_type() == "Constant" && IsOnnxDomain(node.domain()) && node.output_size() == 1) {
      if (std::optional<TensorProto> value = ir::ConstantNodeValue(node)) {
        if (!node.output(0).empty()) InferInitializer(*value, context);
        const SymTensor* inferred = context.Find(node.output(0));
        return {inferred ? *inferred : SymTensor::Unknown()};
      }
    }
    if (const ShapeFunction* function = FindShapeFunction(node.domain(), node.op_type())) return (*function)(call);
    if (const FunctionProto* function = FindFunction(node)) return Instantiate(call, *function);
    return {};
  }

  // Graphs of the node that its shape function did not infer (no shape function, an
  // unknown operator, a failure): inferred from their declared input types so that
  // their values are described too.
  void InferRemainingSubgraphs(NodeContext& call) {
    for (const AttributeProto& attr : call.Node().attribute()) {
      if (attr.has_g() && !call.WasInferred(attr.g()))
        RunGraph(attr.g(), call.Context().Nested(attr.g()), true, NestedScope(call, attr.name()));
      for (const GraphProto& graph : attr.graphs())
        if (!call.WasInferred(graph))
          RunGraph(graph, call.Context().Nested(graph), true, NestedScope(call, attr.name()));
    }
  }

  // Nodes of a nested graph are named "call/attribute/node" in diagnostics.
  static Scope NestedScope(const NodeContext& call, const std::string& attribute) {
    Scope scope = call.GetScope();
    scope.label_prefix = call.Label() + "/" + attribute + "/";
    return scope;
  }

  std::vector<SymTensor> Subgraph(NodeContext& call, const std::string& attribute, const GraphProto& graph,
                                  const std::vector<SymTensor>& inputs) {
    ShapesContext& nested = call.Context().Nested(graph);
    for (int i = 0; i < graph.input_size(); ++i) {
      const ValueInfoProto& formal = graph.input(i);
      if (formal.name().empty()) continue;
      const auto position = static_cast<std::size_t>(i);
      std::string conflict;
      SymTensor merged =
          Merge(position < inputs.size() ? inputs[position] : SymTensor::Unknown(), Declared(formal), conflict);
      if (!conflict.empty())
        call.Diagnose("graph '" + graph.name() + "': input '" + formal.name() + "' " + conflict);
      nested.Set(formal.name(), std::move(merged));
    }
    RunGraph(graph, nested, false, NestedScope(call, attribute));
    std::vector<SymTensor> outputs;
    outputs.reserve(static_cast<std::size_t>(graph.output_size()));
    for (const ValueInfoProto& output : graph.output()) {
      const SymTensor* inferred = nested.Find(output.name());
      std::string conflict;
      outputs.push_back(Merge(inferred ? *inferred : SymTensor::Unknown(), Declared(output), conflict));
      if (!conflict.empty())
        call.Diagnose("graph '" + graph.name() + "': output '" + output.name() + "' " + conflict);
    }
    return outputs;
  }

  void RunNodes(const std::vector<const NodeProto*>& nodes, ShapesContext& context) {
    const Scope scope = ModelScope();
    std::size_t index = 0;
    for (const NodeProto* node : nodes) {
      // A name re-inferred loses what it was known to hold (a full inference starts
      // from a fresh context and does not need this lookup per output).
      for (const std::string& output : node->output())
        if (!output.empty()) context.SetConstant(output, nullptr);
      RunNode(*node, index++, context, scope);
    }
  }

 private:
  const FunctionProto* FindFunction(const NodeProto& node) {
    if (model_.functions_size() == 0) return nullptr;
    if (!functions_) functions_.emplace(model_.functions());
    return functions_->Find(node);
  }

  // Infers a call of a local function by inferring a copy of its body in which the
  // call's attributes replace the references to them.
  std::vector<SymTensor> Instantiate(NodeContext& call, const FunctionProto& function) {
    const Scope& outer = call.GetScope();
    if (outer.function_depth >= kMaxFunctionDepth) {
      call.Diagnose("local function calls nested deeper than " + std::to_string(kMaxFunctionDepth) +
                    " (a recursive function?): outputs unknown");
      return {};
    }
    const NodeProto& node = call.Node();
    // Formal inputs the call leaves out are missing optional inputs in the body
    // (InstantiateFunctionBody clears their uses).
    std::unique_ptr<ShapesContext> body_context = ShapesContextAccess::Isolated(call.Context());
    for (int i = 0; i < function.input_size(); ++i) {
      if (i >= node.input_size() || node.input(i).empty()) continue;
      const std::string& formal = function.input(i);
      body_context->Set(formal, call.Input(static_cast<std::size_t>(i)));
      body_context->SetConstant(formal, call.Context().FindConstantShared(node.input(i)));
    }
    const google::protobuf::RepeatedPtrField<NodeProto> body = ir::InstantiateFunctionBody(function, node);

    const Scope scope{&function.opset_import(), &model_.opset_import(), call.Label() + "/", outer.function_depth + 1};
    std::size_t index = 0;
    for (const NodeProto& body_node : body) RunNode(body_node, index++, *body_context, scope);

    std::vector<SymTensor> outputs;
    for (int i = 0; i < node.output_size(); ++i) {
      const SymTensor* value = i < function.output_size() ? body_context->Find(function.output(i)) : nullptr;
      outputs.push_back(value ? *value : SymTensor::Unknown());
      if (value && !node.output(i).empty())
        call.Context().SetConstant(node.output(i), body_context->FindConstantShared(function.output(i)));
    }
    return outputs;
  }

  const ModelProto& model_;
  std::optional<ir::LocalFunctions> functions_;
};

std::vector<SymTensor> NodeContext::InferSubgraph(std::string_view attribute, const std::vector<SymTensor>& inputs) {
  const AttributeProto* attr = Attribute(attribute);
  if (!attr || !attr->has_g()) throw ModelError("the node has no graph attribute '" + std::string(attribute) + "'");
  inferred_.insert(&attr->g());
  return inferencer_.Subgraph(*this, attr->name(), attr->g(), inputs);
}

// The symbols the model names in the types of its graph inputs (nested graphs included).
void CollectInputSymbols(const GraphProto& graph, std::vector<std::string>& names) {
  auto add_type = [&](const TypeProto& type, auto& self) -> void {
    if (type.has_tensor_type()) {
      for (const auto& dim : type.tensor_type().shape().dim())
        if (dim.has_dim_param()) names.push_back(dim.dim_param());
    } else if (type.has_sequence_type()) {
      self(type.sequence_type().elem_type(), self);
    } else if (type.has_optional_type()) {
      self(type.optional_type().elem_type(), self);
    }
  };
  for (const ValueInfoProto& input : graph.input()) add_type(input.type(), add_type);
  for (const ValueInfoProto& output : graph.output()) add_type(output.type(), add_type);
  for (const NodeProto& node : graph.node())
    for (const AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) CollectInputSymbols(attr.g(), names);
      for (const GraphProto& nested : attr.graphs()) CollectInputSymbols(nested, names);
    }
}

// A prefix for fresh symbols that no symbol of the model starts with (models produced by
// other tools may already use "unk__N").
std::string FreshPrefix(const GraphProto& graph) {
  std::vector<std::string> names;
  CollectInputSymbols(graph, names);
  for (int attempt = 0;; ++attempt) {
    std::string prefix = attempt == 0 ? "unk__" : "unk" + std::to_string(attempt) + "__";
    bool clash = false;
    for (const std::string& name : names)
      if (name.starts_with(prefix)) {
        clash = true;
        break;
      }
    if (!clash) return prefix;
  }
}

}  // namespace

void InferInitializer(const TensorProto& tensor, ShapesContext& context) {
  if (ir::HasExternalData(tensor)) {
    std::vector<SymDim> dims(tensor.dims().begin(), tensor.dims().end());
    context.Set(tensor.name(), SymTensor::Tensor(tensor.data_type(), SymShape(std::move(dims))));
    context.SetConstant(tensor.name(), nullptr);
    return;
  }
  context.Set(tensor.name(), SymTensor::FromTensor(tensor));
  if (ir::StoredDataBytes(tensor) <= ShapesContext::kMaxConstantBytes)
    context.SetConstant(tensor.name(), std::make_shared<const TensorProto>(tensor));
  else
    context.SetConstant(tensor.name(), nullptr);
}

void InferGraph(const ModelProto& model, const GraphProto& graph, ShapesContext& context) {
  // Before the first fresh symbol of a new tree of contexts: pick a prefix that cannot
  // clash with the model's own symbols.
  if (!context.Parent() && context.Values().empty() && context.Diagnostics().empty())
    context.Symbols() = SymbolGenerator(FreshPrefix(graph));
  Inferencer inferencer(model);
  inferencer.RunGraph(graph, context, true, inferencer.ModelScope());
}

void InferNodes(const ModelProto& model, const std::vector<const NodeProto*>& nodes, ShapesContext& context) {
  Inferencer inferencer(model);
  inferencer.RunNodes(nodes, context);
}

}  // namespace onnxopt::core::shapes
