// `onnxopt optimize MODEL -o OUT`: load, optimize, save.
//
// Until the pattern engine exists (issue #5), optimizing means constant folding (with
// the default selection) and the builder's cleanup passes: identity removal, dead code,
// common subexpressions, duplicate initializers.

#include <chrono>
#include <iomanip>
#include <optional>
#include <iostream>
#include <set>

#include "onnx_core/builder/cleanup.h"
#include "onnx_core/builder/constant_folding.h"
#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/ir/model_io.h"
#include "tools/onnxopt/cli.h"
#include "tools/onnxopt/model_summary.h"

namespace onnxopt::cli {

namespace {

constexpr const char* kUsageLine = "onnxopt optimize MODEL -o OUTPUT [--patterns default|none] [options]";

constexpr const char* kHelp = R"(usage: onnxopt optimize MODEL -o OUTPUT [options]

Loads MODEL (with its external data), rewrites it into an equivalent, cheaper graph and
saves the result to OUTPUT. The output is written atomically: on any error, OUTPUT is
left as it was and no partial file remains.

options:
  -o, --output PATH               where to save the optimized model (required)
  --patterns default|none         rewrite patterns to apply (default: default). No
                                  pattern is registered yet: default folds constants
                                  (nodes whose inputs are all constant, outputs of at
                                  most 1 MiB) and runs the cleanup passes; none runs
                                  only the cleanup passes (identity removal, dead code
                                  elimination, common subexpressions, duplicate
                                  initializers).
  --external-data-threshold SIZE  save initializers of at least SIZE bytes (suffixes K,
                                  M, G) to OUTPUT.data next to OUTPUT. Models larger
                                  than 2 GiB always use external data.
  -q, --quiet                     print nothing but errors

examples:
  onnxopt optimize model.onnx -o model.opt.onnx
  onnxopt optimize big.onnx -o out/big.onnx --external-data-threshold 1M
)";

void PrintSummary(Histogram& before_ops, const InitializerStats& before_initializers, const GraphProto& after,
                  double seconds) {
  Histogram after_ops;
  InitializerStats after_initializers;
  CountGraph(after, after_ops, after_initializers);
  std::cout << "nodes: " << before_ops.nodes << " -> " << after_ops.nodes
            << ", initializers: " << before_initializers.count << " -> " << after_initializers.count << " (" << std::fixed << std::setprecision(1) << seconds * 1e3
            << " ms)\n";
  std::set<std::string> ops;
  for (const auto& [op, count] : before_ops.ops) ops.insert(op);
  for (const auto& [op, count] : after_ops.ops) ops.insert(op);
  for (const auto& op : ops) {
    std::uint64_t old_count = before_ops.ops[op], new_count = after_ops.ops[op];
    if (old_count != new_count)
      std::cout << "  " << op << ": " << old_count << " -> " << new_count << "\n";
  }
}

int RunOptimize(const std::vector<std::string>& raw_args) {
  Arguments args(raw_args, {"-o", "--output", "--patterns", "--external-data-threshold"}, {"-q", "--quiet"});
  const std::string input = args.Positional(1, 1)[0];
  auto output = args.Value("-o");
  if (!output) output = args.Value("--output");
  if (!output) throw UsageError("missing -o OUTPUT");
  const std::string patterns = args.Value("--patterns").value_or("default");
  if (patterns != "default" && patterns != "none")
    throw UsageError("unknown pattern selection '" + patterns + "' (no pattern is registered yet: use default or none)");
  core::ir::SaveOptions save_options;
  if (auto threshold = args.Value("--external-data-threshold"))
    save_options.external_data_threshold = ParseByteCount(*threshold, "--external-data-threshold");
  const bool quiet = args.Flag("-q") || args.Flag("--quiet");

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> warnings;
  ModelProto model = core::ir::LoadModel(input, {}, &warnings);
  for (const auto& warning : warnings) std::cerr << "onnxopt optimize: warning: " << warning << "\n";
  Histogram before_ops;
  InitializerStats before_initializers;
  if (!quiet) CountGraph(model.graph(), before_ops, before_initializers);

  core::builder::GraphBuilder builder(std::move(model));
  std::optional<core::builder::FoldResult> folding;
  if (patterns == "default") {
    // Shapes let Shape and Size of statically shaped values fold.
    builder.InferShapes();
    folding = core::builder::FoldConstants(builder);
  }
  auto cleanups = core::builder::RunCleanupPasses(builder);
  ModelProto optimized = std::move(builder).TakeModel();
  core::ir::SaveModel(optimized, *output, save_options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (!quiet) {
    PrintSummary(before_ops, before_initializers, optimized.graph(), seconds);
    if (folding)
      std::cout << "  FoldConstants: folded " << folding->folded_nodes << " nodes, skipped " << folding->skipped.size()
                << " all-constant nodes\n";
    for (const auto& cleanup : cleanups) std::cout << "  " << cleanup.ToString() << "\n";
    std::cout << "saved " << *output << "\n";
  }
  return kOk;
}

}  // namespace

Command OptimizeCommand() {
  return {"optimize", "rewrite a model into an equivalent, cheaper one", kHelp,
          [](const std::vector<std::string>& args) {
            return RunReportingErrors("optimize", kUsageLine, [&] { return RunOptimize(args); });
          }};
}

}  // namespace onnxopt::cli
