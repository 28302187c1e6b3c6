// `onnxopt patterns`: the registered rewrite patterns, with family, numerical class,
// priority and the op types they start from.

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <optional>

#include "onnx_core/common/json_writer.h"
#include "onnx_core/optimizer/graph_pass.h"
#include "onnx_core/optimizer/pattern_registry.h"
#include "tools/onnxopt/cli.h"

namespace onnxopt::cli {

namespace {

constexpr const char* kUsageLine = "onnxopt patterns [--family NAME] [--json]";

constexpr const char* kHelp = R"(usage: onnxopt patterns [--family NAME] [--json]

Lists the rewrite patterns and graph passes `onnxopt optimize` can apply, in the order
the optimizer runs them (by stage, then lowest priority first): name (what --patterns
selects; a family name selects all its members), family, numerics, stage, priority, and
the operator types a match starts from ("graph pass": a pass that rewrites the whole
graph at once, such as the transpose optimizer).

Stages, in order: before-shape-inference (the graph as loaded), main (after shape
inference and the first folding; the built-in patterns), after-patterns, final.

numerics says how a rewrite may change the numbers the model computes:
  exact        every output equal to the original's, for every input
  rounding     same element types; float results may round differently (operations
               reordered or fused)
  approximate  computes in another precision, or differs on NaN/infinities. Not in the
               default selection: name the pattern (--patterns default,+NAME) or select
               them all (--patterns all) to use it.

options:
  --family NAME   only the patterns of this family (canonicalization, collections, ...)
  --json          one JSON document instead of a table

examples:
  onnxopt patterns
  onnxopt patterns --family expand
  onnxopt optimize model.onnx -o out.onnx --patterns default,-CastCastPattern
)";

struct Row {
  std::string name, family, numerics, ops;
  core::builder::OptimizationStage stage;
  int priority;
  bool pass;
};

int RunPatterns(const std::vector<std::string>& raw_args) {
  Arguments args(raw_args, {"--family"}, {"--json"});
  args.Positional(0, 0);
  const std::optional<std::string> family = args.Value("--family");
  std::vector<Row> rows;
  for (const core::builder::RegisteredPattern& entry : core::builder::RegisteredPatterns()) {
    if (family && entry.family != *family) continue;
    const std::unique_ptr<core::builder::PatternOptimization> pattern = entry.factory();
    const bool pass = dynamic_cast<const core::builder::GraphPass*>(pattern.get()) != nullptr;
    std::string ops;
    for (const std::string& op : pattern->FastOpType()) ops += (ops.empty() ? "" : ",") + op;
    if (pass) ops = "graph pass";
    rows.push_back(Row{entry.name, entry.family, std::string(core::builder::NumericalClassName(entry.numerics)),
                       ops.empty() ? "*" : ops, pattern->Stage(), pattern->priority, pass});
  }
  if (family && rows.empty()) throw UsageError("no pattern of family '" + *family + "'");
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::pair(a.stage, a.priority) < std::pair(b.stage, b.priority);
  });

  if (args.Flag("--json")) {
    JsonWriter json;
    json.BeginArray();
    for (const Row& row : rows) {
      json.BeginObject().Key("name").String(row.name).Key("family").String(row.family);
      json.Key("numerics").String(row.numerics);
      json.Key("kind").String(row.pass ? "pass" : "pattern");
      json.Key("stage").String(std::string(core::builder::OptimizationStageName(row.stage)));
      json.Key("priority").Int(row.priority).Key("op_types").String(row.ops).EndObject();
    }
    json.EndArray();
    std::cout << json.Text() << "\n";
    return kOk;
  }
  std::size_t name_width = 7, family_width = 6;
  for (const Row& row : rows) {
    name_width = std::max(name_width, row.name.size());
    family_width = std::max(family_width, row.family.size());
  }
  std::cout << std::left << std::setw(static_cast<int>(name_width) + 2) << "pattern"
            << std::setw(static_cast<int>(family_width) + 2) << "family" << std::setw(13) << "numerics"
            << std::setw(24) << "stage" << std::setw(10) << "priority"
            << "starts from\n";
  std::size_t approximate = 0;
  for (const Row& row : rows) {
    std::cout << std::setw(static_cast<int>(name_width) + 2) << row.name << std::setw(static_cast<int>(family_width) + 2)
              << row.family << std::setw(13) << row.numerics << std::setw(24)
              << core::builder::OptimizationStageName(row.stage) << std::setw(10) << row.priority << row.ops << "\n";
    approximate += row.numerics == "approximate";
  }
  std::cout << rows.size() << " patterns, " << rows.size() - approximate << " in the default selection ("
            << approximate << " approximate: --patterns all or default,+NAME)\n";
  return kOk;
}

}  // namespace

Command PatternsCommand() {
  return {"patterns", "list the rewrite patterns optimize can apply", kHelp,
          [](const std::vector<std::string>& args) {
            return RunReportingErrors("patterns", kUsageLine, [&] { return RunPatterns(args); });
          }};
}

}  // namespace onnxopt::cli
