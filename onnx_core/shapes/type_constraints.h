#pragma once
// The type constraints of a node's operator (ir::OpSchema) checked against the types
// shape inference knows: each input and output of a type its parameter allows, and the
// arguments of one type variable of one type (except heterogeneous variadic ones).
// Unknown types are not errors. Called by the inference driver for every node, the
// inputs before the shape function runs (so that it never sees an argument of a type
// its operator excludes) and the outputs after. A violation throws InvalidNodeError.

#include <cstddef>
#include <optional>
#include <vector>

#include "onnx_core/ir/op_schema.h"
#include "onnx_core/shapes/shape_registry.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::core::shapes {

// The first argument of known type of a type variable, while a node's arguments are
// checked.
struct TypeBinding {
  const SymTensor* value = nullptr;  // null while unbound
  const ir::FormalParameter* formal = nullptr;
  bool input = true;
  std::size_t position = 0;
};

// Checks one argument of a node of `schema` (`formal` its parameter, null past the end),
// binding its type variable in `bound` (one entry per variable of the schema): the rule
// broken and the type found, or nullopt.
std::optional<ir::RuleViolation> CheckArgumentType(const ir::OpSchema& schema, std::vector<TypeBinding>& bound,
                                                   const ir::FormalParameter* formal, bool input, std::size_t position,
                                                   const SymTensor& value);

// The check of one node: its inputs when constructed, its outputs by Outputs. One schema
// lookup and one walk of the inputs serve both (the type variables bound by the inputs
// constrain the outputs).
class NodeTypeCheck {
 public:
  explicit NodeTypeCheck(const InferenceContext& ctx);
  // `outputs`: what the shape function returned, one per output of the node. The outputs
  // of a node whose output type is disputed (ir::HasToleratedAttributeType: a Constant
  // whose value_float is written as an INT) lose their element type instead: onnxruntime
  // checks its consumers against the type the attribute's name gives.
  void Outputs(std::vector<SymTensor>& outputs);

 private:
  void Check(const ir::FormalParameter* formal, bool input, std::size_t position, const SymTensor& value);

  const InferenceContext& ctx_;
  const ir::OpSchema* schema_;  // null: the operator has no schema here, nothing is checked
  std::vector<TypeBinding> bound_;  // by type variable
};

}  // namespace onnxopt::core::shapes
