#pragma once
// Summaries of a model for people: types, byte counts, operator histograms (what
// `onnxopt info`, `diff` and `optimize` print, and the page of the optimization report).

#include <cstdint>
#include <map>
#include <string>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

// "float[batch,1024]", "int64[?rank]", "seq(float[2])".
std::string FormatType(const TypeProto& type);
// "512 B", "3.2 MiB".
std::string FormatBytes(std::uint64_t bytes);
// "MatMul", or "com.microsoft::FusedMatMul" outside the default domain.
std::string OpKey(const NodeProto& node);

struct InitializerStats {
  std::uint64_t count = 0;
  std::uint64_t inline_bytes = 0;
  std::uint64_t external_bytes = 0;
  std::map<std::string, std::uint64_t> external_files;  // location -> tensors
};

struct Histogram {
  std::map<std::string, std::uint64_t> ops;
  std::uint64_t nodes = 0;
  std::uint64_t nested_graphs = 0;
};

// Counts the nodes and initializers of `graph` and of every graph nested in it.
void CountGraph(const GraphProto& graph, Histogram& histogram, InitializerStats& stats);

}  // namespace onnxopt::core::ir
