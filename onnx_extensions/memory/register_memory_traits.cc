#include "onnx_extensions/memory/register_memory_traits.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/memory/memory_traits.h"
#include "onnx_core/shapes/shape_registry.h"

namespace onnxopt::onnx_memory {

namespace {

using core::memory::ElementTypeQuery;
using core::memory::OpMemoryTraits;
using core::memory::OpMemoryTraitsEntry;
using core::memory::RegisterOpMemoryTraits;

OpMemoryTraits OutputViewsInput() { return OpMemoryTraits{{{0, 0}}, {}, {}, {}}; }

// Output 0 is input 0's buffer, whatever the node.
OpMemoryTraitsEntry View() {
  return {"", [](const NodeProto&, const ElementTypeQuery&) -> std::optional<OpMemoryTraits> {
            return OutputViewsInput();
          }};
}

// Output 0 is input 0's buffer when both have the same known element type.
OpMemoryTraitsEntry SameTypeView() {
  return {"", [](const NodeProto& node, const ElementTypeQuery& type_of) -> std::optional<OpMemoryTraits> {
            if (!type_of || node.input_size() < 1 || node.output_size() < 1) return std::nullopt;
            const int in = type_of(node.input(0));
            if (in == 0 || in != type_of(node.output(0))) return std::nullopt;
            return OutputViewsInput();
          }};
}

// Input 0 is updated in place and returned as output 0.
OpMemoryTraitsEntry Writer(std::string family) {
  return {std::move(family), [](const NodeProto&, const ElementTypeQuery&) -> std::optional<OpMemoryTraits> {
            return OpMemoryTraits{{{0, 0}}, {0}, {}, {}};
          }};
}

// com.microsoft.GroupQueryAttention(query, key, value, past_key, past_value, ...) ->
// (output, present_key, present_value): a max-length cache, past and present of one
// shape, is updated in place (onnxruntime documents past and present as one buffer then):
// present_key is past_key's buffer (inputs 3 -> output 1), present_value past_value's
// (4 -> 2). A growing cache (present longer than past) is a fresh buffer.
std::optional<OpMemoryTraits> GroupQueryAttentionCache(const NodeProto& node, const ElementTypeQuery& type_of) {
  OpMemoryTraits traits;
  for (const auto& [past, present] : {std::pair{3, 1}, std::pair{4, 2}}) {
    if (past >= node.input_size() || present >= node.output_size()) continue;
    const std::string& past_name = node.input(past);
    const std::string& present_name = node.output(present);
    if (past_name.empty() || present_name.empty() || !type_of.SameShape(past_name, present_name)) continue;
    traits.aliases.emplace_back(present, past);
    traits.writes.push_back(past);
  }
  if (traits.aliases.empty()) return std::nullopt;
  return traits;
}

// A real copy: a fresh buffer, so that an in-place write behind it never shows
// through.
std::vector<core::eval::Value> CopyKernel(core::eval::KernelContext& ctx) {
  const auto* input = std::get_if<core::eval::Tensor>(&ctx.Input(0));
  if (input == nullptr) return {ctx.Input(0)};
  core::eval::Tensor copy(input->elem_type(), input->shape());
  if (input->elem_type() == TensorProto::STRING) {
    std::copy_n(input->Data<std::string>(), input->size(), copy.MutableData<std::string>());
  } else if (input->ByteSize() > 0) {
    std::memcpy(copy.MutableRawData(), input->RawData(), input->ByteSize());
  }
  return {copy};
}

void RegisterOnce();

}  // namespace

void RegisterMemoryTraits() {
  static std::once_flag once;
  std::call_once(once, RegisterOnce);
}

namespace {

void RegisterOnce() {
  for (const char* op : {"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity"})
    RegisterOpMemoryTraits("", op, View());
  RegisterOpMemoryTraits("", "Cast", SameTypeView());
  RegisterOpMemoryTraits("", "CastLike", SameTypeView());
  // Dropout without a training_mode input runs in inference mode: output 0 is
  // its input.
  RegisterOpMemoryTraits("", "Dropout",
                         {"", [](const NodeProto& node, const ElementTypeQuery&) -> std::optional<OpMemoryTraits> {
                            if (node.input_size() > 2 && !node.input(2).empty()) return std::nullopt;
                            return OutputViewsInput();
                          }});
  RegisterOpMemoryTraits("", "ScatterND", Writer("scatter"));
  RegisterOpMemoryTraits("", "ScatterElements", Writer("scatter"));
  RegisterOpMemoryTraits("", "TensorScatter", Writer("tensor_scatter"));
  RegisterOpMemoryTraits("com.microsoft", "GroupQueryAttention", {"gqa", GroupQueryAttentionCache});

  const std::string copy_domain(core::memory::kCopyDomain);
  const std::string copy_op(core::memory::kCopyOpType);
  core::shapes::RegisterShapeFunction(copy_domain, copy_op, [](core::shapes::InferenceContext& ctx) {
    return std::vector<core::shapes::SymTensor>{ctx.Input(0)};
  });
  core::eval::RegisterKernel(copy_domain, copy_op, CopyKernel);
}

}  // namespace

}  // namespace onnxopt::onnx_memory
