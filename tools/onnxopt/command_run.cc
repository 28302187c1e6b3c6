// `onnxopt run MODEL`: evaluates a model with the reference kernels on given or random
// inputs, summarizes every output and optionally saves them as .npy files.

#include <filesystem>
#include <iostream>
#include <set>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/npy.h"
#include "onnx_core/eval/random_seed.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/shapes/model_validity.h"
#include "tools/onnxopt/cli.h"
#include "tools/onnxopt/file_plan.h"
#include "tools/onnxopt/model_inputs.h"

namespace onnxopt::cli {

namespace {

constexpr const char* kUsageLine =
    "onnxopt run MODEL [--input NAME=FILE.npy ...] [--random-inputs [--dim NAME=VALUE ...]] [--seed S] "
    "[--output-dir DIR]";

constexpr const char* kHelp = R"(usage: onnxopt run MODEL [options]

Runs MODEL (with its external data) with onnxopt's reference evaluator and prints one
line per graph output: name, type and shape, min/max/mean of numeric outputs and the
first values. Every input that is not an initializer needs a value: from a .npy file
(--input), or drawn at random (--random-inputs), or both (files win). The nested graphs
(If branches, Loop and Scan bodies) may run 2^24 nodes in one evaluation: a model that
asks more (a loop that never ends) is refused.

options:
  --input NAME=FILE.npy   value of the graph input NAME (repeatable). C-order .npy of
                          dtype bool, int8..int64, uint8..uint64, float16/32/64 or
                          unicode strings, of the input's declared element type and
                          shape (an invalid input file otherwise, exit code 2); int8
                          for int4 and int2, uint8 for uint4 and uint2, values in the
                          type's range (as --output-dir writes them).
  --random-inputs         draw every input not given with --input: floats uniform in
                          [-R, R), integers uniform in [0, M), bool fair coin, strings
                          "s<int>". The generator and the order of draws are those of
                          tests/ort/compare_models.js: the same seed gives the same
                          inputs there.
  --seed S                seed of the random inputs and of the random operators
                          (RandomNormal, training-mode Dropout...) that have no seed
                          attribute (default 0)
  --dim NAME=VALUE        value of the symbolic dimension NAME (repeatable; default 2,
                          unnamed unknown dimensions are 2)
  --float-range R         range of random floats (default 1)
  --int-max M             bound of random integers (default 16)
  --output-dir DIR        write one NAME.npy per output into DIR (created if needed).
                          Characters of NAME outside [A-Za-z0-9._-] are written %XX
                          (hex of each UTF-8 byte); the mapping is printed. Types
                          without a NumPy dtype are converted: bfloat16 and float8 to
                          float32, int4/uint4 to int8/uint8 (a note says so). The
                          files are written together once every output was computed;
                          none may replace the model, its external data or an --input
                          file.
  -q, --quiet             print nothing but errors and the written files

exit codes: 0 success, 1 usage error, 2 invalid model, invalid input file (also a
FIFO, a device or a folder instead of a file), missing kernel or kernel failure (the
message names the node), 3 internal error.

examples:
  onnxopt run model.onnx --random-inputs --seed 1 --dim batch=4
  onnxopt run model.onnx --input x=x.npy --output-dir out/
)";

std::string OutputFileName(const std::string& output) { return EscapeFileName(output) + ".npy"; }

// The value of `file` for the graph input `info`. A value that contradicts the input's
// declared type or shape is the file's fault: an invalid input file, not an invalid model.
core::eval::Tensor ReadInputFile(const ValueInfoProto& info, const std::string& file) {
  core::eval::Tensor value = core::eval::ReadNpy(file);
  if (info.type().has_tensor_type())
    value = core::eval::FromNpyForm(std::move(value), info.type().tensor_type().elem_type(), file);
  try {
    core::eval::CheckInputValue(info, value);
  } catch (const ModelError& error) {
    throw InputFileError("invalid input file " + Quote(file) + ": " + error.what());
  }
  return value;
}

int RunRun(std::vector<std::string> raw_args) {
  const std::vector<std::string> input_specs = TakeRepeatedOption(raw_args, "--input");
  const std::vector<std::string> dim_specs = TakeRepeatedOption(raw_args, "--dim");
  Arguments args(raw_args, {"--seed", "--output-dir", "--float-range", "--int-max"},
                 {"--random-inputs", "-q", "--quiet"});
  const std::string model_path = args.Positional(1, 1)[0];
  const bool random = args.Flag("--random-inputs");
  const bool quiet = args.Flag("-q") || args.Flag("--quiet");
  if (!random && (!dim_specs.empty() || args.Value("--float-range") || args.Value("--int-max")))
    throw UsageError("--dim, --float-range and --int-max need --random-inputs");
  const RandomInputOptions random_options =
      ParseRandomInputOptions(dim_specs, args.Value("--seed"), args.Value("--float-range"), args.Value("--int-max"));
  std::map<std::string, std::string> input_files;
  for (const auto& spec : input_specs) {
    auto [name, file] = SplitAssignment(spec, "--input");
    if (!input_files.emplace(name, file).second) throw UsageError("--input " + name + " given twice");
  }

  FilePlan files;
  files.Read(model_path, "the input model", FilePlan::Role::kModel);
  for (const auto& [name, file] : input_files) files.Read(file, "--input " + name);

  std::vector<std::string> warnings;
  std::vector<std::filesystem::path> data_files;
  const ModelProto model = core::ir::LoadModel(model_path, {}, &warnings, &data_files);
  core::shapes::ValidateModel(model, model_path);
  for (const auto& warning : warnings) std::cerr << "onnxopt run: warning: " << warning << "\n";
  for (const auto& path : data_files)
    files.Read(path, "an external data file of the input model", FilePlan::Role::kModelData);
  std::optional<std::filesystem::path> output_dir;
  if (auto dir = args.Value("--output-dir")) output_dir = *dir;
  if (output_dir) {
    for (const auto& output : model.graph().output())
      files.Write(*output_dir / OutputFileName(output.name()), "the --output-dir file of output " + Quote(output.name()));
  }

  std::set<std::string, std::less<>> initializers, graph_inputs;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  for (const auto& input : model.graph().input()) graph_inputs.insert(input.name());
  for (const auto& [name, file] : input_files)
    if (!graph_inputs.contains(name)) throw UsageError("--input " + name + ": the model has no input named '" + name + "'");

  core::eval::ValueMap inputs;
  if (random) {
    std::map<std::string, std::int64_t> symbols;
    inputs = RandomInputs(model, random_options, &symbols);
    if (!quiet && !symbols.empty()) {
      std::cout << "symbolic dims:";
      for (const auto& [name, value] : symbols) std::cout << " " << name << "=" << value;
      std::cout << "\n";
    }
  }
  for (const auto& input : model.graph().input())
    if (auto it = input_files.find(input.name()); it != input_files.end())
      inputs[input.name()] = ReadInputFile(input, it->second);
  for (const auto& input : model.graph().input())
    if (!initializers.contains(input.name()) && !inputs.contains(input.name()))
      throw UsageError("no value for input '" + input.name() + "': give --input " + input.name() +
                       "=FILE.npy or --random-inputs");

  core::eval::SetEvaluationSeed(random_options.seed);
  const core::eval::ValueMap outputs = core::eval::Run(model, inputs);

  if (output_dir) {
    std::error_code ec;
    std::filesystem::create_directories(*output_dir, ec);
    if (ec) throw IoError("cannot create " + Quote(output_dir->string()) + ": " + ec.message());
  }
  core::ir::OutputFiles written;
  std::vector<std::string> notes;
  for (const auto& output : model.graph().output()) {
    auto it = outputs.find(output.name());
    if (it == outputs.end()) throw BuilderError("the evaluator returned no value for output '" + output.name() + "'");
    if (!quiet) std::cout << output.name() << ": " << SummarizeValue(it->second) << "\n";
    if (!output_dir) continue;
    const auto* tensor = std::get_if<core::eval::Tensor>(&it->second);
    if (!tensor) {
      notes.push_back("  not written: output " + Quote(output.name()) + " is not a tensor");
      continue;
    }
    const std::filesystem::path path = *output_dir / OutputFileName(output.name());
    const bool native = core::eval::WriteNpy(*tensor, written.Add(path, "cannot write " + Quote(path.string())));
    std::string note = "  wrote " + path.string();
    if (path.filename() != output.name() + ".npy") note += " (output " + Quote(output.name()) + ")";
    if (!native) note += " (converted: " + tensor->Describe() + " has no NumPy dtype)";
    notes.push_back(std::move(note));
  }
  written.Commit();
  for (const auto& note : notes) std::cout << note << "\n";
  return kOk;
}

}  // namespace

Command RunCommand() {
  return {"run", "evaluate a model on given or random inputs", kHelp,
          [](const std::vector<std::string>& args) {
            return RunReportingErrors("run", kUsageLine, [&] { return RunRun(args); });
          }};
}

}  // namespace onnxopt::cli
