#pragma once
// The kernel registry: reference implementations of operators live in
// onnx_extensions/kernels (lib_onnx_kernels), registered explicitly by
// onnx_kernels::RegisterKernels(); the core stores and looks them up.
//
// A kernel receives a KernelContext for one node (attributes, input Values, the opset
// version of its domain) and returns one Value per output (NoValue for an omitted
// optional output). It must handle every opset version of its operator. It throws
// ModelError for invalid inputs (shapes that do not broadcast, an index out of range),
// naming what is wrong; the evaluator adds the node. A kernel validates everything it
// reads from the node before using it (counts, ranks, element types, attribute values):
// no input a model can give may crash it or reach a BuilderError.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::eval {

class KernelContext {
 public:
  virtual ~KernelContext() = default;

  virtual const NodeProto& Node() const = 0;
  // Version of the node's domain imported by the model (or the function); 0 if absent.
  virtual std::int64_t OpsetVersion() const = 0;

  std::size_t InputCount() const { return static_cast<std::size_t>(Node().input_size()); }
  // Present: within range and not the empty name of an omitted optional input.
  bool HasInput(std::size_t i) const { return i < InputCount() && !Node().input(static_cast<int>(i)).empty(); }
  // The input's value; NoValue for an omitted input.
  virtual const Value& Input(std::size_t i) const = 0;
  // The input's tensor; throws ModelError when it is missing or not a tensor.
  const Tensor& TensorInput(std::size_t i) const;
  std::size_t OutputCount() const { return static_cast<std::size_t>(Node().output_size()); }
  // Whether output i is requested (present and named).
  bool HasOutput(std::size_t i) const { return i < OutputCount() && !Node().output(static_cast<int>(i)).empty(); }

  // Attributes (nullopt / null when absent; ModelError when present with another type).
  const AttributeProto* Attribute(std::string_view name) const;
  std::optional<std::int64_t> IntAttribute(std::string_view name) const;
  std::optional<float> FloatAttribute(std::string_view name) const;
  std::optional<std::string> StringAttribute(std::string_view name) const;
  std::optional<std::vector<std::int64_t>> IntsAttribute(std::string_view name) const;
  std::optional<std::vector<float>> FloatsAttribute(std::string_view name) const;
  std::optional<Tensor> TensorAttribute(std::string_view name) const;

  // Runs a graph attribute of the node (If branch, Loop/Scan body) with the given values
  // for its formal inputs; returns its outputs in order. The graph sees the values of
  // the enclosing scopes.
  virtual std::vector<Value> RunSubgraph(std::string_view attribute, const std::vector<Value>& inputs) = 0;
};

using Kernel = std::function<std::vector<Value>(KernelContext&)>;

// How many inputs (entries of node.input, omitted optional ones included) and outputs
// a node of the operator may have, over every opset version the kernel handles.
struct Arity {
  static constexpr std::size_t kAny = static_cast<std::size_t>(-1);
  std::size_t min_inputs = 0, max_inputs = kAny;
  std::size_t min_outputs = 1, max_outputs = 1;
};

// Registers `kernel` for (domain, op_type); "" and "ai.onnx" are one domain. A second
// registration under the same key throws BuilderError. With an Arity, a node with
// another number of inputs or outputs is refused (ModelError) before the kernel runs.
void RegisterKernel(std::string_view domain, std::string_view op_type, Kernel kernel);
void RegisterKernel(std::string_view domain, std::string_view op_type, Arity arity, Kernel kernel);
const Kernel* FindKernel(std::string_view domain, std::string_view op_type);
std::size_t RegisteredKernelCount();

// Operators whose outputs may differ between two runs on the same inputs (random
// generators): never constant-folded.
bool IsNondeterministicOp(std::string_view domain, std::string_view op_type);

}  // namespace onnxopt::core::eval
