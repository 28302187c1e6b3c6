// `onnxopt patterns`: the registered rewrite patterns, with family, numerical class,
// priority and the op types they start from; `onnxopt patterns NAME`: one pattern's
// documentation (the `///` comment above its class, kept in the registry).

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "onnx_core/common/json_writer.h"
#include "onnx_core/optimizer/graph_pass.h"
#include "onnx_core/optimizer/pattern_registry.h"
#include "onnx_core/utils/close_names.h"
#include "tools/onnxopt/cli.h"

namespace onnxopt::cli {

namespace {

constexpr const char* kUsageLine = "onnxopt patterns [NAME] [--family NAME] [--json]";

constexpr const char* kHelp = R"(usage: onnxopt patterns [NAME] [--family NAME] [--json]

With NAME, shows that pattern's documentation (what it matches, what it writes instead,
where it is not valid, its numerics) with its family, numerics, priority, stage and
whether it is opt-in; an unknown NAME exits 1 and suggests close names.

Without NAME, lists the rewrite patterns and graph passes `onnxopt optimize` can apply, in the order
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
A * after the numerics marks an opt-in pass: it keeps results but is not in the default
selection either (copy elimination pays off only for a runtime that executes in place).

options:
  --family NAME   only the patterns of this family (canonicalization, collections, ...)
  --json          one JSON document instead of a table

examples:
  onnxopt patterns
  onnxopt patterns --family expand
  onnxopt patterns CastCastPattern
  onnxopt optimize model.onnx -o out.onnx --patterns default,-CastCastPattern
)";

struct Row {
  std::string name, family, numerics, ops;
  core::builder::OptimizationStage stage;
  int priority;
  bool pass;
  bool opt_in;
  std::string doc;
};

Row RowOf(const core::builder::RegisteredPattern& entry) {
  const std::unique_ptr<core::builder::PatternOptimization> pattern = entry.factory();
  const bool pass = dynamic_cast<const core::builder::GraphPass*>(pattern.get()) != nullptr;
  std::string ops;
  for (const std::string& op : pattern->FastOpType()) ops += (ops.empty() ? "" : ",") + op;
  if (pass) ops = "graph pass";
  return Row{entry.name,       entry.family,      std::string(core::builder::NumericalClassName(entry.numerics)),
             ops.empty() ? "*" : ops, pattern->Stage(), pattern->priority,
             pass,             entry.opt_in,      entry.doc};
}

void WriteJsonFields(JsonWriter& json, const Row& row) {
  json.Key("name").String(row.name).Key("family").String(row.family);
  json.Key("numerics").String(row.numerics);
  json.Key("kind").String(row.pass ? "pass" : "pattern");
  json.Key("opt_in").Bool(row.opt_in);
  json.Key("stage").String(std::string(core::builder::OptimizationStageName(row.stage)));
  json.Key("priority").Int(row.priority).Key("op_types").String(row.ops);
}

// `onnxopt patterns NAME`.
int ShowPattern(const std::string& name, bool as_json) {
  const std::vector<core::builder::RegisteredPattern> entries = core::builder::RegisteredPatterns();
  auto entry = std::find_if(entries.begin(), entries.end(), [&](const auto& known) { return known.name == name; });
  if (entry == entries.end()) {
    const std::string suggestion = utils::DidYouMean(core::builder::ClosePatternNames(name, entries));
    throw UsageError("unknown pattern '" + name + "'" +
                     (suggestion.empty() ? " (onnxopt patterns lists them)" : suggestion));
  }
  const Row row = RowOf(*entry);
  if (as_json) {
    JsonWriter json;
    json.BeginObject();
    WriteJsonFields(json, row);
    json.Key("doc").String(row.doc).EndObject();
    std::cout << json.Text() << "\n";
    return kOk;
  }
  std::cout << row.name << " (" << (row.pass ? "graph pass" : "pattern") << ")\n"
            << "  family:      " << (row.family.empty() ? "(none)" : row.family) << "\n"
            << "  numerics:    " << row.numerics << (row.opt_in ? ", opt-in (not in the default selection)" : "")
            << "\n"
            << "  stage:       " << core::builder::OptimizationStageName(row.stage) << "\n"
            << "  priority:    " << row.priority << "\n"
            << "  starts from: " << row.ops << "\n\n";
  if (row.doc.empty()) {
    std::cout << "(no documentation)\n";
    return kOk;
  }
  std::istringstream doc(row.doc);
  for (std::string line; std::getline(doc, line);) std::cout << (line.empty() ? "" : "  ") << line << "\n";
  return kOk;
}

int RunPatterns(const std::vector<std::string>& raw_args) {
  Arguments args(raw_args, {"--family"}, {"--json"});
  const std::vector<std::string>& names = args.Positional(0, 1);
  const std::optional<std::string> family = args.Value("--family");
  if (!names.empty()) {
    if (family) throw UsageError("--family lists patterns; it does not go with a pattern NAME");
    return ShowPattern(names[0], args.Flag("--json"));
  }
  std::vector<Row> rows;
  for (const core::builder::RegisteredPattern& entry : core::builder::RegisteredPatterns())
    if (!family || entry.family == *family) rows.push_back(RowOf(entry));
  if (family && rows.empty()) throw UsageError("no pattern of family '" + *family + "'");
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::pair(a.stage, a.priority) < std::pair(b.stage, b.priority);
  });

  if (args.Flag("--json")) {
    JsonWriter json;
    json.BeginArray();
    for (const Row& row : rows) {
      json.BeginObject();
      WriteJsonFields(json, row);
      json.EndObject();
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
  std::size_t approximate = 0, opt_in = 0;
  for (const Row& row : rows) {
    std::cout << std::setw(static_cast<int>(name_width) + 2) << row.name << std::setw(static_cast<int>(family_width) + 2)
              << row.family << std::setw(13) << (row.opt_in ? row.numerics + "*" : row.numerics) << std::setw(24)
              << core::builder::OptimizationStageName(row.stage) << std::setw(10) << row.priority << row.ops << "\n";
    approximate += row.numerics == "approximate";
    opt_in += row.opt_in && row.numerics != "approximate";
  }
  std::cout << rows.size() << " patterns and passes, " << rows.size() - approximate - opt_in
            << " in the default selection (" << approximate << " approximate, " << opt_in
            << " opt-in marked *: --patterns all or default,+NAME)\n";
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
