#pragma once
// The evaluator: runs a graph, node after node, with the registered kernels.
//
// Used by `onnxopt run` / `onnxopt verify`, by constant folding (GraphBuilder) and by
// tests that check rewrites numerically. Nested graphs (If, Loop, Scan, SequenceMap)
// run through KernelContext::RunSubgraph and see the enclosing values; local functions
// (FunctionProto) run by instantiating their body with the call's attributes. Errors
// (a missing kernel, an invalid input) raise ModelError naming the node.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::eval {

using ValueMap = std::map<std::string, Value, std::less<>>;

// Runs `model`'s main graph on `inputs` (by graph input name; an input that is also an
// initializer may be omitted) and returns every graph output by name. Throws ModelError
// for a missing input, a type or rank that contradicts the declared one, a missing
// kernel, or a kernel failure (the message names the node).
ValueMap Run(const ModelProto& model, const ValueMap& inputs);

// In-place execution (onnx_core/memory builds the plan: memory/inplace_run.h).
struct RunOptions {
  // Main-graph node position -> input whose buffer receives the node's output 0 (an
  // in-place writer the plan proved safe). The write happens only when the kernel's result
  // has the input's element type and size and no other live value shares that buffer;
  // otherwise the node runs as usual. Empty: the usual evaluation, exactly.
  std::map<int, int> in_place_inputs;
  // Measure the bytes held by the main graph's live values after each node.
  bool measure_memory = false;
  // The nodes that nested graphs (If branches, Loop and Scan bodies) may run in one
  // evaluation, each run of a graph counting at least one; beyond it the evaluation is
  // refused (ModelError). It bounds a loop whose condition never turns false, and loops
  // nested in loops, whose iterations multiply (2^20 in 2^20 would run for days). The
  // default is about 10 s of the smallest nodes; a generation loop of 1 000 steps over a
  // 10 000-node decoder runs 10^7. The sequences passed to a nested graph count too,
  // kSequenceElementsPerNodeRun elements for a node (the graph copies them).
  std::uint64_t max_nested_node_runs = std::uint64_t{1} << 24;
};
inline constexpr std::uint64_t kSequenceElementsPerNodeRun = 4;
struct RunStats {
  std::int64_t peak_live_bytes = 0;  // distinct buffers of live main-graph values, after each node
  std::int64_t in_place_writes = 0;  // outputs written into their input's buffer
  std::int64_t in_place_refused = 0;  // planned writes run as usual (buffer shared, size differs)
};
ValueMap Run(const ModelProto& model, const ValueMap& inputs, const RunOptions& options, RunStats* stats = nullptr);

// Checks a value given for the graph input `info` against its declared element type,
// rank and fixed dimensions, as Run does; throws ModelError ("input 'x' is int64[2,3],
// declared with element type FLOAT"). Lets a caller blame the file a value came from.
void CheckInputValue(const ValueInfoProto& info, const Value& value);

// Runs the given nodes of `graph` (in order), reading their inputs from `known` (values
// by name: initializers, earlier results, enclosing scopes) and adding their outputs to
// it. `model` provides opset imports and local functions.
void RunNodes(const ModelProto& model, const std::vector<const NodeProto*>& nodes, ValueMap& known);
// The same with the model's opset imports and local functions given separately (a
// GraphBuilder holds them without exposing its ModelProto).
void RunNodes(const google::protobuf::RepeatedPtrField<OperatorSetIdProto>& opset_imports,
              const google::protobuf::RepeatedPtrField<FunctionProto>& functions,
              const std::vector<const NodeProto*>& nodes, ValueMap& known);

}  // namespace onnxopt::core::eval
