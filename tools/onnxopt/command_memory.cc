// `onnxopt memory MODEL`: the in-place memory plan of the main graph, before
// and after copy elimination (shared/docs/copy-elimination.md §2.2): copies,
// bytes copied, peak memory, the constraints added and every copy's verdict.

#include <iostream>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/common/json_writer.h"
#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/file_io.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/memory/inplace_run.h"
#include "onnx_core/memory/memory_options.h"
#include "onnx_core/memory/memory_report.h"
#include "onnx_core/shapes/model_validity.h"
#include "tools/onnxopt/cli.h"
#include "tools/onnxopt/file_plan.h"
#include "tools/onnxopt/model_inputs.h"

namespace onnxopt::cli {

namespace {

constexpr const char* kUsageLine =
    "onnxopt memory MODEL [--dim NAME=VALUE ...] [--json] [-o OUT] "
    "[--input-reuse LIST] "
    "[--output-reuse-input PAIRS] [--keep-copy NODE ...] [--order BEFORE:AFTER "
    "...] "
    "[--visit-order reverse|topological] [--inplace-ops LIST|none] "
    "[--identity-is-view] [--no-specialize-functions]";

constexpr const char* kHelp = R"(usage: onnxopt memory MODEL [options]

Builds the in-place memory plan of MODEL's main graph and prints it before and after copy
elimination: copy nodes (ai.onnxopt.TensorMove, Identity on tensors) deleted, elided or
kept with the rule and reason, bytes copied (copies executed plus in-place-capable writers
— ScatterND, ScatterElements, TensorScatter — that must copy their data input), peak live
bytes over the node order (graph inputs and initializers reported apart), and the ordering
constraints added. "Before" is the functional plan: every copy and every writer copies.

options:
  --dim NAME=VALUE            value of the symbolic dimension NAME (repeatable); sizes
                              that stay symbolic count as unknown
  --json                      print one JSON object instead of text
  -o OUT                      save the model after copy elimination
  --input-reuse LIST          graph inputs (indices or names, comma-separated) the caller
                              lets the plan overwrite
  --output-reuse-input PAIRS  "IN,OUT|IN,OUT": graph inputs whose memory the caller lets
                              the plan share with an output
  --keep-copy NODE            never remove this copy (node name or output name; repeatable)
  --order BEFORE:AFTER        an existing ordering constraint (repeatable)
  --visit-order ORDER         reverse (default) or topological
  --inplace-ops LIST          writer families run in place: scatter,tensor_scatter,gqa
                              (default all), or none
  --identity-is-view          Identity is a view, not a copy candidate
  --no-specialize-functions   when the call sites of a local function disagree, leave the
                              function alone (their deletions are ELIDED in the plan)
                              instead of calling clones NAME__onnxopt_mK
  --run                       also run MODEL as usual and the model after the pass in place
                              on the same seeded random inputs (--dim values, else 2), check
                              that every output is bit-identical (exit code 5 otherwise) and
                              print the peak live bytes both runs measured
  --seed S                    with --run: the seed of the random inputs (default 0)

examples:
  onnxopt memory model.onnx --dim batch=1 --dim seq=128
  onnxopt memory kv_cache.onnx --output-reuse-input 0,0 --json
)";

// Runs `original` as usual and `eliminated` in place on the same random inputs; prints the
// measured peaks; true when every output is bit-identical.
bool CompareInPlaceRun(const ModelProto& original, const ModelProto& eliminated,
                       const core::memory::MemoryOptions& options, const RandomInputOptions& random, bool json) {
  const core::eval::ValueMap inputs = RandomInputs(original, random);
  core::eval::RunOptions copying;
  copying.measure_memory = true;
  core::eval::RunStats copying_stats, in_place_stats;
  const core::eval::ValueMap want = core::eval::Run(original, inputs, copying, &copying_stats);
  core::eval::RunOptions in_place = core::memory::InPlaceRunOptions(eliminated, options);
  in_place.measure_memory = true;
  const core::eval::ValueMap got = core::eval::Run(eliminated, inputs, in_place, &in_place_stats);
  std::vector<std::string> differing;
  for (const auto& [name, value] : want) {
    auto it = got.find(name);
    const auto* a = std::get_if<core::eval::Tensor>(&value);
    const auto* b = it == got.end() ? nullptr : std::get_if<core::eval::Tensor>(&it->second);
    if (!a || !b || !(*a == *b)) differing.push_back(name);
  }
  if (json) {
    JsonWriter writer;
    writer.BeginObject().Key("run").BeginObject();
    writer.Key("identical").Bool(differing.empty());
    writer.Key("copying_peak_live_bytes").Int(copying_stats.peak_live_bytes);
    writer.Key("in_place_peak_live_bytes").Int(in_place_stats.peak_live_bytes);
    writer.Key("in_place_writes").Int(in_place_stats.in_place_writes);
    writer.Key("in_place_refused").Int(in_place_stats.in_place_refused);
    writer.EndObject().EndObject();
    std::cout << writer.Text() << "\n";
  } else {
    std::cout << "run (seed " << random.seed << "): outputs " << (differing.empty() ? "bit-identical" : "DIFFER")
              << "; measured peak live bytes " << copying_stats.peak_live_bytes << " (copying) -> "
              << in_place_stats.peak_live_bytes << " (in place, " << in_place_stats.in_place_writes
              << " writes in place, " << in_place_stats.in_place_refused << " refused)\n";
  }
  for (const std::string& name : differing) std::cerr << "onnxopt memory: output '" << name << "' differs\n";
  return differing.empty();
}

// Replaces the symbolic dimensions of the graph inputs bound by --dim with
// their values.
void BindDims(ModelProto& model, const std::map<std::string, std::int64_t, std::less<>>& dims) {
  for (auto& input : *model.mutable_graph()->mutable_input()) {
    if (!input.type().has_tensor_type()) continue;
    for (auto& dim : *input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
      if (dim.has_dim_param())
        if (auto it = dims.find(dim.dim_param()); it != dims.end()) dim.set_dim_value(it->second);
  }
}

int RunMemory(std::vector<std::string> raw_args) {
  const std::vector<std::string> dim_specs = TakeRepeatedOption(raw_args, "--dim");
  const std::vector<std::string> keep_copies = TakeRepeatedOption(raw_args, "--keep-copy");
  const std::vector<std::string> orders = TakeRepeatedOption(raw_args, "--order");
  Arguments args(raw_args, {"-o", "--input-reuse", "--output-reuse-input", "--visit-order", "--inplace-ops", "--seed"},
                 {"--json", "--identity-is-view", "--no-specialize-functions", "--run"});
  const std::string model_path = args.Positional(1, 1)[0];
  const auto dims = ParseRandomInputOptions(dim_specs, std::nullopt, std::nullopt, std::nullopt).dims;
  const std::optional<std::string> output = args.Value("-o");
  FilePlan files;
  files.Read(model_path, "the input model", FilePlan::Role::kModel);
  if (output) files.Write(*output, "-o", FilePlan::Role::kModel);

  std::vector<std::string> warnings;
  ModelProto model = core::ir::LoadModel(model_path, {}, &warnings);
  core::shapes::ValidateModel(model, model_path);
  for (const auto& warning : warnings) std::cerr << "onnxopt memory: warning: " << warning << "\n";

  core::memory::MemoryOptionTexts texts;
  texts.input_reuse = args.Value("--input-reuse").value_or("");
  texts.output_reuse_input = args.Value("--output-reuse-input").value_or("");
  texts.keep_copies = keep_copies;
  texts.ordering = orders;
  texts.visit_order = args.Value("--visit-order").value_or("");
  texts.inplace_ops = args.Value("--inplace-ops").value_or("");
  texts.identity_is_view = args.Flag("--identity-is-view");
  texts.no_specialize_functions = args.Flag("--no-specialize-functions");
  core::memory::MemoryOptions options;
  try {
    options = core::memory::ParseMemoryOptions(texts, model.graph());
  } catch (const Error& error) {
    throw UsageError(error.what());
  }

  const ModelProto original = model;
  BindDims(model, dims);
  core::builder::GraphBuilder builder(std::move(model));
  builder.InferShapes();
  const core::memory::MemoryReport report = core::memory::PlanMemory(builder, options);
  if (args.Flag("--json")) {
    std::cout << core::memory::ReportJson(report) << "\n";
  } else {
    std::cout << core::memory::ReportText(report);
  }
  ModelProto eliminated = std::move(builder).TakeModel();
  if (args.Flag("--run")) {
    const RandomInputOptions random =
        ParseRandomInputOptions(dim_specs, args.Value("--seed"), std::nullopt, std::nullopt);
    if (!CompareInPlaceRun(original, eliminated, options, random, args.Flag("--json"))) return kMismatch;
  }
  if (output) {
    core::ir::SaveModel(eliminated, *output);
    if (!args.Flag("--json")) std::cout << "saved " << *output << "\n";
  }
  return kOk;
}

}  // namespace

Command MemoryCommand() {
  return {"memory",
          "in-place memory plan: copies, bytes copied and peak memory before "
          "and after copy elimination",
          kHelp, [](const std::vector<std::string>& args) {
            return RunReportingErrors("memory", kUsageLine, [&] { return RunMemory(args); });
          }};
}

}  // namespace onnxopt::cli
