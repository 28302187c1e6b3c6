#include "onnx_core/shapes/type_constraints.h"

#include <string>
#include <utility>

namespace onnxopt::core::shapes {

namespace {

using ir::FormalParameter;

// The type of a value of known kind and element type as the specification writes it
// ("tensor(float)").
std::string TypeString(const SymTensor& value) {
  if (value.elem_type < 0 || value.elem_type >= 32) return "element type " + std::to_string(value.elem_type);
  ir::TypeSet single;
  const std::uint32_t bit = std::uint32_t{1} << value.elem_type;
  switch (value.kind) {
    case SymTensor::Kind::kTensor: single.tensor = bit; break;
    case SymTensor::Kind::kSequence: single.sequence = bit; break;
    case SymTensor::Kind::kOptional: single.optional = bit; break;
    case SymTensor::Kind::kUnknown: break;
  }
  return ir::DescribeTypeSet(single);
}

bool Allows(const ir::TypeSet& allowed, const SymTensor& value) {
  if (value.elem_type < 0 || value.elem_type >= 32) return false;
  const std::uint32_t bit = std::uint32_t{1} << value.elem_type;
  switch (value.kind) {
    case SymTensor::Kind::kTensor: return (allowed.tensor & bit) != 0;
    case SymTensor::Kind::kSequence: return (allowed.sequence & bit) != 0;
    case SymTensor::Kind::kOptional: return (allowed.optional & bit) != 0;
    case SymTensor::Kind::kUnknown: break;
  }
  return true;
}

// An argument of the node: "input 1 'indices'".
std::string DescribeArgument(bool input, std::size_t position, const FormalParameter& formal) {
  return std::string(input ? "input " : "output ") + std::to_string(position) + " '" + std::string(formal.name) + "'";
}

}  // namespace

// Walks the arguments of a node (inputs, then outputs) binding each type variable to the
// first known type of its arguments. Messages are built only when a rule is broken.
NodeTypeCheck::NodeTypeCheck(const InferenceContext& ctx)
    : ctx_(ctx), schema_(ir::FindOpSchema(ctx.Node().domain(), ctx.Node().op_type(), ctx.OpsetVersion())) {
  if (!schema_) return;
  bound_.resize(schema_->variables.size());
  for (std::size_t i = 0; i < ctx_.InputCount(); ++i)
    if (ctx_.HasInput(i)) Check(schema_->Input(static_cast<int>(i)), true, i, ctx_.Input(i));
}

void NodeTypeCheck::Outputs(std::vector<SymTensor>& outputs) {
  if (outputs.size() != ctx_.OutputCount()) return;
  if (ir::HasToleratedAttributeType(ctx_.Node())) {
    for (SymTensor& output : outputs) output.elem_type = 0;
    return;
  }
  if (!schema_) return;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (!ctx_.Node().output(static_cast<int>(i)).empty())
      Check(schema_->Output(static_cast<int>(i)), false, i, outputs[i]);
}

void NodeTypeCheck::Check(const FormalParameter* formal, bool input, std::size_t position, const SymTensor& value) {
  if (std::optional<ir::RuleViolation> violation = CheckArgumentType(*schema_, bound_, formal, input, position, value))
    ctx_.Refuse(std::move(violation->rule), std::move(violation->found));
}

std::optional<ir::RuleViolation> CheckArgumentType(const ir::OpSchema& schema, std::vector<TypeBinding>& bound,
                                                   const FormalParameter* formal, bool input, std::size_t position,
                                                   const SymTensor& value) {
  if (!formal || value.kind == SymTensor::Kind::kUnknown || !value.HasElemType()) return std::nullopt;
  if (!Allows(formal->allowed, value)) {
    return ir::RuleViolation{DescribeArgument(input, position, *formal) + " of " + schema.Name() + " has type " +
                                 std::string(formal->type_name) + ": " + ir::DescribeTypeSet(formal->allowed),
                             TypeString(value)};
  }
  if (formal->variable < 0 || formal->heterogeneous) return std::nullopt;
  TypeBinding& binding = bound[static_cast<std::size_t>(formal->variable)];
  if (!binding.value) {
    binding = {&value, formal, input, position};
  } else if (binding.value->kind != value.kind || binding.value->elem_type != value.elem_type) {
    return ir::RuleViolation{DescribeArgument(binding.input, binding.position, *binding.formal) + " and " +
                                 DescribeArgument(input, position, *formal) + " of " + schema.Name() +
                                 " have one type " + std::string(formal->type_name),
                             TypeString(*binding.value) + " and " + TypeString(value)};
  }
  return std::nullopt;
}

}  // namespace onnxopt::core::shapes
