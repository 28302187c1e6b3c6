#include "onnx_core/shapes/inference.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <optional>
#include <unordered_map>
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

const SymTensor* ShapesContext::Find(std::string_view name) const { return Find(name, utils::HashString(name)); }

const SymTensor* ShapesContext::Find(std::string_view name, std::uint64_t name_hash) const {
  for (const ShapesContext* context = this; context; context = context->parent_) {
    if (const SymTensor* value = context->values_.find(name, name_hash)) return value;
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

void ShapesContext::Adopt(ShapesContext& overlay) {
  if (overlay.parent_ != this) throw BuilderError("ShapesContext::Adopt: the overlay is not derived from this context");
  for (const auto& [name, value] : overlay.values_.entries()) values_.set(name, value);
  for (const auto& [name, constant] : overlay.constants_.entries()) constants_.set(name, constant);
  for (auto& [graph, nested] : overlay.nested_) {
    nested->parent_ = this;
    nested_[graph] = std::move(nested);
  }
  overlay.nested_.clear();
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

void ShapesContext::ForgetRank(const std::string& name, SymTensor& value) {
  Diagnostics().push_back({"value '" + name + "'", "",
                           "a shape of " + std::to_string(value.shape.Rank()) + " dims, more than the " +
                               std::to_string(kMaxKeptRank) + " inference keeps: its rank is left unknown"});
  value.shape = SymShape::UnknownRank();
  value.value.reset();
}

bool ShapesContext::KeepsConstant(const TensorProto& tensor) {
  if (ir::StoredDataBytes(tensor) > kMaxConstantBytes) return false;
  if (SymTensor::TracksValuesOf(tensor.data_type())) return true;
  const std::optional<std::int64_t> elements = ir::ElementCount(tensor);
  return elements && *elements <= static_cast<std::int64_t>(kMaxKeptRank);
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

// Calls of local functions nested deeper than this are not inferred (their outputs stay
// unknown): a chain of calls uses the C++ stack.
constexpr std::uint64_t kMaxFunctionDepth = 32;
// Nodes of function bodies that inference may infer in one run. Each body is inferred
// once per distinct call signature, so real models stay far below; what passes the
// bound (calls whose every signature differs, 2^n of them) gets unknown outputs and one
// diagnostic, not a ModelError: unknown is always a correct answer for inference, so the
// rest of the model is still inferred and optimized (the evaluator, which has no such
// answer, refuses such calls).
constexpr std::uint64_t kMaxFunctionNodes = 200'000;

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

// Records a sparse constant (initializer or Constant node) named `name`: its type and
// shape, and when its dense form is one to keep (ShapesContext::KeepsConstant), its value.
// Another one is never made dense: inference only needs its shape.
void InferSparseConstant(const SparseTensorProto& sparse, const std::string& name, ShapesContext& context) {
  TensorProto shape_only;
  shape_only.set_data_type(sparse.values().data_type());
  *shape_only.mutable_dims() = sparse.dims();
  const std::optional<std::uint64_t> dense_bytes = ir::RawDataBytes(shape_only);
  std::optional<TensorProto> dense;
  if (dense_bytes && *dense_bytes <= ShapesContext::kMaxConstantBytes && ShapesContext::KeepsConstant(shape_only))
    dense = ir::Densify(sparse);
  if (!dense) {
    std::vector<SymDim> dims;
    for (std::int64_t dim : sparse.dims()) dims.push_back(dim >= 0 ? SymDim(dim) : SymDim::Unknown());
    context.Set(name, SymTensor::Tensor(sparse.values().data_type(), SymShape(std::move(dims))));
    context.SetConstant(name, nullptr);
    return;
  }
  dense->set_name(name);
  InferInitializer(*dense, context);
}

// Where a node runs: the opset imports that bind its operators and how diagnostics name it.
struct Scope {
  const OpsetImports* opsets = nullptr;    // the model's, or a function's
  const OpsetImports* fallback = nullptr;  // the model's, for domains a function does not import
  std::string label_prefix;                // "call/" inside a function body
  std::uint64_t function_depth = 0;
};

class Inferencer;

// What a shape function sees of one node.
class NodeContext final : public InferenceContext {
 public:
  NodeContext(Inferencer& inferencer, const NodeProto& node, std::size_t index, ShapesContext& context,
              const Scope& scope)
      : InferenceContext(node), inferencer_(inferencer), node_(node), index_(index), context_(context), scope_(scope) {}

  const NodeProto& Node() const override { return node_; }
  std::int64_t OpsetVersion() const override {
    std::optional<std::int64_t> version = ir::FindOpsetVersion(*scope_.opsets, node_.domain());
    if (!version && scope_.fallback) version = ir::FindOpsetVersion(*scope_.fallback, node_.domain());
    return version.value_or(0);
  }
  const SymTensor& Input(std::size_t i) const override {
    if (!HasInput(i)) return UnknownTensor();
    // The type check and the shape function read each input several times (35 000 reads
    // for 2 900 nodes on the 8-layer decoder): the entry found first is kept (the
    // context's entries do not move, and one replaced in place is read where it is).
    if (i < kCachedInputs && cached_inputs_[i]) return *cached_inputs_[i];
    const SymTensor* value = context_.Find(InputName(i));
    if (!value) return UnknownTensor();
    if (i < kCachedInputs) cached_inputs_[i] = value;
    return *value;
  }
  const TensorProto* ConstantInput(std::size_t i) const override {
    if (!HasInput(i)) return nullptr;
    return context_.FindConstant(InputName(i));
  }
  SymDim FreshSymbol() override;
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
  static constexpr std::size_t kCachedInputs = 8;
  mutable std::array<const SymTensor*, kCachedInputs> cached_inputs_{};
};

// The outputs of one inference of a function body, kept for the calls of the same
// signature.
struct Instantiation {
  std::vector<SymTensor> outputs;  // one per formal output of the function
  std::vector<std::shared_ptr<const TensorProto>> constants;  // the same
  // Symbols of the outputs made fresh while inferring the body: another call gets new
  // ones instead.
  std::unordered_set<std::string> fresh_symbols;
  // The constant inputs of the signature, kept alive: the key holds their addresses.
  std::vector<std::shared_ptr<const TensorProto>> constant_inputs;
};

class Inferencer {
 public:
  explicit Inferencer(const ModelProto& model)
      : model_(model), expansions_([this](const NodeProto& node) {
          return FindShapeFunction(node.domain(), node.op_type()) ? nullptr : FindFunction(node);
        }) {}

  // A symbol made fresh for a node: recorded, so that the instantiations of function
  // bodies know which of their symbols stand for run-time values of that one call.
  SymDim FreshSymbol(SymbolGenerator& symbols) {
    SymDim symbol = symbols.Fresh();
    fresh_order_.emplace(symbol.Symbols().front(), fresh_order_.size());
    return symbol;
  }

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
      InferSparseConstant(init, name, context);
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
    if (scope.function_depth > 0) ++function_nodes_inferred_;
    NodeContext call(*this, node, index, context, scope);
    std::vector<SymTensor> outputs;
    try {
      NodeTypeCheck types(call);
      outputs = Outputs(call);
      types.Outputs(outputs);
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
      if (const SparseTensorProto* sparse = ir::SparseConstantValue(node)) {
        if (!node.output(0).empty()) InferSparseConstant(*sparse, node.output(0), context);
        const SymTensor* inferred = context.Find(node.output(0));
        return {inferred ? *inferred : SymTensor::Unknown()};
      }
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

  std::optional<InvalidNodeAt> RunNodes(const std::vector<const NodeProto*>& nodes, ShapesContext& context) {
    const Scope scope = ModelScope();
    for (std::size_t index = 0; index < nodes.size(); ++index) {
      const NodeProto& node = *nodes[index];
      // A name re-inferred loses what it was known to hold (a full inference starts
      // from a fresh context and does not need this lookup per output).
      for (const std::string& output : node.output())
        if (!output.empty()) context.SetConstant(output, nullptr);
      try {
        RunNode(node, index, context, scope);
      } catch (const InvalidNodeError& error) {
        return InvalidNodeAt{index, error};
      }
    }
    return std::nullopt;
  }

 private:
  const FunctionProto* FindFunction(const NodeProto& node) {
    if (model_.functions_size() == 0) return nullptr;
    if (!functions_) functions_.emplace(model_.functions());
    return functions_->Find(node);
  }

  // Infers a call of a local function by inferring a copy of its body in which the
  // call's attributes replace the references to them, once per distinct signature
  // (function, inputs, constant inputs, attributes): functions each calling the next
  // twice, 40 deep, are inferred in 80 nodes, not 2^40.
  std::vector<SymTensor> Instantiate(NodeContext& call, const FunctionProto& function) {
    if (std::optional<std::string> refusal = RefuseCall(call, function)) {
      call.Diagnose(*refusal + ": outputs unknown");
      return {};
    }
    const NodeProto& node = call.Node();
    std::vector<std::shared_ptr<const TensorProto>> constant_inputs;
    const std::string key = SignatureKey(call, function, constant_inputs);
    auto known = instantiations_.find(key);
    const bool reused = known != instantiations_.end();
    if (!reused) {
      if (function_nodes_inferred_ >= kMaxFunctionNodes) {
        if (!function_limit_reported_)
          call.Diagnose("shape inference has inferred " + std::to_string(function_nodes_inferred_) +
                        " nodes of local function bodies, its limit: the outputs of this call and of every later "
                        "call of a local function are unknown");
        function_limit_reported_ = true;
        return {};
      }
      Instantiation instantiation = InferBody(call, function);
      instantiation.constant_inputs = std::move(constant_inputs);
      known = instantiations_.emplace(key, std::move(instantiation)).first;
    }
    const Instantiation& instantiation = known->second;
    std::vector<SymTensor> outputs;
    for (int i = 0; i < node.output_size(); ++i) {
      const bool defined = i < function.output_size();
      outputs.push_back(defined ? instantiation.outputs[static_cast<std::size_t>(i)] : SymTensor::Unknown());
      if (defined && !node.output(i).empty())
        call.Context().SetConstant(node.output(i), instantiation.constants[static_cast<std::size_t>(i)]);
    }
    if (reused) RenewFreshSymbols(outputs, instantiation.fresh_symbols, call.Context().Symbols());
    return outputs;
  }

  // Why a call is not inferred at all, checked where a call is made from outside every
  // function (the nested calls are within its expansion): recursion, or nesting deeper
  // than the stack allows. Deeper in, only the depth is checked: graphs that a call
  // passes as attributes may hold calls that the expansion does not see.
  std::optional<std::string> RefuseCall(const NodeContext& call, const FunctionProto& function) {
    const std::uint64_t depth = call.GetScope().function_depth;
    if (depth > 0) {
      if (depth < kMaxFunctionDepth) return std::nullopt;
      return "calls of local functions nest deeper than " + std::to_string(kMaxFunctionDepth);
    }
    const ir::CallExpansion& expansion = expansions_.Of(function);
    if (expansion.recursive)
      return "local function '" + expansion.recursive->name() +
             "' calls itself (directly or through other functions): recursive calls are not inferred";
    if (expansion.depth > kMaxFunctionDepth)
      return "calls of local functions nest " + std::to_string(expansion.depth) + " deep from '" + function.name() +
             "', more than the limit of " + std::to_string(kMaxFunctionDepth);
    return std::nullopt;
  }

  // What the body's inference depends on, as a string: the function, each formal input
  // (absent, or its SymTensor and the address of its constant value, kept alive in
  // `constant_inputs`) and the call's attributes.
  static std::string SignatureKey(NodeContext& call, const FunctionProto& function,
                                  std::vector<std::shared_ptr<const TensorProto>>& constant_inputs) {
    const NodeProto& node = call.Node();
    std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(&function));
    for (int i = 0; i < function.input_size(); ++i) {
      key += '\0';
      if (!call.HasInput(static_cast<std::size_t>(i))) continue;
      key += call.Input(static_cast<std::size_t>(i)).ToString();
      std::shared_ptr<const TensorProto> constant = call.Context().FindConstantShared(node.input(i));
      key += '\1' + std::to_string(reinterpret_cast<std::uintptr_t>(constant.get()));
      constant_inputs.push_back(std::move(constant));
    }
    for (const AttributeProto& attr : node.attribute()) key += '\2' + attr.SerializeAsString();
    return key;
  }

  // Infers the body for `call`; formal inputs the call leaves out are missing optional
  // inputs in the body (InstantiateFunctionBody clears their uses).
  Instantiation InferBody(NodeContext& call, const FunctionProto& function) {
    const NodeProto& node = call.Node();
    const std::size_t first_fresh = fresh_order_.size();
    std::unique_ptr<ShapesContext> body_context = ShapesContextAccess::Isolated(call.Context());
    for (int i = 0; i < function.input_size(); ++i) {
      if (i >= node.input_size() || node.input(i).empty()) continue;
      const std::string& formal = function.input(i);
      body_context->Set(formal, call.Input(static_cast<std::size_t>(i)));
      body_context->SetConstant(formal, call.Context().FindConstantShared(node.input(i)));
    }
    const google::protobuf::RepeatedPtrField<NodeProto> body = ir::InstantiateFunctionBody(function, node);
    const Scope& outer = call.GetScope();
    const Scope scope{&function.opset_import(), &model_.opset_import(), call.Label() + "/", outer.function_depth + 1};
    std::size_t index = 0;
    for (const NodeProto& body_node : body) RunNode(body_node, index++, *body_context, scope);

    Instantiation instantiation;
    for (const std::string& output : function.output()) {
      const SymTensor* value = body_context->Find(output);
      instantiation.outputs.push_back(value ? *value : SymTensor::Unknown());
      instantiation.constants.push_back(value ? body_context->FindConstantShared(output) : nullptr);
    }
    if (fresh_order_.size() > first_fresh) {
      const auto note_fresh = [&](const SymDim& dim) {
        for (std::string& name : dim.Symbols())
          if (auto it = fresh_order_.find(name); it != fresh_order_.end() && it->second >= first_fresh)
            instantiation.fresh_symbols.insert(std::move(name));
      };
      for (const SymTensor& output : instantiation.outputs) {
        if (output.shape.HasRank())
          for (const SymDim& dim : output.shape.Dims()) note_fresh(dim);
        if (output.value)
          for (const SymDim& element : *output.value) note_fresh(element);
      }
    }
    return instantiation;
  }

  // Replaces, in `outputs`, every dim or element that involves a symbol of `stale` by a
  // fresh symbol, the same for equal expressions: a second call of one signature has
  // run-time values of its own (NonZero's count differs from call to call).
  void RenewFreshSymbols(std::vector<SymTensor>& outputs, const std::unordered_set<std::string>& stale,
                         SymbolGenerator& symbols) {
    if (stale.empty()) return;
    std::unordered_map<std::string, SymDim> renewed;
    const auto renew = [&](SymDim& dim) {
      const std::vector<std::string> names = dim.Symbols();
      if (std::none_of(names.begin(), names.end(), [&](const std::string& name) { return stale.contains(name); }))
        return;
      auto [it, inserted] = renewed.try_emplace(dim.ToString());
      if (inserted) it->second = FreshSymbol(symbols);
      dim = it->second;
    };
    for (SymTensor& output : outputs) {
      if (output.shape.HasRank()) {
        std::vector<SymDim> dims = output.shape.Dims();
        for (SymDim& dim : dims) renew(dim);
        output.shape = SymShape(std::move(dims));
      }
      if (output.value)
        for (SymDim& element : *output.value) renew(element);
    }
  }

  const ModelProto& model_;
  std::optional<ir::LocalFunctions> functions_;
  ir::CallExpansions expansions_;
  std::unordered_map<std::string, Instantiation> instantiations_;  // by SignatureKey
  std::unordered_map<std::string, std::size_t> fresh_order_;  // every symbol FreshSymbol made: its rank
  std::uint64_t function_nodes_inferred_ = 0;
  bool function_limit_reported_ = false;
};

SymDim NodeContext::FreshSymbol() { return inferencer_.FreshSymbol(context_.Symbols()); }

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
  if (ShapesContext::KeepsConstant(tensor))
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
  if (std::optional<InvalidNodeAt> invalid = TryInferNodes(model, nodes, context)) throw invalid->error;
}

std::optional<InvalidNodeAt> TryInferNodes(const ModelProto& model, const std::vector<const NodeProto*>& nodes,
                                          ShapesContext& context) {
  Inferencer inferencer(model);
  return inferencer.RunNodes(nodes, context);
}

}  // namespace onnxopt::core::shapes
