// `onnxopt optimize MODEL -o OUT`: load, run the pattern optimizer, save.
//
// Pipeline: LoadModel -> GraphBuilder -> GraphGraph(selected patterns) -> Optimize ->
// TakeModel -> SaveModel. Every output (the model and its external data, the rewrite
// file of --record, the JSON and HTML reports) is prepared as a temporary file and all
// are renamed into place once all were written: an error leaves no output.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/ir/file_io.h"
#include "onnx_core/ir/initializer_inputs.h"
#include "onnx_core/ir/input_shapes.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/ir/model_summary.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_core/optimizer/pattern_registry.h"
#include "onnx_core/optimizer/report.h"
#include "onnx_core/optimizer/report_html.h"
#include "onnx_core/optimizer/rewrite_file.h"
#include "onnx_core/verify/model_comparison.h"
#include "tools/onnxopt/cli.h"
#include "tools/onnxopt/file_plan.h"
#include "tools/onnxopt/model_inputs.h"
#include "tools/onnxopt/ort_check.h"
#include "tools/onnxopt/progress.h"
#include "tools/onnxopt/rule_files.h"

namespace onnxopt::cli {

namespace {

using core::builder::HtmlReportInput;
using core::builder::IndexNodeNames;
using core::builder::NodeKey;
using core::builder::RenderReportHtml;
using core::ir::CountGraph;
using core::ir::Histogram;
using core::ir::InitializerStats;

constexpr const char* kUsageLine = "onnxopt optimize MODEL (-o OUTPUT | OUTPUT) [--patterns SELECTION] [options]";

constexpr const char* kHelp = R"(usage: onnxopt optimize MODEL -o OUTPUT [options]
       onnxopt optimize MODEL OUTPUT [options]

Loads MODEL (with its external data), rewrites it into an equivalent, cheaper graph and
saves the result to OUTPUT. The optimizer first folds every node whose inputs are all
constant, then applies the selected rewrite patterns until none matches, running the
cleanup passes (identity removal, dead code, common subexpressions, duplicate
initializers) after each round. Graphs nested in If/Loop/Scan nodes are optimized too.
Every output (OUTPUT and its external data file, the --record file, the --report-json
and --report-html files) is written atomically, all together: on any error, none of
them is created or changed. Outputs are compared as files, not as names ("m.onnx" and "./m.onnx" are one
file): two outputs may not be one file, and no output may replace MODEL or one of its
external data files, except OUTPUT itself naming MODEL (optimizing in place: MODEL is
read whole before it is replaced). The name OUTPUT.data is reserved for OUTPUT's external
data file even when none is written.

options:
  -o, --output PATH               where to save the optimized model (required; it may
                                  also be given as the second positional argument, as
                                  onnx-simplifier and onnxoptimizer take it)
  --patterns SELECTION            which registered patterns to apply (default: default):
                                    default          every registered pattern that keeps
                                                     the model's results (numerics
                                                     "exact" or "rounding" in `onnxopt
                                                     patterns`)
                                    all              every registered pattern, including
                                                     the "approximate" ones, which compute
                                                     in another precision or differ on
                                                     NaN/infinities
                                    none             no pattern (folding and cleanup only)
                                    A,B              exactly the patterns A and B
                                    F                a family name (`onnxopt patterns`)
                                                     stands for all its patterns and
                                                     passes: default,-transpose
                                    default,-A  or -A  every default pattern but A
                                    none,+A          only A; +A alone adds A to default
                                  An unknown name is an error that suggests the close
                                  registered names and lists them all.
  --no-fold                       do not fold all-constant nodes before the first round
                                  (nodes created by rewrites are still folded)
  --fold-size-limit SIZE          the largest tensor constant folding may create, in
                                  bytes (suffixes K, M, G; default 1M): a larger constant
                                  stays a node computing it. --report lists the constants
                                  not folded and why.
  --fold-dequantize               fold DequantizeLinear nodes of constants too: their
                                  quantized weights become float ones (2 to 8 times the
                                  bytes, and runtimes no longer run the quantized
                                  operators in integers). Off by default, as in
                                  onnxruntime.
  --fold-work-limit STEPS         the work constant folding may spend in all, in
                                  elementary steps of the kernels that multiply sizes
                                  (a multiply-add of MatMul, Conv, Einsum...; suffixes K,
                                  M, G; default 256M, about a second): beyond it, such
                                  constants stay nodes, so that a small hostile model
                                  cannot keep folding busy for hours.
  --check N                       after saving, run the original and the saved model with
                                  the reference evaluator on N sets of random inputs
                                  (seeds 0..N-1, symbolic dims 2) and compare the outputs
                                  as `onnxopt verify` does, then on one empty-dimension
                                  set per symbolic dimension of the inputs (by name, at
                                  most 8; not those --dim or --overwrite-input-shape
                                  fix): that dimension 0, the others 2, seed 0, as an
                                  empty batch or a decoder's first token with no past.
                                  Such a set counts only if the original runs with it
                                  (the verdict names those skipped). Exit 5 if one
                                  differs, or if the saved model fails to run where the
                                  original runs (the outputs stay written, for
                                  inspection). An output beyond the tolerances still
                                  passes when it is about as close to a float64
                                  evaluation of the original as the original's:
                                  rewrites that reorder float rounding, which
                                  the model amplifies (float16 sums over many terms);
                                  such outputs are listed. Keeps a copy of the original
                                  model in memory.
  --check-atol A, --check-rtol R  the tolerances of --check (default: by element type, as
                                  in `onnxopt verify`)
  --check-with onnxruntime        --check also runs both models in onnxruntime, on the
                                  same random and empty-dimension sets (Node.js and the
                                  npm package onnxruntime-node must be installed; the
                                  harness is ort/compare_models.js next to onnxopt)
  --overwrite-input-shape NAME:D0,D1,...
                                  fix the shape of input NAME before optimizing
                                  (repeatable; as onnx-simplifier): rewrites that need a
                                  dimension can then prove it. A symbolic dimension it
                                  replaces takes that value in every input sharing it.
                                  NAME is split from the dims at the last ':'
  --dim NAME=VALUE                give the symbolic dimension NAME the value VALUE
                                  everywhere (repeatable). Both options are recorded in
                                  the --record file (replay applies them) and the reports
  --keep PATTERN                  no rewrite may touch a node whose name matches PATTERN,
                                  a name or a shell glob ('attn_*'; repeatable). Nodes
                                  named with _DONOTREMOVE_ are always kept
  --keep-initializer-inputs       in a model of IR version < 4, keep the initializers
                                  listed among the graph inputs overridable; by default
                                  they are constants there, as onnxruntime treats them
                                  (they leave the inputs, the IR version becomes 4)
  --max-iter N                    stop after N rounds (a positive integer; default:
                                  max(node count, 10) x number of pattern priorities)
  --record FILE                   save the applied rewrites to FILE, for `onnxopt replay`
                                  (format: docs/record-format.md)
  --report, -v, --verbose         print a detailed report after the summary: time per
                                  phase, rounds, rewrites and rejections per pattern,
                                  constants not folded and why
  --report-json FILE              save the same report as JSON to FILE
  --report-html FILE              save a visual report to FILE: one self-contained HTML
                                  page (no network) with the model before and after,
                                  nodes per operator, patterns with their rejections,
                                  time per phase, and each rewrite batch with the nodes
                                  it removed and added, linked to the batches that added
                                  or remove them (long lists are cut, as the page says)
  --external-data-threshold SIZE  save initializers of at least SIZE bytes (suffixes K,
                                  M, G) to OUTPUT.data next to OUTPUT. Models larger
                                  than 2 GiB always use external data.
  -q, --quiet                     print nothing but errors: no summary, no progress line
                                  (the --report is still printed when asked for)
  --passes PATH[:PATH...]         also apply the declarative rules of these Python files
                                  or folders (also ONNXOPT_PY_PASS_PATH); runs the
                                  command through /usr/bin/python3 -m onnxopt.cli
                                  (docs/declarative-rules.md), which takes OUTPUT or -o,
                                  --patterns, --no-fold, --fold-dequantize,
                                  --fold-size-limit, --fold-work-limit, --max-iter,
                                  --overwrite-input-shape, --dim, --keep,
                                  --keep-initializer-inputs, --external-data-threshold,
                                  --record, --report-json, --report-html, --check,
                                  --check-atol, --check-rtol, --report and -q;
                                  --check-with onnxruntime follows once it has saved
                                  and checked the model

examples:
  onnxopt optimize model.onnx -o model.opt.onnx
  onnxopt optimize model.onnx model.opt.onnx --check 3    # optimize and prove it on 3 input sets
  onnxopt optimize model.onnx -o out.onnx --patterns default,-CastCastPattern --report
  onnxopt optimize model.onnx -o out.onnx --patterns default,+CastOpCastPattern  # opt in
  onnxopt optimize model.onnx -o out.onnx --patterns none --no-fold   # cleanup only
  onnxopt optimize model.onnx -o out.onnx --record out.rewrites --report-json report.json
  onnxopt optimize model.onnx -o out.onnx --report-html report.html   # open it in a browser
  onnxopt optimize model.onnx out.onnx --overwrite-input-shape input_ids:1,128 --dim past=0
  onnxopt optimize model.onnx out.onnx --check 3 --check-with onnxruntime
  onnxopt replay model.onnx out.rewrites -o again.onnx                # same bytes as out.onnx
  onnxopt optimize big.onnx -o out/big.onnx --external-data-threshold 1M
)";

std::string RegisteredNamesText() {
  const std::vector<core::builder::RegisteredPattern> entries = core::builder::RegisteredPatterns();
  if (entries.empty()) return "no pattern is registered";
  std::vector<std::string> families;
  std::string text = "registered patterns: ";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    text += (i ? ", " : "") + entries[i].name;
    if (!entries[i].family.empty() &&
        std::find(families.begin(), families.end(), entries[i].family) == families.end())
      families.push_back(entries[i].family);
  }
  if (!families.empty()) {
    text += "; families: ";
    for (std::size_t i = 0; i < families.size(); ++i) text += (i ? ", " : "") + families[i];
  }
  return text;
}

// The selection, checked against the registered names now so that a typo is a usage
// error before the model is even loaded.
core::builder::PatternSelection ParseSelection(const std::string& text) {
  try {
    core::builder::PatternSelection selection = core::builder::PatternSelection::Parse(text);
    selection.Resolve(core::builder::RegisteredPatterns());
    return selection;
  } catch (const Error& error) {
    throw UsageError("--patterns '" + text + "': " + error.what() + "; " + RegisteredNamesText());
  }
}

// --check N, its tolerances, and --check-with onnxruntime.
struct OutputCheck {
  int runs = 0;
  core::eval::ToleranceOptions tolerances;
  bool with_onnxruntime = false;
};

OutputCheck ParseOutputCheck(const Arguments& args) {
  OutputCheck check;
  if (auto runs = args.Value("--check")) {
    auto [end, error] = std::from_chars(runs->data(), runs->data() + runs->size(), check.runs);
    if (error != std::errc() || end != runs->data() + runs->size() || check.runs <= 0)
      throw UsageError("--check expects a positive number of input sets, not '" + *runs + "'");
  }
  if (auto atol = args.Value("--check-atol")) check.tolerances.atol = ParseNonNegativeNumber(*atol, "--check-atol");
  if (auto rtol = args.Value("--check-rtol")) check.tolerances.rtol = ParseNonNegativeNumber(*rtol, "--check-rtol");
  if (auto with = args.Value("--check-with")) {
    if (*with != "onnxruntime") throw UsageError("--check-with expects 'onnxruntime', not '" + *with + "'");
    check.with_onnxruntime = true;
  }
  if (check.runs == 0 && (check.tolerances.atol || check.tolerances.rtol || check.with_onnxruntime))
    throw UsageError("--check-atol, --check-rtol and --check-with need --check N");
  return check;
}

// Runs the original and the model saved at `output` (read back, so that what is checked
// is the file) on `check.runs` random input sets, then on the empty-dimension sets
// (model_comparison.h); prints the comparison of a set that differs, and a one-line verdict.
int CheckSavedModel(const ModelProto& original, const std::string& input, const std::string& output,
                    const OutputCheck& check, bool quiet) {
  const ModelProto saved = core::ir::LoadModel(output);
  // A set that passed within rounding is shown: the user learns how much the model
  // amplifies rounding.
  auto show_rounding = [&](const std::ostringstream& details) {
    if (!quiet && details.str().find("\nwithin rounding: ") != std::string::npos) std::cout << details.str();
  };
  for (int run = 0; run < check.runs; ++run) {
    RandomInputOptions inputs;
    inputs.seed = static_cast<std::uint32_t>(run);
    std::ostringstream details;
    if (!CompareOnRandomInputs(original, input, saved, output, inputs, check.tolerances, details,
                               core::verify::Rounding::kJudgeAgainstFloat64)) {
      std::cout << details.str() << "check: the optimized model's outputs differ from the original's on input set "
                << run + 1 << " of " << check.runs << " (seed " << run << ")\n";
      return kMismatch;
    }
    show_rounding(details);
  }
  const RandomInputOptions seed_0;
  const core::verify::EmptyDimensionRounds plan = core::verify::PlanEmptyDimensionRounds(original, saved, seed_0);
  core::verify::EmptyDimensionRounds rounds = plan;
  std::ostringstream details;
  if (!core::verify::CompareWithEmptyDimensions(rounds, original, input, saved, output, seed_0, check.tolerances,
                                                details, core::verify::Rounding::kJudgeAgainstFloat64)) {
    std::cout << details.str() << "check: "
              << core::verify::DescribeEmptyDimensionFailure(rounds, "the original", "the optimized model")
              << " (empty-dimension set, seed 0)\n";
    return kMismatch;
  }
  show_rounding(details);
  if (!quiet) {
    const std::string empty_sets = core::verify::DescribeEmptyDimensionRounds(rounds, "the original");
    std::cout << "check: the same outputs as the original on " << check.runs << " random input set"
              << (check.runs == 1 ? "" : "s") << (empty_sets.empty() ? "" : " and " + empty_sets) << "\n";
  }
  if (check.with_onnxruntime) return CheckWithOnnxruntime(original, output, check.runs, plan, check.tolerances, quiet);
  return kOk;
}

int ParseMaxIter(const std::string& text) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0)
    throw UsageError("--max-iter expects a positive integer, got '" + text + "'");
  return value;
}

void PrintSummary(Histogram& before_ops, const InitializerStats& before_initializers, const GraphProto& after,
                  double seconds) {
  Histogram after_ops;
  InitializerStats after_initializers;
  CountGraph(after, after_ops, after_initializers);
  std::cout << "nodes: " << before_ops.nodes << " -> " << after_ops.nodes
            << ", initializers: " << before_initializers.count << " -> " << after_initializers.count << " ("
            << std::fixed << std::setprecision(1) << seconds * 1e3 << " ms)\n";
  std::set<std::string> ops;
  for (const auto& [op, count] : before_ops.ops) ops.insert(op);
  for (const auto& [op, count] : after_ops.ops) ops.insert(op);
  for (const auto& op : ops) {
    std::uint64_t old_count = before_ops.ops[op], new_count = after_ops.ops[op];
    if (old_count != new_count) std::cout << "  " << op << ": " << old_count << " -> " << new_count << "\n";
  }
}

// "iterations: 3, rewrites: 12 (CastCastPattern 4, RemoveUnusedNodes 2, ...)": records
// per pattern or pass, in order of first appearance.
void PrintRewrites(const core::builder::OptimizationReport& report,
                   const std::vector<core::builder::LocalRewriting>& rewrites) {
  std::vector<std::pair<std::string, std::size_t>> counts;
  for (const auto& record : rewrites) {
    const std::string name = record.Name();
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& entry) { return entry.first == name; });
    if (it == counts.end())
      counts.emplace_back(name, 1);
    else
      ++it->second;
  }
  std::cout << "iterations: " << report.iterations << (report.reached_max_iter ? " (stopped at --max-iter)" : "")
            << ", rewrites: " << rewrites.size();
  for (std::size_t i = 0; i < counts.size(); ++i)
    std::cout << (i ? ", " : " (") << counts[i].first << " " << counts[i].second << (i + 1 == counts.size() ? ")" : "");
  std::cout << "\n";
}

// The options of `optimize` but those that may be repeated (taken out first), and its flags.
const std::vector<std::string> kValueOptions = {
    "-o", "--output", "--patterns", "--external-data-threshold", "--max-iter", "--record", "--report-json",
    "--report-html", "--fold-size-limit", "--fold-work-limit", "--check", "--check-atol", "--check-rtol",
    "--check-with"};
const std::vector<std::string> kFlags = {"-q", "--quiet", "--no-fold", "--fold-dequantize", "--report", "-v", "--verbose",
                                         "--keep-initializer-inputs"};

// MODEL and OUTPUT: the positional arguments, OUTPUT also as -o or --output (once).
std::pair<std::string, std::string> ModelAndOutput(const Arguments& args) {
  const std::vector<std::string>& positional = args.Positional(1, 2);
  std::optional<std::string> output = args.Value("-o");
  if (!output) output = args.Value("--output");
  if (positional.size() == 2) {
    if (output) throw UsageError("two outputs: -o " + *output + " and " + positional[1]);
    output = positional[1];
  }
  if (!output) throw UsageError("missing -o OUTPUT");
  return {positional[0], *output};
}

core::ir::InitializerInputs InitializerInputsOf(const Arguments& args) {
  return args.Flag("--keep-initializer-inputs") ? core::ir::InitializerInputs::kOverridable
                                                : core::ir::InitializerInputs::kConstantBeforeIr4;
}

core::ir::SaveOptions SaveOptionsOf(const Arguments& args) {
  core::ir::SaveOptions options;
  if (auto threshold = args.Value("--external-data-threshold"))
    options.external_data_threshold = ParseByteCount(*threshold, "--external-data-threshold");
  return options;
}

// The files optimize reads and writes, checked against each other before anything runs
// (file_plan.h). The external data files of the input model join once it is loaded.
FilePlan PlanFiles(const Arguments& args, const std::string& input, const std::string& output,
                   const core::ir::SaveOptions& save_options) {
  FilePlan files;
  files.Read(input, "the input model", FilePlan::Role::kModel);
  files.Write(output, "-o", FilePlan::Role::kModel);
  files.Write(core::ir::ExternalDataPath(output, save_options), "the external data file of -o",
              FilePlan::Role::kModelData);
  for (const char* option : {"--record", "--report-json", "--report-html"})
    if (const std::optional<std::string> path = args.Value(option)) files.Write(*path, option);
  return files;
}

// --passes: the Python command line optimizes (rule_files.h), once this process has
// checked the arguments it shares with optimize without --passes and the files. It does
// not take --check-with onnxruntime: this process makes that check once the Python command
// line has saved the model and passed its own --check, the order it has without --passes.
int RunOptimizeWithPythonRules(const std::vector<std::string>& raw_args) {
  std::vector<std::string> single_args = raw_args;
  const std::vector<std::string> shape_texts = TakeRepeatedOption(single_args, "--overwrite-input-shape");
  const std::vector<std::string> dim_texts = TakeRepeatedOption(single_args, "--dim");
  TakeRepeatedOption(single_args, "--keep");  // the Python command line applies it
  std::vector<std::string> value_options = kValueOptions;
  value_options.push_back("--passes");
  const Arguments args(single_args, value_options, kFlags);
  const auto [input, output] = ModelAndOutput(args);
  PlanFiles(args, input, output, SaveOptionsOf(args));
  std::vector<std::string> python_args = raw_args;
  if (TakeRepeatedOption(python_args, "--check-with").empty())
    return RunPythonRules(raw_args, PythonRun::kReplaceThisProcess);
  const OutputCheck check = ParseOutputCheck(args);
  const core::ir::InputShapeSettings input_shapes = ParseInputShapeSettings(shape_texts, dim_texts);
  // Read now: OUTPUT may replace MODEL. Compared as the Python command line optimized it:
  // specialised (a contradiction makes that one fail first, with its message).
  ModelProto original = core::ir::LoadModel(input);
  core::ir::MakeInitializerInputsConstant(original, InitializerInputsOf(args));
  if (const int status = RunPythonRules(python_args, PythonRun::kWaitForIt); status != kOk) return status;
  core::ir::ApplyInputShapeSettings(original, input_shapes);
  const core::verify::EmptyDimensionRounds plan =
      core::verify::PlanEmptyDimensionRounds(original, core::ir::LoadModel(output), RandomInputOptions{});
  return CheckWithOnnxruntime(original, output, check.runs, plan, check.tolerances,
                              args.Flag("-q") || args.Flag("--quiet"));
}

int RunOptimize(const std::vector<std::string>& raw_args) {
  if (UsesPythonRules(raw_args)) return RunOptimizeWithPythonRules(raw_args);
  std::vector<std::string> single_args = raw_args;
  const std::vector<std::string> shape_texts = TakeRepeatedOption(single_args, "--overwrite-input-shape");
  const std::vector<std::string> dim_texts = TakeRepeatedOption(single_args, "--dim");
  std::vector<std::string> keep_globs = TakeRepeatedOption(single_args, "--keep");
  Arguments args(single_args, kValueOptions, kFlags);
  const std::string pattern_text = args.Value("--patterns").value_or("default");
  const auto [input, output] = ModelAndOutput(args);
  const core::ir::InputShapeSettings input_shapes = ParseInputShapeSettings(shape_texts, dim_texts);
  core::builder::OptimizerOptions options;
  options.registered = ParseSelection(pattern_text);
  if (!keep_globs.empty()) options.do_not_remove = core::builder::KeepNodesNamed(std::move(keep_globs));
  options.fold_constants_first = !args.Flag("--no-fold");
  options.fold.fold_dequantize_linear = args.Flag("--fold-dequantize");
  if (auto limit = args.Value("--fold-size-limit"))
    options.fold.max_output_bytes = ParseByteCount(*limit, "--fold-size-limit");
  if (auto limit = args.Value("--fold-work-limit"))
    options.fold.max_work_steps = ParseStepCount(*limit, "--fold-work-limit");
  const OutputCheck check = ParseOutputCheck(args);
  const bool print_report = args.Flag("--report") || args.Flag("-v") || args.Flag("--verbose");
  const int max_iter = args.Value("--max-iter") ? ParseMaxIter(*args.Value("--max-iter")) : -1;
  const std::optional<std::string> record_path = args.Value("--record");
  const std::optional<std::string> json_path = args.Value("--report-json");
  const std::optional<std::string> html_path = args.Value("--report-html");
  // The reports list why candidates were rejected.
  options.collect_no_match = print_report || json_path || html_path;
  const core::ir::SaveOptions save_options = SaveOptionsOf(args);
  const bool quiet = args.Flag("-q") || args.Flag("--quiet");
  FilePlan files = PlanFiles(args, input, output, save_options);

  const auto start = std::chrono::steady_clock::now();
  ProgressLine progress("optimize", !quiet);
  progress.Phase("loading " + input);
  std::vector<std::string> warnings;
  std::vector<std::filesystem::path> data_files;
  ModelProto model = core::ir::LoadModel(input, {}, &warnings, &data_files);
  for (const auto& warning : warnings) std::cerr << "onnxopt optimize: warning: " << warning << "\n";
  core::ir::MakeInitializerInputsConstant(model, InitializerInputsOf(args));
  for (const auto& path : data_files)
    files.Read(path, "an external data file of the input model", FilePlan::Role::kModelData);
  Histogram before_ops;
  InitializerStats before_initializers;
  if (!quiet || html_path) CountGraph(model.graph(), before_ops, before_initializers);
  // The HTML report names the nodes the records remove, which records know by position.
  std::map<NodeKey, std::string> original_names;
  if (html_path) original_names = IndexNodeNames(model.graph());

  // Lets replay check that a rewrite file is applied to the model it was recorded on (as
  // loaded: replay applies the recorded input shapes after checking), and that each
  // position still designates the node it removed.
  const std::string fingerprint = record_path ? core::builder::ModelFingerprint(model) : std::string();
  try {
    core::ir::ApplyInputShapeSettings(model, input_shapes);
  } catch (const ModelError& error) {
    throw UsageError(error.what());
  }
  std::optional<ModelProto> skeleton;
  if (record_path || html_path) skeleton = core::builder::ReplaySkeleton(model);
  // --check compares with the model as loaded (and specialised), which OUTPUT may replace on disk.
  const std::optional<ModelProto> original = check.runs > 0 ? std::optional<ModelProto>(model) : std::nullopt;
  core::builder::GraphBuilder builder(std::move(model));
  core::builder::OptimizationReport report;
  std::vector<core::builder::LocalRewriting> rewrites;
  {
    progress.Phase("optimizing");
    options.progress = [&](const std::string& status) { progress.Detail(status); };
    core::builder::GraphGraph optimizer(builder, {}, std::move(options));
    rewrites = optimizer.Optimize(max_iter, &report);
  }
  if (!report.refused_rewrites.empty()) {
    // A defect of a pattern, not of the model: the output stays valid, with those matches left as they were.
    std::cerr << "onnxopt optimize: warning: " << report.refused_rewrites.size()
              << " rewrite(s) refused, a replacement node is not valid in the model; first: "
              << report.refused_rewrites.front() << "\n";
  }
  if (skeleton) core::builder::DescribeRemovedNodes(std::move(*skeleton), rewrites);
  progress.Phase("saving " + output);
  ModelProto optimized = std::move(builder).TakeModel();

  core::ir::OutputFiles outputs;
  core::ir::PrepareModel(optimized, output, save_options, outputs);
  if (record_path) {
    outputs.Add(*record_path, "cannot write rewrite file " + Quote(*record_path))
        .WriteAt(core::builder::SerializeRewrites(rewrites, fingerprint, input_shapes), 0);
  }
  if (json_path)
    outputs.Add(*json_path, "cannot write JSON report " + Quote(*json_path))
        .WriteAt(report.ToJson(input_shapes), 0);
  if (html_path) {
    HtmlReportInput page{input, pattern_text, core::ir::DescribeInputShapeSettings(input_shapes),
                         {before_ops, before_initializers}, {}, std::move(original_names), &report, &rewrites};
    CountGraph(optimized.graph(), page.after.ops, page.after.initializers);
    outputs.Add(*html_path, "cannot write HTML report " + Quote(*html_path)).WriteAt(RenderReportHtml(page), 0);
  }
  outputs.Commit();
  progress.Phase("");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (!quiet) {
    if (!input_shapes.empty())
      std::cout << "input shapes: " << core::ir::DescribeInputShapeSettings(input_shapes) << "\n";
    PrintSummary(before_ops, before_initializers, optimized.graph(), seconds);
    PrintRewrites(report, rewrites);
    std::cout << "saved " << output << "\n";
    if (record_path) std::cout << "saved " << rewrites.size() << " rewrites to " << *record_path << "\n";
    if (json_path) std::cout << "saved the report to " << *json_path << "\n";
    if (html_path) std::cout << "saved the HTML report to " << *html_path << "\n";
  }
  if (print_report) {
    const std::string text = report.ToString();
    std::cout << text << (text.ends_with('\n') ? "" : "\n");
  }
  if (original) return CheckSavedModel(*original, input, output, check, quiet);
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
