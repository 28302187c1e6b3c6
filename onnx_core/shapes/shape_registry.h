#pragma once
// The shape-function registry: operator knowledge lives in onnx_extensions/shapes
// (lib_onnx_shapes), registered explicitly by onnx_shapes::RegisterShapeFunctions();
// the core only stores and looks up functions.
//
// A shape function receives an InferenceContext describing one node (its attributes,
// the SymTensor of each input, the opset version of its domain) and returns one
// SymTensor per output. It must handle every opset version of the operator (versions
// change signatures: attribute `axes` became an input, `Split` gained `num_outputs`,
// ...). It returns SymTensor::Unknown() for what it cannot tell and never guesses;
// contradictions in the inputs (incompatible broadcast, rank mismatch) are reported
// through InferenceContext::Diagnose and give unknown outputs. A node that breaks a rule
// of the operator's specification (an attribute out of range, split sizes that do not add
// up to the dimension split) is refused through InferenceContext::Refuse: the model is
// invalid and inference stops.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::core::shapes {

// A node that breaks a rule of the ONNX specification: a type outside its operator's
// constraints, an attribute out of range, split sizes that do not add up. The model is
// invalid (ModelError: exit 2). The inference driver names the node (Located) and lets
// the error through every enclosing node, so that InferGraph throws it.
class InvalidNodeError : public ModelError {
 public:
  // `rule`: what a valid node satisfies, naming the operator ("Conv-11 dilations are
  // >= 1"); `found`: what this node has instead ("dilations [0, 1]").
  InvalidNodeError(std::string rule, std::string found);

  // The same error naming the node by its inference label (ShapeDiagnostic::node) and op
  // type: "node 'conv_1' (Conv): Conv-11 dilations are >= 1; found dilations [0, 1]".
  // An error already located (in a nested graph) is returned unchanged.
  InvalidNodeError Located(const std::string& label, const std::string& op_type) const;

  const std::string& Rule() const { return rule_; }
  const std::string& Found() const { return found_; }
  bool IsLocated() const { return located_; }

 private:
  InvalidNodeError(std::string message, std::string rule, std::string found);

  std::string rule_;
  std::string found_;
  bool located_ = false;
};

class InferenceContext {
 public:
  explicit InferenceContext(const NodeProto& node)
      : inputs_(node.input().data(), static_cast<std::size_t>(node.input_size())) {}
  virtual ~InferenceContext() = default;

  virtual const NodeProto& Node() const = 0;
  // Version of the node's domain imported by the model (or the function).
  virtual std::int64_t OpsetVersion() const = 0;

  // Inputs, by position. A missing optional input ("" or past the end) has no SymTensor.
  std::size_t InputCount() const { return inputs_.size(); }
  bool HasInput(std::size_t i) const { return i < inputs_.size() && !inputs_[i]->empty(); }
  // The name of input `i` (< InputCount()).
  const std::string& InputName(std::size_t i) const { return *inputs_[i]; }
  // The input's SymTensor; Unknown() for a missing input.
  virtual const SymTensor& Input(std::size_t i) const = 0;
  // The full tensor when the input is an initializer or a Constant output (for Reshape's
  // shape, Resize's scales, ...); null otherwise.
  virtual const TensorProto* ConstantInput(std::size_t i) const = 0;
  std::size_t OutputCount() const { return static_cast<std::size_t>(Node().output_size()); }

  // Attributes (null / nullopt when absent). The typed helpers throw ModelError when the
  // attribute exists with another type (a malformed model must not silently take the
  // default value): the driver turns it into a diagnostic and unknown outputs.
  const AttributeProto* Attribute(std::string_view name) const;
  std::optional<std::int64_t> IntAttribute(std::string_view name) const;
  std::optional<float> FloatAttribute(std::string_view name) const;
  std::optional<std::string> StringAttribute(std::string_view name) const;
  std::optional<std::vector<std::int64_t>> IntsAttribute(std::string_view name) const;

  // A fresh symbol for a size known only at run time.
  virtual SymDim FreshSymbol() = 0;
  // Reports a contradiction; the driver records it with the node's label (its name, or
  // "#index (OpType)"; "call/attribute/..." inside nested graphs and function bodies) and
  // op type. A shape function may also throw onnxopt::Error or std::exception: the
  // driver records the message and makes every output unknown.
  virtual void Diagnose(std::string message) = 0;
  // Refuses the node: it breaks `rule` of its operator's specification and `found` says
  // how (see InvalidNodeError). Unlike Diagnose (what inference cannot work out), the
  // model is invalid whatever its inputs: inference stops and the model is refused.
  // Refuse only on facts (attributes, constant inputs, known types and ranks), never on
  // what is merely unknown.
  [[noreturn]] void Refuse(std::string rule, std::string found) const;

  // Infers a graph attribute of the node (If branches, Loop/Scan bodies) given the
  // SymTensor of each of its formal inputs; returns the SymTensor of each of its outputs.
  // The nested graph sees the enclosing scope's values. A formal input's declared type
  // fills in what the given SymTensor leaves unknown (pass Unknown() for a value that
  // changes between iterations, e.g. a Loop-carried value whose shape grows); declared
  // output types fill in the outputs likewise. Throws ModelError when the node has no
  // GRAPH attribute of that name. May be called several times (fixpoint iterations).
  virtual std::vector<SymTensor> InferSubgraph(std::string_view attribute, const std::vector<SymTensor>& inputs) = 0;

 private:
  // The node's input names, read once: GCC does not inline protobuf's accessors of
  // repeated string fields (bench/RESULTS-time-goals.md), and the type check and the shape
  // function ask for the inputs many times. The node is not edited during its inference.
  std::span<const std::string* const> inputs_;
};

using ShapeFunction = std::function<std::vector<SymTensor>(InferenceContext&)>;

// Registers `function` for (domain, op_type); "" and "ai.onnx" are one domain. Throws
// BuilderError when a function is already registered under that key; registering is
// meant to happen once, from RegisterShapeFunctions() (idempotent through call_once).
// Thread-safe; the registry only grows, so FindShapeFunction's pointers stay valid.
void RegisterShapeFunction(std::string_view domain, std::string_view op_type, ShapeFunction function);
// The function for (domain, op_type), or null.
const ShapeFunction* FindShapeFunction(std::string_view domain, std::string_view op_type);
// Number of registered functions (for tests and `onnxopt info`).
std::size_t RegisteredShapeFunctionCount();

}  // namespace onnxopt::core::shapes
