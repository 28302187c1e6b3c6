#include "onnx_core/ir/graph_check.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/local_functions.h"
#include "onnx_core/ir/op_schema.h"

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

// An enclosing graph as a nested graph sees it: the names defined there before the node
// holding the nested graph. The outputs of that node and of the nodes after it are not
// visible yet (IR.md: a nested graph may refer to the values of enclosing graphs, and
// must not redefine those visible in it).
struct Body;
struct OuterScope {
  const Scope* scope;
  const Body* body;
  int holding_node;  // index of the node holding the nested graph
};
// The scopes of the enclosing graphs, outermost first.
using OuterScopes = std::vector<OuterScope>;

using OpsetImports = google::protobuf::RepeatedPtrField<OperatorSetIdProto>;

// What the checks need from a graph or a function body.
struct Body {
  std::string label;  // "graph 'main'", "function 'F'"
  const google::protobuf::RepeatedPtrField<NodeProto>& nodes;
  std::vector<std::string_view> inputs;
  std::vector<std::string_view> initializers;
  std::vector<std::string_view> outputs;
};

// What the nodes of a body are checked against: the opset versions that bind their
// operators (a function's imports, then the model's for domains the function does not
// import) and the model's local functions.
struct Signatures {
  const OpsetImports* opsets;
  const OpsetImports* fallback;
  const LocalFunctions* functions;

  std::int64_t Version(const NodeProto& node) const {
    std::optional<std::int64_t> version = FindOpsetVersion(*opsets, node.domain());
    if (!version && fallback) version = FindOpsetVersion(*fallback, node.domain());
    return version.value_or(0);
  }
};

// Rules of IR.md named in the messages.
constexpr std::string_view kSsaRule = "(IR.md: every value has a single definition in its graph)";
constexpr std::string_view kShadowRule =
    "(IR.md: a nested graph must not redefine a name visible in it from an enclosing graph)";
constexpr std::string_view kUseRule =
    "(IR.md: a node input is an input, an initializer or a node output of its graph, or a value visible from an "
    "enclosing graph)";
constexpr std::string_view kOrderRule = "(IR.md: the nodes of a graph are topologically sorted)";
constexpr std::string_view kCycleRule = "(IR.md: node dependencies must not create cycles)";
constexpr std::string_view kOutputRule = "(IR.md: a graph output is a value of the graph or visible to it)";
constexpr std::string_view kNamedRule = "(IR.md: graphs MUST define the names of their inputs and outputs)";

std::string DescribeNode(const NodeProto& node, int index) {
  const std::string name = node.name().empty() ? "#" + std::to_string(index) : "'" + node.name() + "'";
  return "node " + name + " (" + node.op_type() + ")";
}

std::string Quote(std::string_view value) { return "'" + std::string(value) + "'"; }

class BodyChecker {
 public:
  BodyChecker(const Body& body, OuterScopes& outer, int depth, const Signatures& signatures)
      : body_(body), outer_(outer), depth_(depth), signatures_(signatures) {}

  void Run() {
    DefineAll();
    CheckReads();
    CheckOutputs();
  }

  // What the body defines, checked as Run checks it, without the checks of its nodes: the
  // scope a graph nested in it sees.
  Scope Definitions() && {
    DefineAll();
    return std::move(scope_);
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

  // The enclosing graph from which `name` is visible here, or null.
  const OuterScope* VisibleFrom(std::string_view name) const {
    for (const OuterScope& outer : outer_) {
      auto it = outer.scope->find(name);
      if (it != outer.scope->end() &&
          (it->second.kind != Definition::Kind::kNode || it->second.node < outer.holding_node))
        return &outer;
    }
    return nullptr;
  }
  bool VisibleFromOuter(std::string_view name) const { return VisibleFrom(name) != nullptr; }

  // The node of an enclosing graph defining `name` at or after the node that holds this
  // graph: "node 'n' (Op) of graph 'main'"; empty when there is none.
  static std::string DefinedLaterOutside(const OuterScopes& outers, std::string_view name) {
    for (const OuterScope& outer : outers) {
      auto it = outer.scope->find(name);
      if (it != outer.scope->end() && it->second.kind == Definition::Kind::kNode)
        return DescribeNode(outer.body->nodes[it->second.node], it->second.node) + " of " + outer.body->label;
    }
    return "";
  }

  void Define(std::string_view name, Definition definition) {
    auto [it, inserted] = scope_.emplace(name, definition);
    if (!inserted) {
      throw ModelError("value " + Quote(name) + " is defined twice in " + body_.label + " (by " +
                       Describe(it->second) + " and " + Describe(definition) + ") " + std::string(kSsaRule));
    }
    if (const OuterScope* outer = VisibleFrom(name)) {
      throw ModelError("value " + Quote(name) + " defined by " + Describe(definition) + " in " + body_.label +
                       " shadows the value of " + outer->body->label + " visible there " +
                       std::string(kShadowRule));
    }
  }

  void DefineAll() {
    scope_.reserve(body_.inputs.size() + body_.initializers.size() + body_.nodes.size());
    // An empty name means "absent" for a node's optional input or output only: an unnamed
    // initializer defined '', which an unnamed graph output then read, until the cleanup
    // removed the initializer and left an invalid model.
    for (std::string_view name : body_.inputs)
      if (name.empty()) throw ModelError(body_.label + " has an input without a name " + std::string(kNamedRule));
    for (std::string_view name : body_.initializers)
      if (name.empty()) throw ModelError(body_.label + " has an initializer without a name");
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
      CheckSignature(node, i);
      for (const std::string& input : node.input()) {
        if (input.empty()) continue;  // an omitted optional input
        if (!scope_.contains(input) && !VisibleFromOuter(input)) ReportUndefined(node, i, input);
        const int producer = LocalProducer(input);
        if (producer >= i) ReportOrderError(i, input, producer);
      }
      CheckNestedGraphs(node, i);
    }
  }

  void CheckSignature(const NodeProto& node, int index) const {
    if (auto violation = CheckNodeSignature(node, signatures_.Version(node), signatures_.functions)) {
      throw ModelError(DescribeNode(node, index) + " in " + body_.label + ": " + violation->rule + "; found " +
                       violation->found);
    }
  }

  [[noreturn]] void ReportUndefined(const NodeProto& node, int index, std::string_view input) const {
    if (const std::string producer = DefinedLaterOutside(outer_, input); !producer.empty()) {
      throw ModelError(DescribeNode(node, index) + " in " + body_.label + " reads " + Quote(input) + ", which " +
                       producer + " produces only at or after the node holding " + body_.label + " " +
                       std::string(kOrderRule));
    }
    throw ModelError(DescribeNode(node, index) + " in " + body_.label + " reads " + Quote(input) +
                     ", which is not defined " + std::string(kUseRule));
  }

  void CheckNestedGraphs(const NodeProto& node, int index);

  [[noreturn]] void ReportOrderError(int reader, std::string_view value, int producer) const {
    if (std::vector<int> cycle = FindCycle(); !cycle.empty())
      throw ModelError(DescribeCycle(cycle) + " " + std::string(kCycleRule));
    throw ModelError(body_.label + " is not topologically sorted: " + DescribeNode(body_.nodes[reader], reader) +
                     " reads " + Quote(value) + " before " + DescribeNode(body_.nodes[producer], producer) +
                     " produces it " + std::string(kOrderRule));
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
      if (output.empty()) throw ModelError(body_.label + " has an output without a name " + std::string(kNamedRule));
      if (!seen.insert(output).second)
        throw ModelError(body_.label + " lists output " + Quote(output) + " twice " + std::string(kSsaRule));
      if (!scope_.contains(output) && !VisibleFromOuter(output))
        throw ModelError("output " + Quote(output) + " of " + body_.label + " is not defined " +
                         std::string(kOutputRule));
    }
  }

  const Body& body_;
  OuterScopes& outer_;
  const int depth_;
  const Signatures& signatures_;
  Scope scope_;
};

template <typename Values>
std::vector<std::string_view> Names(const Values& values) {
  std::vector<std::string_view> names;
  names.reserve(values.size());
  for (const auto& value : values) names.push_back(value.name());
  return names;
}

Body GraphBody(const GraphProto& graph, int depth) {
  Body body{"graph " + Quote(graph.name()), graph.node(), Names(graph.input()), Names(graph.initializer()),
            Names(graph.output())};
  if (depth > kMaxNesting)
    throw ModelError(body.label + " is nested too deeply (more than onnxopt's limit of " +
                     std::to_string(kMaxNesting) + " levels)");
  for (const SparseTensorProto& sparse : graph.sparse_initializer()) body.initializers.push_back(sparse.values().name());
  return body;
}

void CheckGraph(const GraphProto& graph, OuterScopes& outer, int depth, const Signatures& signatures) {
  const Body body = GraphBody(graph, depth);
  BodyChecker(body, outer, depth, signatures).Run();
}

// Whether one of `node`'s attributes is `graph`.
bool Holds(const NodeProto& node, const GraphProto* graph) {
  for (const AttributeProto& attribute : node.attribute()) {
    if (attribute.has_g() && &attribute.g() == graph) return true;
    for (const GraphProto& nested : attribute.graphs())
      if (&nested == graph) return true;
  }
  return false;
}

void BodyChecker::CheckNestedGraphs(const NodeProto& node, int index) {
  outer_.push_back({&scope_, &body_, index});
  for (const AttributeProto& attribute : node.attribute()) {
    if (attribute.has_g()) CheckGraph(attribute.g(), outer_, depth_ + 1, signatures_);
    for (const GraphProto& graph : attribute.graphs()) CheckGraph(graph, outer_, depth_ + 1, signatures_);
  }
  outer_.pop_back();
}

void CheckFunction(const FunctionProto& function, const Signatures& model_signatures) {
  const Body body{"function " + Quote(function.name()), function.node(),
                  {function.input().begin(), function.input().end()},
                  {},
                  {function.output().begin(), function.output().end()}};
  const Signatures signatures{&function.opset_import(), model_signatures.opsets, model_signatures.functions};
  OuterScopes outer;
  BodyChecker(body, outer, 0, signatures).Run();
}

// Every operator set a model or a function imports exists at the version it gives.
void CheckOpsetImports(const OpsetImports& imports, const std::string& owner) {
  for (const OperatorSetIdProto& opset : imports) {
    if (opset.version() >= 1) continue;
    const std::string name = opset.domain().empty() || opset.domain() == "ai.onnx" ? "ai.onnx" : Quote(opset.domain());
    throw ModelError(owner + " imports version " + std::to_string(opset.version()) + " of operator set " + name +
                     " (Versioning.md: operator set versions start at 1)");
  }
}

}  // namespace

struct NestedGraphChecker::Kept {
  Body body;
  Scope scope;
  std::vector<const GraphProto*> around;  // the graphs around it, the main graph first
};

NestedGraphChecker::NestedGraphChecker(const ModelProto& model)
    : model_(model), functions_(std::make_unique<LocalFunctions>(model.functions())) {}

NestedGraphChecker::~NestedGraphChecker() = default;

bool NestedGraphChecker::Check(const std::vector<Level>& around, const GraphProto& graph) {
  const Signatures signatures{&model_.opset_import(), nullptr, functions_.get()};
  OuterScopes outer;
  std::vector<const GraphProto*> graphs_around;
  for (std::size_t depth = 0; depth < around.size(); ++depth) {
    const GraphProto& level = *around[depth].graph;
    std::unique_ptr<Kept>& kept = kept_[&level];
    if (!kept) {
      Body body = GraphBody(level, static_cast<int>(depth));
      Scope scope = BodyChecker(body, outer, static_cast<int>(depth), signatures).Definitions();
      // The scope views the graph's strings, not the body's: the body can move.
      kept.reset(new Kept{std::move(body), std::move(scope), graphs_around});
    }
    const auto holder = kept->scope.find(around[depth].holding_node_output);
    if (holder == kept->scope.end() || holder->second.kind != Definition::Kind::kNode) return false;
    const GraphProto* next = depth + 1 < around.size() ? around[depth + 1].graph : &graph;
    if (!Holds(level.node(holder->second.node), next)) return false;
    outer.push_back({&kept->scope, &kept->body, holder->second.node});
    graphs_around.push_back(&level);
  }
  CheckGraph(graph, outer, static_cast<int>(around.size()), signatures);
  return true;
}

void NestedGraphChecker::Forget(const GraphProto* graph) {
  // A graph nested in `graph` is kept only around a checked one, and then so is `graph`.
  if (kept_.erase(graph) == 0) return;
  std::erase_if(kept_, [&](const auto& entry) {
    const std::vector<const GraphProto*>& around = entry.second->around;
    return std::find(around.begin(), around.end(), graph) != around.end();
  });
}

void NestedGraphChecker::Clear() {
  kept_.clear();
  functions_ = std::make_unique<LocalFunctions>(model_.functions());
}

void CheckModel(const ModelProto& model) {
  CheckOpsetImports(model.opset_import(), "the model");
  for (const FunctionProto& function : model.functions())
    CheckOpsetImports(function.opset_import(), "function " + Quote(function.name()));
  const LocalFunctions functions(model.functions());
  const Signatures signatures{&model.opset_import(), nullptr, &functions};
  OuterScopes outer;
  CheckGraph(model.graph(), outer, 0, signatures);
  for (const FunctionProto& function : model.functions()) CheckFunction(function, signatures);
}

}  // namespace onnxopt::core::ir
