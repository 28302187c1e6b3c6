// `onnxopt diff A B`: what changed between two models (usually a model and its optimized
// version): operator counts, nodes by name, initializers, inputs and outputs.

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "onnx_core/common/json_writer.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/ir/model_summary.h"
#include "tools/onnxopt/cli.h"

namespace onnxopt::cli {

namespace {

using core::ir::CountGraph;
using core::ir::FormatBytes;
using core::ir::FormatType;
using core::ir::Histogram;
using core::ir::InitializerStats;

constexpr const char* kUsageLine = "onnxopt diff MODEL_A MODEL_B [--json]";

constexpr const char* kHelp = R"(usage: onnxopt diff MODEL_A MODEL_B [--json]

Compares the structure of two models, typically a model and what `onnxopt optimize` made
of it: node counts per operator (main graph and nested graphs) with their difference,
the nodes only one model has (by node name, or by first output for unnamed nodes),
initializer counts and bytes, and the graph inputs and outputs whose presence or type
differ. External data files are not read (their sizes come from the references). It
compares structure, not values: `onnxopt verify A B` compares outputs.

options:
  --json   one JSON object instead of text:
             {"nodes": [A, B], "ops": {OP: [A, B], ...} (only the operators whose count
              differs), "removed_nodes": [KEY...], "added_nodes": [KEY...],
              "initializers": {"count": [A, B], "bytes": [A, B]},
              "inputs": [{"name", "a", "b"}...], "outputs": [...]}  (type text, or null
              where the model lacks the value; only values that differ)

Exit code 0 whether or not the models differ.

examples:
  onnxopt diff model.onnx model.opt.onnx
  onnxopt diff model.onnx model.opt.onnx --json
)";

// What one model contributes to the comparison.
struct Side {
  Histogram ops;
  InitializerStats initializers;
  std::set<std::string> node_keys;  // every graph, nested ones included
  std::map<std::string, std::string> inputs, outputs;  // name -> type text
};

// A node's identity across two versions of a model: its name, else its first output.
std::string NodeKey(const NodeProto& node) {
  if (!node.name().empty()) return node.name();
  for (const std::string& output : node.output())
    if (!output.empty()) return "(output " + output + ")";
  return "(unnamed " + node.op_type() + ")";
}

void CollectNodeKeys(const GraphProto& graph, std::set<std::string>& keys) {
  for (const NodeProto& node : graph.node()) {
    keys.insert(NodeKey(node));
    for (const AttributeProto& attribute : node.attribute()) {
      if (attribute.has_g()) CollectNodeKeys(attribute.g(), keys);
      for (const GraphProto& nested : attribute.graphs()) CollectNodeKeys(nested, keys);
    }
  }
}

Side Summarize(const std::string& path) {
  core::ir::LoadOptions options;
  options.load_external_data = false;
  std::vector<std::string> warnings;
  const ModelProto model = core::ir::LoadModel(path, options, &warnings);
  for (const std::string& warning : warnings) std::cerr << "onnxopt diff: warning: " << path << ": " << warning << "\n";
  Side side;
  CountGraph(model.graph(), side.ops, side.initializers);
  CollectNodeKeys(model.graph(), side.node_keys);
  for (const ValueInfoProto& value : model.graph().input()) side.inputs[value.name()] = FormatType(value.type());
  for (const ValueInfoProto& value : model.graph().output()) side.outputs[value.name()] = FormatType(value.type());
  return side;
}

std::vector<std::string> OnlyIn(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::vector<std::string> only;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only));
  return only;
}

struct ValueChange {
  std::string name;
  const std::string* a;  // null: absent from A
  const std::string* b;
};

std::vector<ValueChange> ChangedValues(const std::map<std::string, std::string>& a,
                                       const std::map<std::string, std::string>& b) {
  std::set<std::string> names;
  for (const auto& [name, type] : a) names.insert(name);
  for (const auto& [name, type] : b) names.insert(name);
  std::vector<ValueChange> changes;
  for (const std::string& name : names) {
    auto in_a = a.find(name);
    auto in_b = b.find(name);
    const std::string* type_a = in_a == a.end() ? nullptr : &in_a->second;
    const std::string* type_b = in_b == b.end() ? nullptr : &in_b->second;
    if (type_a && type_b && *type_a == *type_b) continue;
    changes.push_back(ValueChange{name, type_a, type_b});
  }
  return changes;
}

std::uint64_t Bytes(const InitializerStats& stats) { return stats.inline_bytes + stats.external_bytes; }

std::string Signed(std::int64_t delta) { return (delta > 0 ? "+" : "") + std::to_string(delta); }

void PrintKeys(const char* title, const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  std::cout << title << " (" << keys.size() << "):\n";
  constexpr std::size_t kShown = 50;
  for (std::size_t i = 0; i < keys.size() && i < kShown; ++i) std::cout << "  " << keys[i] << "\n";
  if (keys.size() > kShown) std::cout << "  ... and " << keys.size() - kShown << " more (--json lists all)\n";
}

void PrintValueChanges(const char* title, const std::vector<ValueChange>& changes) {
  for (const ValueChange& change : changes)
    std::cout << title << " " << change.name << ": " << (change.a ? *change.a : "(absent)") << " -> "
              << (change.b ? *change.b : "(absent)") << "\n";
}

void WriteValueChanges(JsonWriter& json, const char* key, const std::vector<ValueChange>& changes) {
  json.Key(key).BeginArray();
  for (const ValueChange& change : changes) {
    json.BeginObject().Key("name").String(change.name);
    json.Key("a");
    change.a ? json.String(*change.a) : json.Null();
    json.Key("b");
    change.b ? json.String(*change.b) : json.Null();
    json.EndObject();
  }
  json.EndArray();
}

int RunDiff(const std::vector<std::string>& raw_args) {
  Arguments args(raw_args, {}, {"--json"});
  const std::vector<std::string>& paths = args.Positional(2, 2);
  const Side a = Summarize(paths[0]);
  const Side b = Summarize(paths[1]);

  std::set<std::string> ops;
  for (const auto& [op, count] : a.ops.ops) ops.insert(op);
  for (const auto& [op, count] : b.ops.ops) ops.insert(op);
  auto count_of = [](const Histogram& histogram, const std::string& op) -> std::uint64_t {
    auto it = histogram.ops.find(op);
    return it == histogram.ops.end() ? 0 : it->second;
  };
  std::vector<std::string> changed_ops;
  for (const std::string& op : ops)
    if (count_of(a.ops, op) != count_of(b.ops, op)) changed_ops.push_back(op);
  // Largest change first: what an optimization did at a glance.
  std::stable_sort(changed_ops.begin(), changed_ops.end(), [&](const std::string& x, const std::string& y) {
    auto magnitude = [&](const std::string& op) {
      const auto delta = static_cast<std::int64_t>(count_of(b.ops, op)) - static_cast<std::int64_t>(count_of(a.ops, op));
      return delta < 0 ? -delta : delta;
    };
    return magnitude(x) > magnitude(y);
  });
  const std::vector<std::string> removed = OnlyIn(a.node_keys, b.node_keys);
  const std::vector<std::string> added = OnlyIn(b.node_keys, a.node_keys);
  const std::vector<ValueChange> inputs = ChangedValues(a.inputs, b.inputs);
  const std::vector<ValueChange> outputs = ChangedValues(a.outputs, b.outputs);

  if (args.Flag("--json")) {
    JsonWriter json;
    json.BeginObject();
    json.Key("nodes").BeginArray().Int(static_cast<std::int64_t>(a.ops.nodes)).Int(static_cast<std::int64_t>(b.ops.nodes));
    json.EndArray();
    json.Key("ops").BeginObject();
    for (const std::string& op : changed_ops) {
      json.Key(op).BeginArray().Int(static_cast<std::int64_t>(count_of(a.ops, op)));
      json.Int(static_cast<std::int64_t>(count_of(b.ops, op))).EndArray();
    }
    json.EndObject();
    json.Key("removed_nodes").BeginArray();
    for (const std::string& key : removed) json.String(key);
    json.EndArray();
    json.Key("added_nodes").BeginArray();
    for (const std::string& key : added) json.String(key);
    json.EndArray();
    json.Key("initializers").BeginObject();
    json.Key("count").BeginArray().Int(static_cast<std::int64_t>(a.initializers.count));
    json.Int(static_cast<std::int64_t>(b.initializers.count)).EndArray();
    json.Key("bytes").BeginArray().Int(static_cast<std::int64_t>(Bytes(a.initializers)));
    json.Int(static_cast<std::int64_t>(Bytes(b.initializers))).EndArray();
    json.EndObject();
    WriteValueChanges(json, "inputs", inputs);
    WriteValueChanges(json, "outputs", outputs);
    json.EndObject();
    std::cout << json.Text() << "\n";
    return kOk;
  }

  const auto node_delta = static_cast<std::int64_t>(b.ops.nodes) - static_cast<std::int64_t>(a.ops.nodes);
  std::cout << "nodes: " << a.ops.nodes << " -> " << b.ops.nodes << " (" << Signed(node_delta) << ")\n";
  if (!changed_ops.empty()) std::cout << "operators whose count changed:\n";
  for (const std::string& op : changed_ops) {
    const std::uint64_t before = count_of(a.ops, op), after = count_of(b.ops, op);
    std::cout << "  " << op << std::string(op.size() < 32 ? 32 - op.size() : 1, ' ') << before << " -> " << after << " ("
              << Signed(static_cast<std::int64_t>(after) - static_cast<std::int64_t>(before)) << ")\n";
  }
  PrintKeys("nodes only in A", removed);
  PrintKeys("nodes only in B", added);
  std::cout << "initializers: " << a.initializers.count << " -> " << b.initializers.count << ", "
            << FormatBytes(Bytes(a.initializers)) << " -> " << FormatBytes(Bytes(b.initializers)) << "\n";
  PrintValueChanges("input", inputs);
  PrintValueChanges("output", outputs);
  if (inputs.empty() && outputs.empty()) std::cout << "inputs and outputs: the same names and types\n";
  return kOk;
}

}  // namespace

Command DiffCommand() {
  return {"diff", "compare the structure of two models (operators, nodes, weights, inputs)", kHelp,
          [](const std::vector<std::string>& args) {
            return RunReportingErrors("diff", kUsageLine, [&] { return RunDiff(args); });
          }};
}

}  // namespace onnxopt::cli
