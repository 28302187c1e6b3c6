// `onnxopt info MODEL`: what a model contains, without reading its external data.

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <sstream>

#include "onnx_core/ir/model_io.h"
#include "onnx_core/ir/tensor_data.h"
#include "tools/onnxopt/cli.h"
#include "tools/onnxopt/model_summary.h"

namespace onnxopt::cli {

namespace {

constexpr const char* kUsageLine = "onnxopt info MODEL";

constexpr const char* kHelp = R"(usage: onnxopt info MODEL

Summarizes MODEL: IR version, producer, opset imports, inputs and outputs with their
types and shapes, node counts per operator (main graph and nested graphs of If, Loop,
Scan...; local functions counted apart), initializers and their bytes, external data.
External data files are not read.

examples:
  onnxopt info model.onnx
)";

void PrintHistogram(const Histogram& histogram) {
  std::vector<std::pair<std::string, std::uint64_t>> sorted(histogram.ops.begin(), histogram.ops.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [op, count] : sorted) std::cout << "    " << op << std::string(op.size() < 32 ? 32 - op.size() : 1, ' ') << count << "\n";
}

void PrintValues(const char* title, const google::protobuf::RepeatedPtrField<ValueInfoProto>& values) {
  std::cout << title << " (" << values.size() << "):\n";
  for (const auto& value : values) std::cout << "  " << value.name() << "  " << FormatType(value.type()) << "\n";
}

int RunInfo(const std::vector<std::string>& raw_args) {
  Arguments args(raw_args, {}, {});
  const std::string path = args.Positional(1, 1)[0];
  core::ir::LoadOptions options;
  options.load_external_data = false;
  std::vector<std::string> warnings;
  ModelProto model = core::ir::LoadModel(path, options, &warnings);
  for (const auto& warning : warnings) std::cerr << "onnxopt info: warning: " << warning << "\n";

  std::cout << "model: " << path << "\n";
  std::cout << "ir_version: " << model.ir_version();
  if (!model.producer_name().empty())
    std::cout << "  producer: " << model.producer_name() << " " << model.producer_version();
  std::cout << "\nopsets:";
  for (const auto& opset : model.opset_import())
    std::cout << " " << (opset.domain().empty() ? "ai.onnx" : opset.domain()) << "=" << opset.version();
  std::cout << "\n";
  PrintValues("inputs", model.graph().input());
  PrintValues("outputs", model.graph().output());

  Histogram graph_ops;
  InitializerStats stats;
  CountGraph(model.graph(), graph_ops, stats);
  std::cout << "nodes: " << graph_ops.nodes << " (main graph and " << graph_ops.nested_graphs << " nested graphs)\n";
  PrintHistogram(graph_ops);
  if (model.functions_size() > 0) {
    Histogram function_ops;
    InitializerStats ignored;
    for (const auto& function : model.functions())
      for (const auto& node : function.node()) {
        ++function_ops.ops[OpKey(node)];
        ++function_ops.nodes;
      }
    std::cout << "local functions: " << model.functions_size() << " with " << function_ops.nodes << " nodes\n";
    PrintHistogram(function_ops);
  }
  std::cout << "initializers: " << stats.count << " (" << FormatBytes(stats.inline_bytes) << " inline";
  if (stats.external_bytes > 0 || !stats.external_files.empty())
    std::cout << ", " << FormatBytes(stats.external_bytes) << " external in " << stats.external_files.size()
              << " file(s)";
  std::cout << ")\n";
  for (const auto& [location, tensors] : stats.external_files)
    std::cout << "  external data: " << location << " (" << tensors << " tensors)\n";
  return kOk;
}

}  // namespace

Command InfoCommand() {
  return {"info", "summarize a model (opsets, inputs, outputs, operators, initializers)", kHelp,
          [](const std::vector<std::string>& args) {
            return RunReportingErrors("info", kUsageLine, [&] { return RunInfo(args); });
          }};
}

}  // namespace onnxopt::cli
