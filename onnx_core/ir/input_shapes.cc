#include "onnx_core/ir/input_shapes.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"

namespace onnxopt::core::ir {

namespace {

std::string InputNames(const GraphProto& graph) {
  std::string names;
  for (const ValueInfoProto& input : graph.input()) names += (names.empty() ? "" : ", ") + Quote(input.name());
  return names.empty() ? "none" : names;
}

// Adds symbol = value to `bindings`; a second, different value is a contradiction.
void Bind(std::map<std::string, std::int64_t>& bindings, const std::string& symbol, std::int64_t value,
          const std::string& origin) {
  auto [it, inserted] = bindings.emplace(symbol, value);
  if (!inserted && it->second != value)
    throw ModelError("dimension " + Quote(symbol) + " would be both " + std::to_string(it->second) + " and " +
                     std::to_string(value) + " (" + origin + ")");
}

void BindShape(TypeProto& type, const std::map<std::string, std::int64_t>& bindings) {
  TypeProto* tensor_holder = &type;
  // Sequences and optionals hold their tensor type one level down.
  while (!tensor_holder->has_tensor_type()) {
    if (tensor_holder->has_sequence_type())
      tensor_holder = tensor_holder->mutable_sequence_type()->mutable_elem_type();
    else if (tensor_holder->has_optional_type())
      tensor_holder = tensor_holder->mutable_optional_type()->mutable_elem_type();
    else
      return;
  }
  if (!tensor_holder->tensor_type().has_shape()) return;
  for (auto& dim : *tensor_holder->mutable_tensor_type()->mutable_shape()->mutable_dim())
    if (dim.has_dim_param())
      if (auto it = bindings.find(dim.dim_param()); it != bindings.end()) dim.set_dim_value(it->second);
}

void BindGraph(GraphProto& graph, const std::map<std::string, std::int64_t>& bindings) {
  for (auto* values : {graph.mutable_input(), graph.mutable_output(), graph.mutable_value_info()})
    for (ValueInfoProto& value : *values)
      if (value.has_type()) BindShape(*value.mutable_type(), bindings);
  for (NodeProto& node : *graph.mutable_node())
    for (AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_g()) BindGraph(*attribute.mutable_g(), bindings);
      for (GraphProto& nested : *attribute.mutable_graphs()) BindGraph(nested, bindings);
    }
}

std::int64_t ParseDimension(const std::string& text, const std::string& option) {
  constexpr std::int64_t kMax = std::int64_t{1} << 31;
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0 || value > kMax)
    throw Error(option + " expects an integer in [0, " + std::to_string(kMax) + "], got '" + text + "'");
  return value;
}

}  // namespace

InputShapeSettings ParseInputShapeSettings(const std::vector<std::string>& input_shapes,
                                           const std::vector<std::string>& dims) {
  InputShapeSettings settings;
  for (const std::string& text : dims) {
    const auto eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
      throw Error("--dim expects NAME=VALUE, got '" + text + "'");
    settings.dims[text.substr(0, eq)] = ParseDimension(text.substr(eq + 1), "--dim");
  }
  for (const std::string& text : input_shapes) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0)
      throw Error("--overwrite-input-shape expects NAME:D0,D1,..., got '" + text + "'");
    const std::string name = text.substr(0, colon);
    std::vector<std::int64_t> shape;
    const std::string list = text.substr(colon + 1);
    for (std::size_t start = 0; !list.empty() && start <= list.size();) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      shape.push_back(ParseDimension(list.substr(start, comma - start), "--overwrite-input-shape " + name));
      start = comma + 1;
    }
    if (!settings.input_shapes.emplace(name, std::move(shape)).second)
      throw Error("--overwrite-input-shape: input '" + name + "' is given twice");
  }
  return settings;
}

std::string DescribeInputShapeSettings(const InputShapeSettings& settings) {
  std::string text;
  for (const auto& [name, dims] : settings.input_shapes) {
    text += (text.empty() ? "" : " ") + std::string("--overwrite-input-shape ") + name + ":";
    for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
  }
  for (const auto& [symbol, value] : settings.dims)
    text += (text.empty() ? "" : " ") + std::string("--dim ") + symbol + "=" + std::to_string(value);
  return text;
}

void ApplyInputShapeSettings(ModelProto& model, const InputShapeSettings& settings) {
  GraphProto& graph = *model.mutable_graph();
  std::map<std::string, std::int64_t> bindings;
  for (const auto& [symbol, value] : settings.dims) {
    if (value < 0) throw ModelError("--dim " + symbol + ": a dimension cannot be negative (" + std::to_string(value) + ")");
    bindings.emplace(symbol, value);
  }
  // Checked whole before anything changes: an error leaves the model as it was.
  std::map<std::string, ValueInfoProto*> inputs;
  for (ValueInfoProto& input : *graph.mutable_input()) inputs.emplace(input.name(), &input);
  for (const auto& [name, dims] : settings.input_shapes) {
    const std::string origin = "--overwrite-input-shape " + name;
    auto it = inputs.find(name);
    if (it == inputs.end())
      throw ModelError(origin + ": the model has no input named " + Quote(name) + " (inputs: " + InputNames(graph) + ")");
    const TypeProto& type = it->second->type();
    if (!type.has_tensor_type()) throw ModelError(origin + ": input " + Quote(name) + " is not a tensor");
    for (std::int64_t dim : dims)
      if (dim < 0) throw ModelError(origin + ": a dimension cannot be negative (" + std::to_string(dim) + ")");
    if (!type.tensor_type().has_shape()) continue;
    const auto& declared = type.tensor_type().shape().dim();
    if (declared.size() != static_cast<int>(dims.size()))
      throw ModelError(origin + ": input " + Quote(name) + " has rank " + std::to_string(declared.size()) + ", not " +
                       std::to_string(dims.size()));
    for (int axis = 0; axis < declared.size(); ++axis) {
      const auto& dim = declared[axis];
      if (dim.has_dim_value() && dim.dim_value() != dims[axis])
        throw ModelError(origin + ": dimension " + std::to_string(axis) + " of input " + Quote(name) + " is " +
                         std::to_string(dim.dim_value()) + ", not " + std::to_string(dims[axis]));
      if (dim.has_dim_param()) Bind(bindings, dim.dim_param(), dims[axis], origin);
    }
  }
  std::set<std::string> input_symbols;
  for (const ValueInfoProto& input : graph.input())
    if (input.type().has_tensor_type())
      for (const auto& dim : input.type().tensor_type().shape().dim())
        if (dim.has_dim_param()) input_symbols.insert(dim.dim_param());
  for (const auto& [symbol, value] : settings.dims)
    if (!input_symbols.contains(symbol))
      throw ModelError("--dim " + symbol + "=" + std::to_string(value) + ": no input of the model has a dimension named " +
                       Quote(symbol));

  for (const auto& [name, dims] : settings.input_shapes) {
    auto* shape = inputs.at(name)->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (std::int64_t dim : dims) shape->add_dim()->set_dim_value(dim);
  }
  BindGraph(graph, bindings);
}

}  // namespace onnxopt::core::ir
