#include "onnx_core/ir/model_summary.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::ir {

namespace {
void AddInitializer(const TensorProto& tensor, InitializerStats& stats) {
  ++stats.count;
  if (!HasExternalData(tensor)) {
    stats.inline_bytes += StoredDataBytes(tensor);
    return;
  }
  std::uint64_t length = 0;
  std::string location;
  for (const auto& entry : tensor.external_data()) {
    if (entry.key() == "location") location = entry.value();
    if (entry.key() == "length") length = std::strtoull(entry.value().c_str(), nullptr, 10);
  }
  stats.external_bytes += length;
  ++stats.external_files[location];
}

}  // namespace

std::string FormatType(const TypeProto& type) {
  if (type.has_tensor_type()) {
    const auto& tensor = type.tensor_type();
    std::string text = ElementTypeName(tensor.elem_type());
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    if (!tensor.has_shape()) return text + "[?rank]";
    text += "[";
    for (int i = 0; i < tensor.shape().dim_size(); ++i) {
      const auto& dim = tensor.shape().dim(i);
      if (i) text += ",";
      if (dim.has_dim_value()) text += std::to_string(dim.dim_value());
      else if (dim.has_dim_param()) text += dim.dim_param();
      else text += "?";
    }
    return text + "]";
  }
  if (type.has_sequence_type()) return "seq(" + FormatType(type.sequence_type().elem_type()) + ")";
  if (type.has_optional_type()) return "optional(" + FormatType(type.optional_type().elem_type()) + ")";
  if (type.has_map_type()) return "map(" + ElementTypeName(type.map_type().key_type()) + ", " +
                                  FormatType(type.map_type().value_type()) + ")";
  return "?";
}

std::string FormatBytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  std::ostringstream text;
  text.precision(unit == 0 ? 0 : 1);
  text << std::fixed << value << " " << units[unit];
  return text.str();
}

std::string OpKey(const NodeProto& node) {
  if (node.domain().empty() || node.domain() == "ai.onnx") return node.op_type();
  return node.domain() + "::" + node.op_type();
}




// Counts the nodes of `graph` and of every graph nested in it. Iterative: a hostile
// model cannot exhaust the stack.
void CountGraph(const GraphProto& root, Histogram& histogram, InitializerStats& stats) {
  std::vector<const GraphProto*> pending = {&root};
  while (!pending.empty()) {
    const GraphProto* graph = pending.back();
    pending.pop_back();
    for (const auto& tensor : graph->initializer()) AddInitializer(tensor, stats);
    for (const auto& node : graph->node()) {
      ++histogram.ops[OpKey(node)];
      ++histogram.nodes;
      for (const auto& attribute : node.attribute()) {
        if (attribute.has_g()) pending.push_back(&attribute.g());
        for (const auto& nested : attribute.graphs()) pending.push_back(&nested);
        histogram.nested_graphs += (attribute.has_g() ? 1 : 0) + attribute.graphs_size();
      }
    }
  }
}

}  // namespace onnxopt::core::ir
