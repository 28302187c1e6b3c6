#include "onnx_core/ir/graph_check.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "onnx_core/common/error.h"

namespace onnxopt::core::ir {
namespace {

// Deeper nesting is not found in real models; the cap keeps the recursion bounded for
// models built in memory (parsed ones are already bounded by protobuf's recursion limit).
constexpr int kMaxNesting = 64;

struct Definition {
  enum class Kind { kInput, kInitializer, kNode };
  Kind kind;
  int node = -1;  // index of the producing node when kind == kNode
};

// The names defined in one graph, viewing the strings of the model (which outlives the check).
using Scope = std::unordered_map<std::string_view, Definition>;
// The scopes of the enclosing graphs, outermost first.
using OuterScopes = std::vector<const Scope*>;

// What the checks need from a graph or a function body.
struct Body {
  std::string label;  // "graph 'main'", "function 'F'"
  const google::protobuf::RepeatedPtrField<NodeProto>& nodes;
  std::vector<std::string_view> inputs;
  std::vector<std::string_view> initializers;
  std::vector<std::string_view> outputs;
};

std::string DescribeNode(const NodeProto& node, int index) {
  const std::string name = node.name().empty() ? "#" + std::to_string(index) : "'" + node.name() + "'";
  return "node " + name + " (" + node.op_type() + ")";
}

std::string Quote(std::string_view value) { return "'" + std::string(value) + "'"; }

class BodyChecker {
 public:
  BodyChecker(const Body& body, OuterScopes& outer, int depth) : body_(body), outer_(outer), depth_(depth) {}

  void Run() {
    DefineAll();
    CheckReads();
    CheckOutputs();
  }

 private:
  std::string Describe(const Definition& definition) const {
    switch (definition.kind) {
      case Definition::Kind::kInput:
        return "an input";
      case Definition::Kind::kInitializer:
        return "an initializer";
      case Definition::Kind::kNode:
        break;
    }
    return DescribeNode(body_.nodes[definition.node], definition.node);
  }

  bool VisibleFromOuter(std::string_view name) const {
    return std::any_of(outer_.begin(), outer_.end(), [&](const Scope* scope) { return scope->contains(name); });
  }

  void Define(std::string_view name, Definition definition) {
    auto [it, inserted] = scope_.emplace(name, definition);
    if (!inserted) {
      throw ModelError("value " + Quote(name) + " is defined twice in " + body_.label + " (by " +
                       Describe(it->second) + " and " + Describe(definition) + ")");
    }
    if (VisibleFromOuter(name)) {
      throw ModelError("value " + Quote(name) + " defined by " + Describe(definition) + " in " + body_.label +
                       " shadows a value of an enclosing graph");
    }
  }

  void DefineAll() {
    scope_.reserve(body_.inputs.size() + body_.initializers.size() + body_.nodes.size());
    for (std::string_view name : body_.inputs) Define(name, {Definition::Kind::kInput});
    for (std::string_view name : body_.initializers) {
      auto it = scope_.find(name);
      // The IR lets an input share its name with an initializer (a default value).
      if (it != scope_.end() && it->second.kind == Definition::Kind::kInput) continue;
      Define(name, {Definition::Kind::kInitializer});
    }
    for (int i = 0; i < body_.nodes.size(); ++i) {
      for (const std::string& output : body_.nodes[i].output())
        if (!output.empty()) Define(output, {Definition::Kind::kNode, i});
    }
  }

  // The node producing `name` in this body, -1 when `name` is not a node output here.
  int LocalProducer(std::string_view name) const {
    auto it = scope_.find(name);
    return it != scope_.end() && it->second.kind == Definition::Kind::kNode ? it->second.node : -1;
  }

  void CheckReads() {
    for (int i = 0; i < body_.nodes.size(); ++i) {
      const NodeProto& node = body_.nodes[i];
      for (const std::string& input : node.input()) {
        if (input.empty()) continue;  // an omitted optional input
        if (!scope_.contains(input) && !VisibleFromOuter(input)) {
          throw ModelError(DescribeNode(node, i) + " in " + body_.label + " reads " + Quote(input) +
                           ", which is not defined");
        }
        const int producer = LocalProducer(input);
        if (producer >= i) ReportOrderError(i, input, producer);
      }
      CheckNestedGraphs(node);
    }
  }

  void CheckNestedGraphs(const NodeProto& node);

  [[noreturn]] void ReportOrderError(int reader, std::string_view value, int producer) const {
    if (std::vector<int> cycle = FindCycle(); !cycle.empty()) throw ModelError(DescribeCycle(cycle));
    throw ModelError(body_.label + " is not topologically sorted: " + DescribeNode(body_.nodes[reader], reader) +
                     " reads " + Quote(value) + " before " + DescribeNode(body_.nodes[producer], producer) +
                     " produces it");
  }

  // "graph 'G' has a cycle: node 'a' (Op) -> node 'b' (Op) -> node 'a' (Op)"; a long
  // cycle is cut after its first nodes (a hostile model can hold one of 100k nodes).
  std::string DescribeCycle(const std::vector<int>& cycle) const {
    constexpr std::size_t kListed = 8;
    const std::size_t length = cycle.size() - 1;
    auto describe = [&](int index) { return DescribeNode(body_.nodes[index], index); };
    std::string path = describe(cycle[0]);
    for (std::size_t i = 1; i < std::min(length, kListed); ++i) path += " -> " + describe(cycle[i]);
    if (length > kListed) path += " -> ...";
    path += " -> " + describe(cycle[0]);
    const std::string size = length > kListed ? " of " + std::to_string(length) + " nodes" : "";
    return body_.label + " has a cycle" + size + ": " + path;
  }

  // A cycle of nodes in data-flow order, its first node repeated at the end; empty when
  // there is none. Iterative depth-first search from each node to the producers of its
  // inputs: a hostile graph can be a chain of 100k nodes.
  std::vector<int> FindCycle() const {
    enum State : char { kNew, kOnStack, kDone };
    struct Frame {
      int node;
      int next_input;
    };
    std::vector<State> state(body_.nodes.size(), kNew);
    std::vector<Frame> stack;
    for (int root = 0; root < body_.nodes.size(); ++root) {
      if (state[root] != kNew) continue;
      state[root] = kOnStack;
      stack.push_back({root, 0});
      while (!stack.empty()) {
        Frame& frame = stack.back();
        const NodeProto& node = body_.nodes[frame.node];
        if (frame.next_input == node.input_size()) {
          state[frame.node] = kDone;
          stack.pop_back();
          continue;
        }
        const int producer = LocalProducer(node.input(frame.next_input++));
        if (producer < 0 || state[producer] == kDone) continue;
        if (state[producer] == kOnStack) return CycleOnStack(stack, producer);
        state[producer] = kOnStack;
        stack.push_back({producer, 0});
      }
    }
    return {};
  }

  // Each frame reads an output of the next one, so the data flows from the top of the
  // stack down to `producer`, which the top reads.
  template <typename Frames>
  static std::vector<int> CycleOnStack(const Frames& stack, int producer) {
    std::vector<int> cycle;
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
      cycle.push_back(it->node);
      if (it->node == producer) break;
    }
    cycle.push_back(cycle.front());
    return cycle;
  }

  void CheckOutputs() const {
    std::unordered_set<std::string_view> seen;
    for (std::string_view output : body_.outputs) {
      if (!seen.insert(output).second)
        throw ModelError(body_.label + " lists output " + Quote(output) + " twice");
      if (!scope_.contains(output) && !VisibleFromOuter(output))
        throw ModelError("output " + Quote(output) + " of " + body_.label + " is not defined");
    }
  }

  const Body& body_;
  OuterScopes& outer_;
  const int depth_;
  Scope scope_;
};

template <typename Values>
std::vector<std::string_view> Names(const Values& values) {
  std::vector<std::string_view> names;
  names.reserve(values.size());
  for (const auto& value : values) names.push_back(value.name());
  return names;
}

void CheckGraph(const GraphProto& graph, OuterScopes& outer, int depth) {
  Body body{"graph " + Quote(graph.name()), graph.node(), Names(graph.input()), Names(graph.initializer()),
            Names(graph.output())};
  if (depth > kMaxNesting)
    throw ModelError(body.label + " is nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)");
  for (const SparseTensorProto& sparse : graph.sparse_initializer()) body.initializers.push_back(sparse.values().name());
  BodyChecker(body, outer, depth).Run();
}

void BodyChecker::CheckNestedGraphs(const NodeProto& node) {
  outer_.push_back(&scope_);
  for (const AttributeProto& attribute : node.attribute()) {
    if (attribute.has_g()) CheckGraph(attribute.g(), outer_, depth_ + 1);
    for (const GraphProto& graph : attribute.graphs()) CheckGraph(graph, outer_, depth_ + 1);
  }
  outer_.pop_back();
}

void CheckFunction(const FunctionProto& function) {
  const Body body{"function " + Quote(function.name()), function.node(),
                  {function.input().begin(), function.input().end()},
                  {},
                  {function.output().begin(), function.output().end()}};
  OuterScopes outer;
  BodyChecker(body, outer, 0).Run();
}

}  // namespace

void CheckModel(const ModelProto& model) {
  OuterScopes outer;
  CheckGraph(model.graph(), outer, 0);
  for (const FunctionProto& function : model.functions()) CheckFunction(function);
}

}  // namespace onnxopt::core::ir
