#include "onnx_core/fusion/matcher.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <mutex>
#include <set>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/constant_values.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/op_schema.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match_cache.h"

namespace onnxopt::fusion {

using core::builder::GraphGraph;
using Kind = Sketch::Kind;

namespace {

// Boundary rejections name values and nodes, but NoMatch reasons are string views that
// must outlive the report: the messages are kept here, once each.
std::string_view Intern(std::string message) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> messages;
  std::lock_guard lock(mutex);
  return *messages.insert(std::move(message)).first;
}

std::string Quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string DescribeTarget(const NodeProto& node) {
  return node.op_type() + " " + Quoted(node.name().empty() ? node.output(0) : node.name());
}

// Entry i of a node's input or output field, through the field's iterator: Get (behind
// input(i) and output(i)) is not inlined, it lives in libprotobuf, and the walk reads names
// on every candidate.
template <class Field>
const std::string& NameAt(const Field& names, int i) {
  return *(names.begin() + i);
}

// Input or output count without trailing "" entries (through iterators, as NameAt).
template <class Field>
int TrimmedSize(const Field& names) {
  auto end = names.end();
  while (end != names.begin() && std::prev(end)->empty()) --end;
  return static_cast<int>(end - names.begin());
}

int PatternInputCount(const Sketch& sketch, const Sketch::Node& node) {
  int size = static_cast<int>(node.inputs.size());
  while (size > 0 && sketch.values[node.inputs[size - 1]].kind == Kind::kAbsent) --size;
  return size;
}

bool SameAttribute(const AttributeProto& a, const AttributeProto& b) {
  AttributeProto left = a, right = b;
  left.clear_doc_string();
  right.clear_doc_string();
  return left.SerializeAsString() == right.SerializeAsString();
}

const AttributeProto* FindAttribute(const NodeProto& node, std::string_view name) {
  for (const AttributeProto& attribute : node.attribute())
    if (attribute.name() == name) return &attribute;
  return nullptr;
}

// An attribute one side leaves out has its default there: the operator's schema at the
// opset the graph imports gives it (core::ir::DefaultAttribute), so an explicit default and
// an absent attribute compare equal. Without a default (none in the schema, an unknown
// operator or version) an unset attribute equals only an unset one.
bool AttributesMatch(const GraphGraph& graph, const Sketch::Node& pattern, const NodeProto& target) {
  const core::ir::OpSchema* schema = nullptr;
  bool looked_up = false;
  auto default_of = [&](std::string_view name) -> std::optional<AttributeProto> {
    if (!looked_up) {
      looked_up = true;
      if (const auto version = graph.Builder().OpsetVersion(target.domain()))
        schema = core::ir::FindOpSchema(target.domain(), target.op_type(), *version);
    }
    if (!schema) return std::nullopt;
    return core::ir::DefaultAttribute(*schema, name);
  };
  for (const AttributeProto& wanted : pattern.attributes) {
    if (const AttributeProto* found = FindAttribute(target, wanted.name())) {
      if (!SameAttribute(wanted, *found)) return false;
      continue;
    }
    const std::optional<AttributeProto> fallback = default_of(wanted.name());
    if (!fallback || !SameAttribute(wanted, *fallback)) return false;
  }
  for (const AttributeProto& present : target.attribute()) {
    if (std::any_of(pattern.attributes.begin(), pattern.attributes.end(),
                    [&](const AttributeProto& a) { return a.name() == present.name(); }))
      continue;
    const std::optional<AttributeProto> fallback = default_of(present.name());
    if (!fallback || !SameAttribute(*fallback, present)) return false;
  }
  return true;
}

bool SameTensorValue(const TensorProto& a, const TensorProto& b) {
  if (a.data_type() != b.data_type()) return false;
  if (!std::equal(a.dims().begin(), a.dims().end(), b.dims().begin(), b.dims().end())) return false;
  if (a.data_type() == TensorProto::STRING)
    return std::equal(a.string_data().begin(), a.string_data().end(), b.string_data().begin(),
                      b.string_data().end());
  const std::optional<std::string> left = core::ir::RawBytes(a), right = core::ir::RawBytes(b);
  return left && right && *left == *right;
}

const NodeProto* ConstantNode(const GraphGraph& graph, std::string_view name) {
  const NodeProto* producer = graph.NodeBefore(name);
  if (!producer || producer->op_type() != "Constant" || !core::ir::IsOnnxDomain(producer->domain()))
    return nullptr;
  return core::ir::SparseConstantValue(*producer) ? nullptr : producer;
}

}  // namespace

const std::string& AbsentValue() {
  static const std::string kAbsent;
  return kAbsent;
}

// The value a materialized constant of this graph holds: an initializer that is not also
// a graph input (IR < 4 lets an input override it), or a Constant node's output.
std::optional<TensorProto> MaterializedConstant(const GraphGraph& graph, std::string_view name) {
  core::builder::NoteRead(name, core::builder::ValueSide::kDefinition);  // asks the builder, not the graph
  if (const TensorProto* init = graph.Builder().Initializer(name); init && !graph.Builder().IsGraphInput(name))
    return *init;
  if (const NodeProto* node = ConstantNode(graph, name)) return core::ir::ConstantNodeValue(*node);
  return std::nullopt;
}

bool IsMaterializedConstant(const GraphGraph& graph, std::string_view name) {
  core::builder::NoteRead(name, core::builder::ValueSide::kDefinition);  // asks the builder, not the graph
  const TensorProto* init = graph.Builder().Initializer(name);
  if (init) return !graph.Builder().IsGraphInput(name);
  return ConstantNode(graph, name) != nullptr;
}

struct PatternMatcher::State {
  const GraphGraph& graph;
  Binding& binding;
  std::string_view why;
  const NodeProto* insert_at = nullptr;
  bool Fail(std::string_view reason) {
    why = reason;
    return false;
  }
};

namespace {

// Scratch space of the matcher, reused across candidates: most candidates fail after a
// node or two, and allocating bindings for each would cost more than the walk.
struct Scratch {
  Binding binding;
  std::vector<const NodeProto*> matched;
  std::vector<const std::string*> declared;
};

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

}  // namespace

PatternMatcher::PatternMatcher(Pattern pattern, PatternMatcherConfig config)
    : pattern_(std::move(pattern)), config_(config) {
  const Sketch& sketch = pattern_.Graph();
  readers_.resize(sketch.values.size());
  for (int n : pattern_.TopologicalNodes())
    for (std::size_t slot = 0; slot < sketch.nodes[n].inputs.size(); ++slot)
      readers_[sketch.nodes[n].inputs[slot]].emplace_back(n, static_cast<int>(slot));
}

bool PatternMatcher::NodeFits(State& s, int pattern_node, const NodeProto& target) const {
  const Sketch& sketch = pattern_.Graph();
  const Sketch::Node& node = sketch.nodes[pattern_node];
  if (!node.key.SameAs(target)) return s.Fail("the operator differs from the pattern node's");
  if (PatternInputCount(sketch, node) != TrimmedSize(target.input()))
    return s.Fail("the input count differs from the pattern node's");
  if (static_cast<int>(node.outputs.size()) != TrimmedSize(target.output()))
    return s.Fail("the output count differs from the pattern node's");
  if (config_.IsEnableIrAttrMatch() && !AttributesMatch(s.graph, node, target))
    return s.Fail("the attributes differ from the pattern node's");
  return true;
}

bool PatternMatcher::BindValue(State& state, int value, const std::string& target) const {
  const Sketch::Value& v = pattern_.Graph().values[value];
  const std::string*& bound = state.binding.values[value];
  if (bound) return *bound == target || state.Fail("a pattern value is bound to two different values");
  if (v.kind == Kind::kConstant) {
    if (!IsMaterializedConstant(state.graph, target))
      return state.Fail("a pattern constant is bound to a value that is not a constant of the graph");
    if (config_.IsEnableConstValueMatch() && v.tensor) {
      const std::optional<TensorProto> actual = MaterializedConstant(state.graph, target);
      if (!actual || !SameTensorValue(*v.tensor, *actual))
        return state.Fail("a constant's value differs from the pattern constant's");
    }
  }
  bound = &target;
  return true;
}

bool PatternMatcher::Walk(State& state, int pattern_node, const NodeProto& target) const {
  Binding& b = state.binding;
  if (b.nodes[pattern_node]) return b.nodes[pattern_node] == &target || state.Fail("the pattern does not close here");
  if (std::find(b.nodes.begin(), b.nodes.end(), &target) != b.nodes.end())
    return state.Fail("two pattern nodes would bind the same node");
  return NodeFits(state, pattern_node, target) && WalkFitted(state, pattern_node, target);
}

bool PatternMatcher::WalkFitted(State& state, int pattern_node, const NodeProto& target) const {
  Binding& b = state.binding;
  const Sketch& sketch = pattern_.Graph();
  const Sketch::Node& node = sketch.nodes[pattern_node];
  b.nodes[pattern_node] = &target;
  for (std::size_t k = 0; k < node.outputs.size(); ++k)
    b.values[node.outputs[k]] = &NameAt(target.output(), static_cast<int>(k));
  for (std::size_t slot = 0; slot < node.inputs.size(); ++slot) {
    const int value = node.inputs[slot];
    const Sketch::Value& v = sketch.values[value];
    const std::string& actual =
        static_cast<int>(slot) < target.input_size() ? NameAt(target.input(), static_cast<int>(slot)) : AbsentValue();
    if (v.kind == Kind::kAbsent) {
      if (!actual.empty()) return state.Fail("an input the pattern marks absent is present");
      b.values[value] = &AbsentValue();
      continue;
    }
    if (actual.empty()) return state.Fail("an input the pattern uses is absent");
    if (v.kind != Kind::kNodeOutput) {
      if (!BindValue(state, value, actual)) return false;
      continue;
    }
    const NodeProto* producer = state.graph.NodeBefore(actual);
    if (!producer) return state.Fail("an input is not produced by a node");
    if (v.slot >= producer->output_size() || NameAt(producer->output(), v.slot) != actual)
      return state.Fail("an input comes from another output slot of its producer");
    if (!Walk(state, v.index, *producer)) return false;
  }
  return true;
}

bool PatternMatcher::Extend(State& state) const {
  const Sketch& sketch = pattern_.Graph();
  Binding& b = state.binding;
  // The first unbound node that reads a bound value; connectivity guarantees one exists
  // while any node is unbound.
  for (int n : pattern_.TopologicalNodes()) {
    if (b.nodes[n]) continue;
    const Sketch::Node& node = sketch.nodes[n];
    for (std::size_t slot = 0; slot < node.inputs.size(); ++slot) {
      const std::string* value = b.values[node.inputs[slot]];
      if (!value || value->empty()) continue;
      bool tried = false;
      // Readers already bound are skipped before the binding is copied: in a pattern of k
      // alike branches over one value, trying them (a copy and a walk each) made each
      // branch cost the ones before it, the whole match k^3.
      std::vector<const NodeProto*> bound;  // sorted, filled at the first reader that fits
      for (const NodeProto* candidate : state.graph.NextNodes(*value)) {
        if (static_cast<int>(slot) >= candidate->input_size() ||
            NameAt(candidate->input(), static_cast<int>(slot)) != *value ||
            !node.key.SameAs(*candidate))
          continue;
        if (!tried) {
          bound.assign(b.nodes.begin(), b.nodes.end());
          std::sort(bound.begin(), bound.end());
        }
        tried = true;
        if (std::binary_search(bound.begin(), bound.end(), candidate)) {
          state.Fail("two pattern nodes would bind the same node");
          continue;
        }
        const Binding snapshot = b;
        if (Walk(state, n, *candidate) && Extend(state)) return true;
        b = snapshot;
      }
      if (!tried) state.why = "no reader of a bound value fits the rest of the pattern";
      return false;
    }
  }
  return CheckBoundary(state);
}

bool PatternMatcher::CheckBoundary(State& state) const {
  const Sketch& sketch = pattern_.Graph();
  const GraphGraph& graph = state.graph;
  const Binding& b = state.binding;
  std::vector<const NodeProto*>& matched = ThreadScratch().matched;
  matched.assign(b.nodes.begin(), b.nodes.end());
  std::sort(matched.begin(), matched.end());
  auto in_match = [&](const NodeProto* node) { return std::binary_search(matched.begin(), matched.end(), node); };
  std::vector<const std::string*>& declared = ThreadScratch().declared;
  declared.clear();
  for (int output : pattern_.Outputs()) declared.push_back(b.values[output]);
  auto is_declared = [&](const std::string& value) {
    return std::any_of(declared.begin(), declared.end(), [&](const std::string* d) { return *d == value; });
  };
  for (const NodeProto* node : matched)
    for (const std::string& value : node->output()) {
      if (value.empty() || is_declared(value)) continue;
      for (const NodeProto* consumer : graph.NextNodes(value))
        if (!in_match(consumer))
          return state.Fail(Intern("value " + Quoted(value) + " is read by " + DescribeTarget(*consumer) +
                                   " outside the match and is not a declared output"));
      if (graph.IsOutput(value))
        return state.Fail(Intern("value " + Quoted(value) + " is a graph output and not a declared output"));
      if (graph.IsUsedBySubgraph(value))
        return state.Fail(Intern("value " + Quoted(value) + " is read by a subgraph and not a declared output"));
    }
  // Placement: every external input is computed before every outside reader of an output.
  long last_input = -1;
  for (std::size_t id = 0; id < sketch.values.size(); ++id) {
    const Kind kind = sketch.values[id].kind;
    if ((kind != Kind::kPlaceholder && kind != Kind::kConstant) || !b.values[id]) continue;
    const NodeProto* producer = graph.NodeBefore(*b.values[id]);
    if (!producer) continue;
    if (in_match(producer))
      return state.Fail(Intern(sketch.DescribeValue(static_cast<int>(id)) + " is bound to " + Quoted(*b.values[id]) +
                               ", which is produced inside the match"));
    last_input = std::max(last_input, static_cast<long>(graph.Position(*producer)));
  }
  long first_reader = std::numeric_limits<long>::max();
  for (const std::string* value : declared) {
    for (const NodeProto* consumer : graph.NextNodes(*value))
      if (!in_match(consumer)) first_reader = std::min(first_reader, static_cast<long>(graph.Position(*consumer)));
    if (graph.IsUsedBySubgraph(*value))
      for (const NodeProto& node : graph.Builder().Nodes())
        if (core::ir::SubgraphReads(node).contains(*value)) {
          first_reader = std::min(first_reader, static_cast<long>(graph.Position(node)));
          break;
        }
  }
  if (last_input >= first_reader)
    return state.Fail(
        "replacement cannot be placed: an input is computed after a reader of an output (it would create a cycle)");
  long first_matched = std::numeric_limits<long>::max(), last_matched = -1;
  for (const NodeProto* node : matched) {
    first_matched = std::min(first_matched, static_cast<long>(graph.Position(*node)));
    last_matched = std::max(last_matched, static_cast<long>(graph.Position(*node)));
  }
  const auto& nodes = graph.Builder().Nodes();
  if (pattern_.PlacesAtFirstNode() && last_input < first_matched) {
    state.insert_at = &nodes.Get(static_cast<int>(first_matched));
  } else if (last_input < last_matched && last_matched < first_reader) {
    state.insert_at = &nodes.Get(static_cast<int>(last_matched));
  } else if (first_reader != std::numeric_limits<long>::max()) {
    state.insert_at = &nodes.Get(static_cast<int>(first_reader));  // before that reader
  } else {
    return state.Fail("replacement cannot be placed: an input is computed after every matched node");
  }
  return true;
}

bool PatternMatcher::Match(const GraphGraph& graph, const NodeProto& candidate, Binding& binding, std::string_view& why,
                           const NodeProto*& insert_at, MatchFailure* failure) const {
  const Sketch& sketch = pattern_.Graph();
  Binding& scratch = ThreadScratch().binding;
  State state{graph, scratch, {}, nullptr};
  auto fail = [&](MatchFailure where) {
    why = state.why;
    if (failure) *failure = where;
    return false;
  };
  // The anchor's operator and arity first: most candidates stop there.
  if (!NodeFits(state, pattern_.AnchorNode(), candidate)) return fail(MatchFailure::kWalk);
  scratch.nodes.assign(sketch.nodes.size(), nullptr);
  scratch.values.assign(sketch.values.size(), nullptr);
  // Nothing is bound yet, and the anchor fits: the walk starts past Walk's checks.
  if (!WalkFitted(state, pattern_.AnchorNode(), candidate)) return fail(MatchFailure::kWalk);
  if (!Extend(state)) return fail(MatchFailure::kAfterWalk);
  binding = scratch;
  insert_at = state.insert_at;
  if (failure) *failure = MatchFailure::kNone;
  return true;
}

bool PatternMatcher::SameWalk(const PatternMatcher& other) const {
  const Sketch& a = pattern_.Graph();
  const Sketch& b = other.pattern_.Graph();
  if (pattern_.AnchorNode() != other.pattern_.AnchorNode() || a.nodes.size() != b.nodes.size() ||
      a.values.size() != b.values.size() ||
      config_.IsEnableConstValueMatch() != other.config_.IsEnableConstValueMatch() ||
      config_.IsEnableIrAttrMatch() != other.config_.IsEnableIrAttrMatch())
    return false;
  for (std::size_t n = 0; n < a.nodes.size(); ++n) {
    const Sketch::Node& x = a.nodes[n];
    const Sketch::Node& y = b.nodes[n];
    if (x.key.domain != y.key.domain || x.key.op_type != y.key.op_type || x.inputs != y.inputs ||
        x.outputs != y.outputs || x.attributes.size() != y.attributes.size())
      return false;
    for (std::size_t k = 0; k < x.attributes.size(); ++k)
      if (!SameAttribute(x.attributes[k], y.attributes[k])) return false;
  }
  for (std::size_t id = 0; id < a.values.size(); ++id) {
    const Sketch::Value& x = a.values[id];
    const Sketch::Value& y = b.values[id];
    if (x.kind != y.kind || x.index != y.index || x.slot != y.slot || x.tensor.has_value() != y.tensor.has_value())
      return false;
    if (x.tensor && x.tensor->SerializeAsString() != y.tensor->SerializeAsString()) return false;
  }
  return true;
}

Binding PatternMatcher::Rebind(const std::vector<const NodeProto*>& nodes, std::string_view rule) const {
  const Sketch& sketch = pattern_.Graph();
  const std::vector<int>& order = pattern_.TopologicalNodes();
  auto fail = [&](const std::string& what) {
    throw BuilderError(std::string(rule) + ": the nodes given to Apply do not fit the pattern: " + what);
  };
  if (nodes.size() != order.size())
    fail(std::to_string(nodes.size()) + " nodes for " + std::to_string(order.size()) + " pattern nodes");
  Binding b{std::vector<const NodeProto*>(sketch.nodes.size(), nullptr),
            std::vector<const std::string*>(sketch.values.size(), nullptr)};
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int n = order[i];
    const Sketch::Node& node = sketch.nodes[n];
    const NodeProto* target = nodes[i];
    if (!target) fail("node " + std::to_string(i) + " is null");
    if (!node.key.SameAs(*target) || PatternInputCount(sketch, node) != TrimmedSize(target->input()) ||
        static_cast<int>(node.outputs.size()) != TrimmedSize(target->output()))
      fail(target->op_type() + " " + Quoted(target->name()) + " does not fit " + sketch.DescribeNode(n));
    b.nodes[n] = target;
    for (std::size_t k = 0; k < node.outputs.size(); ++k)
      b.values[node.outputs[k]] = &target->output(static_cast<int>(k));
    for (std::size_t slot = 0; slot < node.inputs.size(); ++slot) {
      const int value = node.inputs[slot];
      const std::string& actual =
          static_cast<int>(slot) < target->input_size() ? target->input(static_cast<int>(slot)) : AbsentValue();
      const std::string*& bound = b.values[value];
      if (sketch.values[value].kind == Kind::kAbsent) {
        if (!actual.empty()) fail("an absent input is present in " + Quoted(target->name()));
        bound = &AbsentValue();
      } else if (!bound) {
        if (sketch.values[value].kind == Kind::kNodeOutput) fail("the nodes are not in the pattern's order");
        bound = &actual;
      } else if (*bound != actual) {
        fail("input " + std::to_string(slot) + " of " + Quoted(target->name()) + " is not " +
             sketch.DescribeValue(value));
      }
    }
  }
  return b;
}

std::vector<const NodeProto*> PatternMatcher::CanonicalNodes(const Binding& binding) const {
  std::vector<const NodeProto*> nodes;
  for (int n : pattern_.TopologicalNodes()) nodes.push_back(binding.nodes[n]);
  return nodes;
}

}  // namespace onnxopt::fusion
