#include "onnx_core/fusion/pattern_graph.h"

#include <onnx/defs/parser.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include "onnx_core/ir/graph_queries.h"

namespace onnxopt::fusion {

namespace {

std::string Quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

// Operators whose instances hold graphs: a pattern cannot describe their bodies.
bool HoldsGraphs(const OpKey& key) {
  static const char* const kControlFlow[] = {"If", "Loop", "Scan", "SequenceMap"};
  if (!core::ir::IsOnnxDomain(key.domain)) return false;
  return std::any_of(std::begin(kControlFlow), std::end(kControlFlow),
                     [&](const char* op) { return key.op_type == op; });
}

bool IsGraphAttribute(const AttributeProto& attribute) {
  return attribute.type() == AttributeProto::GRAPH || attribute.type() == AttributeProto::GRAPHS ||
         attribute.has_g() || attribute.graphs_size() > 0;
}

// Union-find over node indices, for the connectivity rule.
class Components {
 public:
  explicit Components(std::size_t count) : parent_(count) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::size_t Find(std::size_t i) { return parent_[i] == i ? i : parent_[i] = Find(parent_[i]); }
  void Join(std::size_t a, std::size_t b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<std::size_t> parent_;
};

}  // namespace

bool OpKey::SameAs(const NodeProto& node) const {
  if (node.op_type() != op_type) return false;
  if (domain.empty()) return core::ir::IsOnnxDomain(node.domain());  // most patterns: no domain
  const bool onnx_domain = core::ir::IsOnnxDomain(domain);
  return onnx_domain ? core::ir::IsOnnxDomain(node.domain()) : node.domain() == domain;
}

std::string OpKey::ToString() const {
  return core::ir::IsOnnxDomain(domain) ? op_type : domain + "." + op_type;
}

int Sketch::AddValue(Value value) {
  values.push_back(std::move(value));
  return static_cast<int>(values.size()) - 1;
}

int Sketch::AddNode(OpKey key, std::vector<int> inputs, std::size_t num_outputs) {
  const int node = static_cast<int>(nodes.size());
  nodes.push_back(Node{std::move(key), std::move(inputs), {}, {}, {}});
  for (std::size_t slot = 0; slot < num_outputs; ++slot)
    nodes.back().outputs.push_back(AddValue(Value{Kind::kNodeOutput, node, static_cast<int>(slot), {}, {}}));
  return node;
}

std::string Sketch::DescribeNode(int node) const {
  const Node& n = nodes[node];
  return "node " + std::to_string(node) + " (" + n.key.ToString() + (n.label.empty() ? "" : " " + Quoted(n.label)) +
         ")";
}

std::string Sketch::DescribeValue(int id) const {
  const Value& v = values[id];
  switch (v.kind) {
    case Kind::kPlaceholder: return "placeholder " + std::to_string(v.index);
    case Kind::kConstant: return "constant" + (v.label.empty() ? "" : " " + Quoted(v.label));
    case Kind::kAbsent: return "an absent input";
    case Kind::kExisting: return "existing value " + Quoted(v.label);
    case Kind::kNodeOutput: return "output " + std::to_string(v.slot) + " of " + DescribeNode(v.index);
  }
  return "value " + std::to_string(id);
}

Sketch::Kind ValueRef::Kind() const {
  if (!sketch_ || id_ < 0) throw PatternError("an empty ValueRef was used");
  return sketch_->values[id_].kind;
}

// --- OpBuilder -----------------------------------------------------------------------

OpBuilder& OpBuilder::Attr(std::string name, std::int64_t value) {
  AttributeProto attribute;
  attribute.set_name(std::move(name));
  attribute.set_type(AttributeProto::INT);
  attribute.set_i(value);
  return Attr(std::move(attribute));
}

OpBuilder& OpBuilder::Attr(std::string name, float value) {
  AttributeProto attribute;
  attribute.set_name(std::move(name));
  attribute.set_type(AttributeProto::FLOAT);
  attribute.set_f(value);
  return Attr(std::move(attribute));
}

OpBuilder& OpBuilder::Attr(std::string name, std::string value) {
  AttributeProto attribute;
  attribute.set_name(std::move(name));
  attribute.set_type(AttributeProto::STRING);
  attribute.set_s(std::move(value));
  return Attr(std::move(attribute));
}

OpBuilder& OpBuilder::Attr(std::string name, std::vector<std::int64_t> values) {
  AttributeProto attribute;
  attribute.set_name(std::move(name));
  attribute.set_type(AttributeProto::INTS);
  for (std::int64_t v : values) attribute.add_ints(v);
  return Attr(std::move(attribute));
}

OpBuilder& OpBuilder::Attr(std::string name, std::vector<float> values) {
  AttributeProto attribute;
  attribute.set_name(std::move(name));
  attribute.set_type(AttributeProto::FLOATS);
  for (float v : values) attribute.add_floats(v);
  return Attr(std::move(attribute));
}

OpBuilder& OpBuilder::Attr(AttributeProto attribute) {
  Sketch::Node& node = sketch_->nodes[node_];
  if (attribute.name().empty())
    throw PatternError(sketch_->name + ": an attribute of " + sketch_->DescribeNode(node_) + " has no name");
  if (IsGraphAttribute(attribute))
    throw PatternError(sketch_->name + ": " + sketch_->DescribeNode(node_) + " has a graph-valued attribute " +
                       Quoted(attribute.name()) + ", which patterns and replacements cannot hold");
  std::erase_if(node.attributes, [&](const AttributeProto& a) { return a.name() == attribute.name(); });
  node.attributes.push_back(std::move(attribute));
  return *this;
}

OpBuilder& OpBuilder::Outputs(std::size_t count) {
  Sketch::Node& node = sketch_->nodes[node_];
  if (count == 0) throw PatternError(sketch_->name + ": " + sketch_->DescribeNode(node_) + " needs an output");
  while (node.outputs.size() < count)
    node.outputs.push_back(sketch_->AddValue(
        Sketch::Value{Sketch::Kind::kNodeOutput, node_, static_cast<int>(node.outputs.size()), {}, {}}));
  if (node.outputs.size() > count)
    throw PatternError(sketch_->name + ": the output count of " + sketch_->DescribeNode(node_) +
                       " can only grow (an output was already used)");
  return *this;
}

OpBuilder& OpBuilder::Label(std::string label) {
  sketch_->nodes[node_].label = std::move(label);
  return *this;
}

ValueRef OpBuilder::Out(std::size_t i) const {
  const Sketch::Node& node = sketch_->nodes[node_];
  if (i >= node.outputs.size())
    throw PatternError(sketch_->name + ": " + sketch_->DescribeNode(node_) + " has " +
                       std::to_string(node.outputs.size()) + " outputs, output " + std::to_string(i) +
                       " was asked (call Outputs(n) first)");
  return ValueRef(sketch_, node.outputs[i]);
}

// --- Builders ------------------------------------------------------------------------

SketchBuilder::SketchBuilder(std::string name) : sketch_(std::make_shared<Sketch>()) {
  sketch_->name = std::move(name);
}

int SketchBuilder::Own(const ValueRef& value) const {
  if (value.Owner() != sketch_)
    throw PatternError(sketch_->name + ": a value of another pattern or replacement was used");
  return value.Id();
}

ValueRef SketchBuilder::Constant(TensorProto value, std::string label) {
  return ValueRef(sketch_, sketch_->AddValue(Sketch::Value{Sketch::Kind::kConstant, -1, 0, std::move(value),
                                                           std::move(label)}));
}

ValueRef SketchBuilder::Absent() {
  return ValueRef(sketch_, sketch_->AddValue(Sketch::Value{Sketch::Kind::kAbsent, -1, 0, {}, {}}));
}

OpBuilder SketchBuilder::Op(std::string_view op_type, std::vector<ValueRef> inputs) {
  return Op(OpKey{"", std::string(op_type)}, std::move(inputs));
}

OpBuilder SketchBuilder::Op(OpKey key, std::vector<ValueRef> inputs) {
  if (key.op_type.empty()) throw PatternError(sketch_->name + ": an op without a type");
  std::vector<int> ids;
  for (const ValueRef& input : inputs) ids.push_back(Own(input));
  return OpBuilder(sketch_, sketch_->AddNode(std::move(key), std::move(ids), 1));
}

PatternBuilder::PatternBuilder(std::string name) : SketchBuilder(std::move(name)) {}

ValueRef PatternBuilder::Input() {
  const int index = sketch_->num_placeholders++;
  return ValueRef(sketch_, sketch_->AddValue(Sketch::Value{Sketch::Kind::kPlaceholder, index, 0, {}, {}}));
}

std::vector<ValueRef> PatternBuilder::Inputs(std::size_t count) {
  std::vector<ValueRef> inputs;
  for (std::size_t i = 0; i < count; ++i) inputs.push_back(Input());
  return inputs;
}

ValueRef PatternBuilder::AnyConstant(std::string label) {
  return ValueRef(sketch_,
                  sketch_->AddValue(Sketch::Value{Sketch::Kind::kConstant, -1, 0, std::nullopt, std::move(label)}));
}

Pattern PatternBuilder::Build(std::vector<ValueRef> outputs) {
  std::vector<int> ids;
  for (const ValueRef& output : outputs) ids.push_back(Own(output));
  // The pattern gets its own copy: later edits through this builder do not reach it.
  return Pattern(std::make_shared<Sketch>(*sketch_), std::move(ids), sketch_.get());
}

// --- Pattern -------------------------------------------------------------------------

Pattern::Pattern(std::shared_ptr<Sketch> sketch, std::vector<int> outputs, const Sketch* source)
    : sketch_(std::move(sketch)), source_(source), outputs_(std::move(outputs)) {
  Validate();
}

void Pattern::Validate() {
  const Sketch& g = *sketch_;
  const std::string prefix = "pattern " + Quoted(g.name) + ": ";
  if (outputs_.empty()) throw PatternError(prefix + "it has no output");
  if (g.nodes.size() > kMaxPatternNodes)
    throw PatternError(prefix + "it has " + std::to_string(g.nodes.size()) + " nodes, more than the " +
                       std::to_string(kMaxPatternNodes) + " a pattern may have");
  for (std::size_t j = 0; j < outputs_.size(); ++j) {
    const Sketch::Value& v = g.values[outputs_[j]];
    if (v.kind == Sketch::Kind::kPlaceholder)
      throw PatternError(prefix + "output " + std::to_string(j) + " is " + g.DescribeValue(outputs_[j]) +
                         ", not a node output");
    if (v.kind != Sketch::Kind::kNodeOutput)
      throw PatternError(prefix + "output " + std::to_string(j) + " is " + g.DescribeValue(outputs_[j]) +
                         ", not produced by an ordinary node");
    for (std::size_t k = 0; k < j; ++k)
      if (outputs_[k] == outputs_[j])
        throw PatternError(prefix + g.DescribeValue(outputs_[j]) + " is declared twice as an output (outputs " +
                           std::to_string(k) + " and " + std::to_string(j) + ")");
  }
  anchor_ = g.values[outputs_[0]].index;

  // Graph-holding nodes, attributes, and uses of every value.
  std::vector<int> readers(g.values.size(), 0);
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    if (HoldsGraphs(g.nodes[n].key))
      throw PatternError(prefix + g.DescribeNode(static_cast<int>(n)) + " holds subgraphs, which a pattern cannot match");
    for (const AttributeProto& attribute : g.nodes[n].attributes)
      if (IsGraphAttribute(attribute))
        throw PatternError(prefix + g.DescribeNode(static_cast<int>(n)) + " has a graph-valued attribute");
    for (int input : g.nodes[n].inputs) ++readers[input];
  }
  for (std::size_t id = 0; id < g.values.size(); ++id)
    if (g.values[id].kind == Sketch::Kind::kPlaceholder && readers[id] == 0)
      throw PatternError(prefix + g.DescribeValue(static_cast<int>(id)) + " is declared but no node reads it");

  // Topological order (Kahn, stable by node index); a leftover node is on a cycle.
  std::vector<int> pending(g.nodes.size(), 0);
  std::vector<std::vector<int>> consumers(g.nodes.size());
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    for (int input : g.nodes[n].inputs)
      if (g.values[input].kind == Sketch::Kind::kNodeOutput) {
        ++pending[n];
        consumers[g.values[input].index].push_back(static_cast<int>(n));
      }
  order_.clear();
  std::vector<bool> placed(g.nodes.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t n = 0; n < g.nodes.size(); ++n)
      if (!placed[n] && pending[n] == 0) {
        placed[n] = progress = true;
        order_.push_back(static_cast<int>(n));
        for (int c : consumers[n]) --pending[c];
      }
  }
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    if (!placed[n]) throw PatternError(prefix + g.DescribeNode(static_cast<int>(n)) + " is on a cycle");

  // Every node reaches an output.
  std::vector<bool> useful(g.nodes.size(), false);
  for (int output : outputs_) useful[g.values[output].index] = true;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it)
    if (useful[*it])
      for (int input : g.nodes[*it].inputs)
        if (g.values[input].kind == Sketch::Kind::kNodeOutput) useful[g.values[input].index] = true;
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    if (!useful[n]) throw PatternError(prefix + g.DescribeNode(static_cast<int>(n)) + " reaches no output");

  // Connected, counting shared placeholders and constants as links between their readers.
  Components parts(g.nodes.size());
  std::map<int, std::size_t> first_reader;
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    for (int input : g.nodes[n].inputs) {
      const Sketch::Value& v = g.values[input];
      if (v.kind == Sketch::Kind::kNodeOutput) {
        parts.Join(n, static_cast<std::size_t>(v.index));
      } else if (v.kind != Sketch::Kind::kAbsent) {
        auto [it, inserted] = first_reader.emplace(input, n);
        if (!inserted) parts.Join(n, it->second);
      }
    }
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    if (parts.Find(n) != parts.Find(static_cast<std::size_t>(anchor_)))
      throw PatternError(prefix + g.DescribeNode(static_cast<int>(n)) + " is not connected to the anchor " +
                         g.DescribeNode(anchor_) + " (disconnected parts are separate patterns)");
}

std::size_t Pattern::Capture(const ValueRef& value) { return Capture(value, {}); }

std::size_t Pattern::Capture(const ValueRef& value, std::string name) {
  if (value.Owner().get() != source_ || value.Id() < 0 ||
      static_cast<std::size_t>(value.Id()) >= sketch_->values.size())
    throw PatternError("pattern " + Quoted(sketch_->name) + ": the captured value is not one of its values");
  if (sketch_->values[value.Id()].kind == Sketch::Kind::kAbsent)
    throw PatternError("pattern " + Quoted(sketch_->name) + ": an absent input cannot be captured");
  captures_.push_back(CaptureSlot{value.Id(), std::move(name)});
  return captures_.size() - 1;
}

std::vector<std::string> Pattern::IgnoredAttributeDiagnostics() const {
  std::vector<std::string> diagnostics;
  for (std::size_t n = 0; n < sketch_->nodes.size(); ++n)
    if (!sketch_->nodes[n].attributes.empty())
      diagnostics.push_back("pattern " + Quoted(sketch_->name) + ": attributes on " +
                            sketch_->DescribeNode(static_cast<int>(n)) +
                            " are ignored because attribute matching is off");
  return diagnostics;
}

std::string Pattern::ToString() const {
  const Sketch& g = *sketch_;
  std::string text = g.name + " (" + std::to_string(g.num_placeholders) + " inputs) {";
  for (int n : order_) {
    text += " " + g.DescribeNode(n) + "(";
    for (std::size_t i = 0; i < g.nodes[n].inputs.size(); ++i)
      text += (i ? ", " : "") + g.DescribeValue(g.nodes[n].inputs[i]);
    text += ");";
  }
  return text + " }";
}

// --- Text form -----------------------------------------------------------------------

Pattern Pattern::FromText(std::string_view text) {
  FunctionProto function;
  const std::string copy(text);
  const auto status = onnx::OnnxParser::Parse(function, copy.c_str());
  if (!status.IsOK()) throw PatternError("pattern text does not parse: " + status.ErrorMessage());
  PatternBuilder builder(function.name().empty() ? "pattern" : function.name());
  std::map<std::string, ValueRef, std::less<>> values;
  for (const std::string& input : function.input()) values[input] = builder.Input();
  // Nodes may come in any order in the text; a node is built once its inputs exist, and a
  // node that never can be is on a cycle (or reads an unknown name).
  std::vector<bool> built(function.node_size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (int n = 0; n < function.node_size(); ++n) {
      const NodeProto& node = function.node(n);
      if (built[n]) continue;
      if (node.domain() == "onnxopt.pattern" && node.op_type() == "AnyConstant") {
        if (node.output_size() != 1) throw PatternError("pattern text: AnyConstant has one output");
        values[node.output(0)] = builder.AnyConstant(node.output(0));
        built[n] = progress = true;
        continue;
      }
      std::vector<ValueRef> inputs;
      bool ready = true;
      for (const std::string& input : node.input()) {
        if (input.empty()) {
          inputs.push_back(builder.Absent());
          continue;
        }
        auto it = values.find(input);
        if (it == values.end()) {
          ready = false;
          break;
        }
        inputs.push_back(it->second);
      }
      if (!ready) continue;
      OpBuilder op = builder.Op(OpKey{node.domain(), node.op_type()}, inputs);
      op.Label(node.name().empty() ? node.output(0) : node.name());
      for (const AttributeProto& attribute : node.attribute()) op.Attr(attribute);
      op.Outputs(std::max(1, node.output_size()));
      for (int k = 0; k < node.output_size(); ++k)
        if (!node.output(k).empty()) values[node.output(k)] = op.Out(static_cast<std::size_t>(k));
      built[n] = progress = true;
    }
  }
  for (int n = 0; n < function.node_size(); ++n)
    if (!built[n])
      throw PatternError("pattern " + Quoted(function.name()) + ": node " + std::to_string(n) + " (" +
                         function.node(n).op_type() + ") reads a value defined nowhere or is on a cycle");
  std::vector<ValueRef> outputs;
  for (const std::string& output : function.output()) {
    auto it = values.find(output);
    if (it == values.end()) throw PatternError("pattern text: output '" + output + "' is defined nowhere");
    outputs.push_back(it->second);
  }
  return builder.Build(std::move(outputs));
}

}  // namespace onnxopt::fusion
