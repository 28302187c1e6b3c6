// `onnxopt run MODEL`: evaluates a model with the reference kernels on given or random
// inputs, summarizes every output and optionally saves them as .npy files.

#include <filesystem>
#include <iostream>
#include <set>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/evaluator.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/eval/npy.h"
#include "onnx_core/shapes/model_validity.h"
#include "tools/onnxopt/cli.h"
#include "tools/onnxopt/model_inputs.h"

namespace onnxopt::cli {

namespace {

constexpr const char* kUsageLine =
    "onnxopt run MODEL [--input NAME=FILE.npy ...] [--random-inputs [--seed S] [--dim NAME=VALUE ...]] "
    "[--output-dir DIR]";

constexpr const char* kHelp = R"(usage: onnxopt run MODEL [options]

Runs MODEL (with its external data) with onnxopt's reference evaluator and prints one
line per graph output: name, type and shape, min/max/mean of numeric outputs and the
first values. Every input that is not an initializer needs a value: from a .npy file
(--input), or drawn at random (--random-inputs), or both (files win).

options:
  --input NAME=FILE.npy   value of the graph input NAME (repeatable). C-order .npy of
                          dtype bool, int8..int64, uint8..uint64, float16/32/64 or
                          unicode strings.
  --random-inputs         draw every input not given with --input: floats uniform in
                          [-R, R), integers uniform in [0, M), bool fair coin, strings
                          "s<int>". The generator and the order of draws are those of
                          tests/ort/compare_models.js: the same seed gives the same
                          inputs there.
  --seed S                seed of the random inputs (default 0)
  --dim NAME=VALUE        value of the symbolic dimension NAME (repeatable; default 2,
                          unnamed unknown dimensions are 2)
  --float-range R         range of random floats (default 1)
  --int-max M             bound of random integers (default 16)
  --output-dir DIR        write one NAME.npy per output into DIR (created if needed).
                          Characters of NAME outside [A-Za-z0-9._-] are written %XX
                          (hex of each UTF-8 byte); the mapping is printed. Types
                          without a NumPy dtype are converted: bfloat16 and float8 to
                          float32, int4/uint4 to int8/uint8 (a note says so).
  -q, --quiet             print nothing but errors and the written files

exit codes: 0 success, 1 usage error, 2 invalid model, invalid input file, missing
kernel or kernel failure (the message names the node), 3 internal error.

examples:
  onnxopt run model.onnx --random-inputs --seed 1 --dim batch=4
  onnxopt run model.onnx --input x=x.npy --output-dir out/
)";

int RunRun(std::vector<std::string> raw_args) {
  const std::vector<std::string> input_specs = TakeRepeatedOption(raw_args, "--input");
  const std::vector<std::string> dim_specs = TakeRepeatedOption(raw_args, "--dim");
  Arguments args(raw_args, {"--seed", "--output-dir", "--float-range", "--int-max"},
                 {"--random-inputs", "-q", "--quiet"});
  const std::string model_path = args.Positional(1, 1)[0];
  const bool random = args.Flag("--random-inputs");
  const bool quiet = args.Flag("-q") || args.Flag("--quiet");
  if (!random && (args.Value("--seed") || !dim_specs.empty() || args.Value("--float-range") || args.Value("--int-max")))
    throw UsageError("--seed, --dim, --float-range and --int-max need --random-inputs");
  const RandomInputOptions random_options =
      ParseRandomInputOptions(dim_specs, args.Value("--seed"), args.Value("--float-range"), args.Value("--int-max"));
  std::map<std::string, std::string> input_files;
  for (const auto& spec : input_specs) {
    auto [name, file] = SplitAssignment(spec, "--input");
    if (!input_files.emplace(name, file).second) throw UsageError("--input " + name + " given twice");
  }

  std::vector<std::string> warnings;
  const ModelProto model = core::ir::LoadModel(model_path, {}, &warnings);
  core::shapes::ValidateModel(model, model_path);
  for (const auto& warning : warnings) std::cerr << "onnxopt run: warning: " << warning << "\n";

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
  for (const auto& [name, file] : input_files) inputs[name] = core::eval::ReadNpy(file);
  for (const auto& input : model.graph().input())
    if (!initializers.contains(input.name()) && !inputs.contains(input.name()))
      throw UsageError("no value for input '" + input.name() + "': give --input " + input.name() +
                       "=FILE.npy or --random-inputs");

  const core::eval::ValueMap outputs = core::eval::Run(model, inputs);

  std::optional<std::filesystem::path> output_dir;
  if (auto dir = args.Value("--output-dir")) {
    output_dir = *dir;
    std::error_code ec;
    std::filesystem::create_directories(*output_dir, ec);
    if (ec) throw IoError("cannot create '" + output_dir->string() + "': " + ec.message());
  }
  for (const auto& output : model.graph().output()) {
    auto it = outputs.find(output.name());
    if (it == outputs.end()) throw BuilderError("the evaluator returned no value for output '" + output.name() + "'");
    if (!quiet) std::cout << output.name() << ": " << SummarizeValue(it->second) << "\n";
    if (!output_dir) continue;
    const auto* tensor = std::get_if<core::eval::Tensor>(&it->second);
    if (!tensor) {
      std::cout << "  not written: output '" << output.name() << "' is not a tensor\n";
      continue;
    }
    const std::string file = EscapeFileName(output.name()) + ".npy";
    const bool native = core::eval::WriteNpy(*tensor, *output_dir / file);
    std::cout << "  wrote " << (*output_dir / file).string();
    if (file != output.name() + ".npy") std::cout << " (output '" << output.name() << "')";
    if (!native) std::cout << " (converted: " << tensor->Describe() << " has no NumPy dtype)";
    std::cout << "\n";
  }
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
