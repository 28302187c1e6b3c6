#include "onnx_core/memory/memory_options.h"

#include <charconv>

#include "onnx_core/common/error.h"

namespace onnxopt::core::memory {

namespace {

std::vector<std::string> Split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// A position in `values` given as an index or a name.
int ParseIndex(const std::string& token, const google::protobuf::RepeatedPtrField<ValueInfoProto>& values,
               std::string_view option, std::string_view what) {
  for (int i = 0; i < values.size(); ++i)
    if (values.Get(i).name() == token && !token.empty()) return i;
  int index = -1;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), index);
  if (token.empty() || error != std::errc() || end != token.data() + token.size())
    throw Error(std::string(option) + ": '" + token + "' is neither an index nor the name of a graph " +
                std::string(what));
  if (index < 0) throw Error(std::string(option) + ": '" + token + "' is negative");
  if (index >= values.size())
    throw Error(std::string(option) + ": " + std::string(what) + " index " + token +
                " is out of range (the graph has " + std::to_string(values.size()) + ")");
  return index;
}

bool NodeExists(const GraphProto& graph, const std::string& reference) {
  for (const NodeProto& node : graph.node()) {
    if (!node.name().empty() && node.name() == reference) return true;
    for (const std::string& output : node.output())
      if (output == reference) return true;
  }
  return false;
}

}  // namespace

MemoryOptions ParseMemoryOptions(const MemoryOptionTexts& texts, const GraphProto& graph) {
  MemoryOptions options;
  if (!texts.output_reuse_input.empty())
    for (const std::string& pair : Split(texts.output_reuse_input, '|')) {
      const std::vector<std::string> parts = Split(pair, ',');
      if (parts.size() != 2) throw Error("--output-reuse-input: '" + pair + "' is not a pair INPUT,OUTPUT");
      options.output_reuse_input.emplace_back(ParseIndex(parts[0], graph.input(), "--output-reuse-input", "input"),
                                              ParseIndex(parts[1], graph.output(), "--output-reuse-input", "output"));
    }
  if (!texts.input_reuse.empty())
    for (const std::string& token : Split(texts.input_reuse, ','))
      options.input_reuse.insert(ParseIndex(token, graph.input(), "--input-reuse", "input"));
  for (const std::string& reference : texts.keep_copies) {
    if (!NodeExists(graph, reference)) throw Error("--keep-copy: no node or node output '" + reference + "'");
    options.keep_copies.insert(reference);
  }
  for (const std::string& text : texts.ordering) {
    const std::vector<std::string> parts = Split(text, ':');
    if (parts.size() != 2) throw Error("--order: '" + text + "' is not BEFORE:AFTER");
    for (const std::string& reference : parts)
      if (!NodeExists(graph, reference)) throw Error("--order: no node or node output '" + reference + "'");
    options.ordering.emplace_back(parts[0], parts[1]);
  }
  if (texts.visit_order == "topological") {
    options.visit_order = MemoryOptions::VisitOrder::kTopological;
  } else if (!texts.visit_order.empty() && texts.visit_order != "reverse") {
    throw Error("--visit-order: '" + texts.visit_order + "' is neither 'reverse' nor 'topological'");
  }
  if (texts.inplace_ops == "none") {
    options.inplace_ops.clear();
  } else if (!texts.inplace_ops.empty()) {
    options.inplace_ops.clear();
    for (const std::string& family : Split(texts.inplace_ops, ',')) {
      if (family.empty()) throw Error("--inplace-ops: empty family name");
      options.inplace_ops.insert(family);
    }
  }
  options.identity_is_copy = !texts.identity_is_view;
  options.specialize_functions = !texts.no_specialize_functions;
  return options;
}

}  // namespace onnxopt::core::memory
