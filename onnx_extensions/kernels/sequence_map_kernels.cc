// SequenceMap: runs its body graph once per element of its first input (a sequence).
// Inputs that are sequences give the body their element at that position (they must be
// as long as the first); tensors are passed whole. Body output j, over all positions,
// forms output sequence j.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

using core::eval::Sequence;

std::vector<Value> SequenceMapKernel(KernelContext& ctx) {
  const AttributeProto* body = ctx.Attribute("body");
  if (!body || body->type() != AttributeProto::GRAPH) Fail("attribute body (a graph) is required");
  const GraphProto& graph = body->g();
  if (static_cast<std::size_t>(graph.input_size()) != ctx.InputCount() ||
      static_cast<std::size_t>(graph.output_size()) != ctx.OutputCount())
    Fail("the body takes " + std::to_string(graph.input_size()) + " inputs and gives " +
         std::to_string(graph.output_size()) + " outputs; the node has " + std::to_string(ctx.InputCount()) +
         " inputs and " + std::to_string(ctx.OutputCount()) + " outputs");
  const auto* first = std::get_if<Sequence>(&ctx.Input(0));
  if (!first) Fail("input 0 must be a sequence");
  const std::size_t length = first->size();
  for (std::size_t i = 0; i < ctx.InputCount(); ++i) {
    const Value& input = ctx.Input(i);
    if (std::holds_alternative<core::eval::NoValue>(input))
      Fail("input " + std::to_string(i) + " has no value (a tensor or a sequence is required)");
    if (const auto* sequence = std::get_if<Sequence>(&input); sequence && sequence->size() != length)
      Fail("input sequence " + std::to_string(i) + " has " + std::to_string(sequence->size()) +
           " elements, input 0 has " + std::to_string(length));
  }
  // The body's runs bound the positions, not the tensors the outputs hold: a body passing
  // 20 outer values through over 2^22 positions took 7.7 GB.
  CheckHeldTensors(static_cast<std::uint64_t>(length) * ctx.OutputCount(), [&] {
    return "the " + std::to_string(length) + " x " + std::to_string(ctx.OutputCount()) + " elements of the output sequences";
  });
  std::vector<Sequence> outputs(ctx.OutputCount());
  for (std::size_t position = 0; position < length; ++position) {
    std::vector<Value> body_inputs;
    for (std::size_t i = 0; i < ctx.InputCount(); ++i) {
      const Value& input = ctx.Input(i);
      const auto* sequence = std::get_if<Sequence>(&input);
      body_inputs.emplace_back(sequence ? Value((*sequence)[position]) : input);
    }
    const std::vector<Value> results = ctx.RunSubgraph("body", body_inputs);
    for (std::size_t j = 0; j < outputs.size(); ++j) {
      const auto* tensor = j < results.size() ? std::get_if<Tensor>(&results[j]) : nullptr;
      if (!tensor) Fail("body output " + std::to_string(j) + " at position " + std::to_string(position) + " is not a tensor");
      if (!outputs[j].empty() && outputs[j].front().elem_type() != tensor->elem_type())
        Fail("body output " + std::to_string(j) + " is " + tensor->Describe() + " at position " +
             std::to_string(position) + " but " + outputs[j].front().Describe() +
             " before: a sequence holds one element type");
      outputs[j].push_back(*tensor);
    }
  }
  return std::vector<Value>(outputs.begin(), outputs.end());
}

}  // namespace

void RegisterSequenceMapKernels() { core::eval::RegisterKernel("", "SequenceMap", SequenceMapKernel); }

}  // namespace onnxopt::onnx_kernels
