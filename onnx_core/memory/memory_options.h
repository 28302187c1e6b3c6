#pragma once
// Parsing and validation of MemoryOptions from their text forms (§8.1): a
// malformed or out-of-range declaration is refused with an error naming the
// token, never skipped.

#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/memory/memory_graph.h"

namespace onnxopt::core::memory {

struct MemoryOptionTexts {
  std::string output_reuse_input;        // "0,0|1,1" (graph input, graph output);
                                         // names accepted
  std::string input_reuse;               // "0,1"; names accepted
  std::vector<std::string> keep_copies;  // node names or output names
  std::vector<std::string> ordering;     // "BEFORE:AFTER"
  std::string visit_order;               // "reverse" (default) or "topological"
  std::string inplace_ops;               // "scatter,tensor_scatter,gqa", "none", "" (all)
  bool identity_is_view = false;
  bool no_specialize_functions = false;
};

// Validates every text against `graph` (the model's main graph); throws
// onnxopt::Error naming the offending token.
MemoryOptions ParseMemoryOptions(const MemoryOptionTexts& texts, const GraphProto& graph);

}  // namespace onnxopt::core::memory
