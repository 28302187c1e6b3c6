// `onnxopt replay MODEL RECORD -o OUT`: apply the rewrites `onnxopt optimize --record`
// saved, without matching, and save the result (the same bytes optimize saved).

#include <chrono>
#include <iomanip>
#include <iostream>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_core/optimizer/rewrite_file.h"
#include "onnx_core/shapes/model_validity.h"
#include "tools/onnxopt/cli.h"
#include "onnx_core/ir/initializer_inputs.h"
#include "onnx_core/ir/input_shapes.h"
#include "tools/onnxopt/model_inputs.h"
#include "tools/onnxopt/file_plan.h"
#include "tools/onnxopt/progress.h"

namespace onnxopt::cli {

namespace {

constexpr const char* kUsageLine = "onnxopt replay MODEL RECORD -o OUTPUT [options]";

constexpr const char* kHelp = R"(usage: onnxopt replay MODEL RECORD -o OUTPUT [options]

Applies the rewrites that `onnxopt optimize MODEL --record RECORD` saved to MODEL again,
without matching patterns, and saves the result to OUTPUT: the same model, byte for byte,
that optimize saved. RECORD must come from the same MODEL: the rewrite file holds a fingerprint of the model
it was recorded on (graph and weights), and a record for another model is rejected. So
are a file changed after it was written (it ends with a checksum) and a record that does
not fit: a position out of range, a removed node other than the one recorded (operator,
domain, outputs), a missing nested graph, a batch after which the model would be invalid.
The message names the batch and what differs; nothing is written then (exit code 2).
OUTPUT and its external data file are written atomically. OUTPUT may not be RECORD, nor
replace one of MODEL's external data files; it may be MODEL itself (MODEL is read whole
before it is replaced). The name OUTPUT.data is reserved for OUTPUT's external data file.

options:
  -o, --output PATH               where to save the model (required)
  --external-data-threshold SIZE  save initializers of at least SIZE bytes (suffixes K,
                                  M, G) to OUTPUT.data next to OUTPUT. Models larger
                                  than 2 GiB always use external data.
  --keep-initializer-inputs       as for optimize: in a model of IR version < 4, keep the
                                  initializers listed among the inputs overridable. Give
                                  replay the same choice as the optimize run that
                                  recorded RECORD (otherwise the fingerprint differs).
  --overwrite-input-shape NAME:D0,D1,..., --dim NAME=VALUE
                                  optional: the input shapes optimize was given. RECORD
                                  holds them and replay applies them to MODEL itself; given
                                  here, they must be the same (a model optimized under
                                  other shapes is refused)
  -q, --quiet                     print nothing but errors

examples:
  onnxopt optimize model.onnx -o out.onnx --record out.rewrites
  onnxopt replay model.onnx out.rewrites -o again.onnx      # cmp out.onnx again.onnx
)";

int RunReplay(const std::vector<std::string>& raw_args) {
  std::vector<std::string> single_args = raw_args;
  const std::vector<std::string> shape_texts = TakeRepeatedOption(single_args, "--overwrite-input-shape");
  const std::vector<std::string> dim_texts = TakeRepeatedOption(single_args, "--dim");
  const bool shapes_given = !shape_texts.empty() || !dim_texts.empty();
  const core::ir::InputShapeSettings given_shapes = ParseInputShapeSettings(shape_texts, dim_texts);
  Arguments args(single_args, {"-o", "--output", "--external-data-threshold"}, {"-q", "--quiet", "--keep-initializer-inputs"});
  const auto& positional = args.Positional(2, 2);
  const std::string input = positional[0];
  const std::string record_path = positional[1];
  auto output = args.Value("-o");
  if (!output) output = args.Value("--output");
  if (!output) throw UsageError("missing -o OUTPUT");
  core::ir::SaveOptions save_options;
  if (auto threshold = args.Value("--external-data-threshold"))
    save_options.external_data_threshold = ParseByteCount(*threshold, "--external-data-threshold");
  const bool quiet = args.Flag("-q") || args.Flag("--quiet");
  FilePlan files;
  files.Read(input, "the input model", FilePlan::Role::kModel);
  files.Read(record_path, "the rewrite file");
  files.Write(*output, "-o", FilePlan::Role::kModel);
  files.Write(core::ir::ExternalDataPath(*output, save_options), "the external data file of -o",
              FilePlan::Role::kModelData);

  const auto start = std::chrono::steady_clock::now();
  // The record first: it is small, and a bad one should not cost loading the model.
  core::builder::RewriteFile record;
  try {
    record = core::builder::LoadRewriteFile(record_path);
  } catch (const ModelError& error) {
    std::cerr << "onnxopt replay: invalid rewrite file: " << error.what() << "\n";
    return kInvalidInput;
  }
  if (shapes_given && given_shapes != record.input_shapes) {
    const std::string recorded = core::ir::DescribeInputShapeSettings(record.input_shapes);
    std::cerr << "onnxopt replay: rewrite file '" << record_path << "' was recorded under other input shapes: "
              << (recorded.empty() ? "none" : recorded) << ", not " << core::ir::DescribeInputShapeSettings(given_shapes)
              << "\n";
    return kInvalidInput;
  }
  const std::vector<core::builder::LocalRewriting>& rewrites = record.rewrites;
  ProgressLine progress("replay", !quiet);
  progress.Phase("loading " + input);
  std::vector<std::string> warnings;
  std::vector<std::filesystem::path> data_files;
  ModelProto model = core::ir::LoadModel(input, {}, &warnings, &data_files);
  for (const auto& warning : warnings) std::cerr << "onnxopt replay: warning: " << warning << "\n";
  // The model optimize rewrote, hence fingerprinted: after the same IR < 4 conversion.
  core::ir::MakeInitializerInputsConstant(model, args.Flag("--keep-initializer-inputs")
                                                     ? core::ir::InitializerInputs::kOverridable
                                                     : core::ir::InitializerInputs::kConstantBeforeIr4);
  for (const auto& path : data_files)
    files.Read(path, "an external data file of the input model", FilePlan::Role::kModelData);
  core::shapes::ValidateModel(model, input);
  const int nodes_before = model.graph().node_size();
  // Records refer to nodes by position: on another model they would rewrite the wrong
  // nodes without noticing.
  if (!record.model_fingerprint.empty()) {
    const std::string fingerprint = core::builder::ModelFingerprint(model);
    if (fingerprint != record.model_fingerprint) {
      std::cerr << "onnxopt replay: rewrite file '" << record_path << "' was recorded on another model: its model "
                << "fingerprint is " << record.model_fingerprint << ", '" << input << "' has " << fingerprint
                << "\n";
      return kInvalidInput;
    }
  }

  // The records fit the model specialised as optimize specialised it.
  core::ir::ApplyInputShapeSettings(model, record.input_shapes);
  core::builder::GraphBuilder builder(std::move(model));
  progress.Phase("replaying " + std::to_string(rewrites.size()) + " rewrites");
  try {
    core::builder::Replay(builder, rewrites);
  } catch (const BuilderError& error) {
    // Replay checks every record against the graph: a mismatch means the record was made
    // for another model (or edited), which is bad input, not a bug of onnxopt.
    std::cerr << "onnxopt replay: rewrite file '" << record_path << "' does not fit model '" << input
              << "': " << error.what() << "\n";
    return kInvalidInput;
  }
  ModelProto replayed = std::move(builder).TakeModel();
  progress.Phase("saving " + *output);
  core::ir::SaveModel(replayed, *output, save_options);
  progress.Phase("");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (!quiet) {
    std::cout << "replayed " << rewrites.size() << " rewrites: nodes " << nodes_before << " -> "
              << replayed.graph().node_size() << " (" << std::fixed << std::setprecision(1) << seconds * 1e3
              << " ms)\nsaved " << *output << "\n";
  }
  return kOk;
}

}  // namespace

Command ReplayCommand() {
  return {"replay", "apply the rewrites saved by `optimize --record` to a model again", kHelp,
          [](const std::vector<std::string>& args) {
            return RunReportingErrors("replay", kUsageLine, [&] { return RunReplay(args); });
          }};
}

}  // namespace onnxopt::cli
