// `onnxopt info MODEL`: what a model contains, without reading its external data.
// `onnxopt info --shapes MODEL [--json]`: the inferred type and shape of every value.

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <sstream>
#include <unordered_set>

#include "onnx_core/common/json_writer.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/ir/model_summary.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_core/shapes/inference.h"
#include "onnx_core/shapes/model_validity.h"
#include "tools/onnxopt/cli.h"

namespace onnxopt::cli {

namespace {

using core::ir::CountGraph;
using core::ir::FormatBytes;
using core::ir::FormatType;
using core::ir::Histogram;
using core::ir::InitializerStats;
using core::ir::OpKey;

constexpr const char* kUsageLine = "onnxopt info [--shapes [--json]] MODEL";

constexpr const char* kHelp = R"(usage: onnxopt info [--shapes [--json]] MODEL

Summarizes MODEL: IR version, producer, opset imports, inputs and outputs with their
types and shapes, node counts per operator (main graph and nested graphs of If, Loop,
Scan...; local functions counted apart), initializers and their bytes, external data.
External data files are not read.

options:
  --shapes   infer shapes and print the type and shape of every value of the main graph
             (inputs, initializers, node outputs, in graph order), then the diagnostics
             (contradictions found in the model). Symbolic dimensions are expressions
             over the model's dimension names; "?" is unknown.
  --json     with --shapes: print one JSON object instead,
               {"values": {NAME: {"elem_type": INT, "shape": DIMS}, ...},
                "diagnostics": [{"node": NAME, "op_type": OP, "message": TEXT}, ...]}
             elem_type is the ONNX TensorProto data type (absent when unknown); DIMS is
             null when the rank is unknown, else a list of integers, null (unknown
             dimension) and strings (expressions using + - * // % and parentheses).

examples:
  onnxopt info model.onnx
  onnxopt info --shapes --json model.onnx
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

// The values of the main graph in graph order (inputs, initializers, node outputs),
// each name once.
std::vector<std::string> MainGraphValues(const GraphProto& graph) {
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  auto add = [&](const std::string& name) {
    if (!name.empty() && seen.insert(name).second) names.push_back(name);
  };
  for (const auto& input : graph.input()) add(input.name());
  for (const auto& init : graph.initializer()) add(init.name());
  for (const auto& init : graph.sparse_initializer()) add(init.values().name());
  for (const auto& node : graph.node())
    for (const auto& output : node.output()) add(output);
  return names;
}

// A dimension expression in the JSON form: SymDim's text, whose exact division `/` is
// written `//` (equal, since the division is exact, and the same precedence). Symbol
// names that are not identifiers stay between backquotes, as SymDim writes them.
std::string JsonDimExpression(const core::shapes::SymDim& dim) {
  const std::string text = dim.ToString();
  std::string out;
  out.reserve(text.size() + 4);
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '`') quoted = !quoted;  // a doubled backquote toggles twice
    if (text[i] == '/' && !quoted) {
      out += "//";
      if (i + 1 < text.size() && text[i + 1] == '/') ++i;
      continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

void WriteShapesJson(const std::vector<std::string>& names, const core::shapes::ShapesContext& context) {
  using core::shapes::SymTensor;
  JsonWriter json;
  json.BeginObject().Key("values").BeginObject();
  for (const std::string& name : names) {
    json.Key(name).BeginObject();
    const SymTensor* value = context.Find(name);
    // Sequences and optionals describe their elements: not a tensor shape, so unknown here.
    const bool tensor = value && value->kind == SymTensor::Kind::kTensor;
    if (tensor && value->HasElemType()) json.Key("elem_type").Int(value->elem_type);
    json.Key("shape");
    if (!tensor || !value->shape.HasRank()) {
      json.Null();
    } else {
      json.BeginArray();
      for (const auto& dim : value->shape.Dims()) {
        if (dim.IsUnknown())
          json.Null();
        else if (auto constant = dim.Constant())
          json.Int(*constant);
        else
          json.String(JsonDimExpression(dim));
      }
      json.EndArray();
    }
    json.EndObject();
  }
  json.EndObject().Key("diagnostics").BeginArray();
  for (const auto& diagnostic : context.Diagnostics()) {
    json.BeginObject().Key("node").String(diagnostic.node);
    json.Key("op_type").String(diagnostic.op_type).Key("message").String(diagnostic.message).EndObject();
  }
  json.EndArray().EndObject();
  std::cout << json.Text() << "\n";
}

int RunShapes(const ModelProto& model, bool as_json) {
  core::shapes::ShapesContext context;
  core::shapes::InferGraph(model, model.graph(), context);
  const std::vector<std::string> names = MainGraphValues(model.graph());
  if (as_json) {
    WriteShapesJson(names, context);
    return kOk;
  }
  std::cout << "values (" << names.size() << "):\n";
  for (const std::string& name : names) {
    const core::shapes::SymTensor* value = context.Find(name);
    std::cout << "  " << name << "  " << (value ? value->ToString() : core::shapes::SymTensor::Unknown().ToString())
              << "\n";
  }
  std::cout << "diagnostics (" << context.Diagnostics().size() << "):\n";
  for (const auto& diagnostic : context.Diagnostics()) {
    std::cout << "  " << diagnostic.node;
    if (!diagnostic.op_type.empty() && diagnostic.node.find('(') == std::string::npos)
      std::cout << " (" << diagnostic.op_type << ")";
    std::cout << ": " << diagnostic.message << "\n";
  }
  return kOk;
}

int RunInfo(const std::vector<std::string>& raw_args) {
  Arguments args(raw_args, {}, {"--shapes", "--json"});
  const std::string path = args.Positional(1, 1)[0];
  const bool shapes = args.Flag("--shapes");
  const bool as_json = args.Flag("--json");
  if (as_json && !shapes) throw UsageError("--json needs --shapes");
  core::ir::LoadOptions options;
  options.load_external_data = false;
  std::vector<std::string> warnings;
  ModelProto model = core::ir::LoadModel(path, options, &warnings);
  for (const auto& warning : warnings) std::cerr << "onnxopt info: warning: " << warning << "\n";
  if (shapes) return RunShapes(model, as_json);
  core::shapes::ValidateModel(model, path);

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
