// Small hostile files against `optimize` (constant folding), `info --shapes` (shape
// inference) and `run` (the evaluator): each is refused (exit 2, the node named, the size
// and the limit given) or its fold skipped, quickly and with bounded memory. Nothing may
// end in "out of memory" (exit 3), a crash or a hang.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "onnx_core/ir/model_io.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

// Sizes no default limit allows (a quarter of the physical memory is far below 4 TiB).
constexpr std::int64_t kHuge = std::int64_t{1} << 40;

// A command on a hostile file must take less than this, and less memory than this. The
// main build's time bounds are the ones that catch a slower pass. The sanitizer build (Debug,
// AddressSanitizer's redzones and quarantine) checks memory errors: its time bounds only catch
// a hang, for its times vary too much to say more (5 to 30 times the main build's with the
// machine's load: the optimize of ManyNestedGraphsOnOneLevel, 8 s alone, took 58 s beside two
// compilers; CI, running two test programs at once, took ManyCopiesOfOneValue past 60 s).
#if defined(__SANITIZE_ADDRESS__)
constexpr double kMaxSeconds = 120;
#else
constexpr double kMaxSeconds = 10;
#endif
constexpr long kMaxPeakRssKib = 600 * 1024;
// The memory bound of the tests that run a pass up to one of its limits (about a second and
// 300 MB without sanitizers; up to 680 MB in the sanitizer build).
#if defined(__SANITIZE_ADDRESS__)
constexpr long kAtLimitMaxPeakRssKib = 1536 * 1024;
#else
constexpr long kAtLimitMaxPeakRssKib = kMaxPeakRssKib;
#endif
// Killed beyond these, so that a regression fails instead of hanging or swapping.
constexpr CommandLimits kLimits{.seconds = static_cast<unsigned>(kMaxSeconds) + 30,
                                .address_space_bytes = std::uint64_t{4} << 30};

TensorProto Int64s(const std::string& name, const std::vector<std::int64_t>& values) {
  TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(TensorProto::INT64);
  tensor.add_dims(static_cast<std::int64_t>(values.size()));
  for (std::int64_t value : values) tensor.add_int64_data(value);
  return tensor;
}

// `count` floats equal to `value`.
TensorProto Floats(const std::string& name, std::int64_t count, float value) {
  TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(TensorProto::FLOAT);
  tensor.add_dims(count);
  for (std::int64_t i = 0; i < count; ++i) tensor.add_float_data(value);
  return tensor;
}

// A FLOAT tensor declaring 2^30 elements (4 GiB) and holding 4 bytes.
TensorProto LyingFloats(const std::string& name) {
  TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(TensorProto::FLOAT);
  tensor.add_dims(std::int64_t{1} << 30);
  tensor.set_raw_data(std::string(4, '\0'));
  return tensor;
}

class ResourceLimitsTest : public ::testing::Test {
 protected:
  // Writes `text` (ONNX text syntax) with `initializers` added, returns its path.
  std::string Model(const std::string& name, const std::string& text, const std::vector<TensorProto>& initializers = {}) {
    ModelProto model = ParseText(text);
    for (const TensorProto& init : initializers) *model.mutable_graph()->add_initializer() = init;
    return Save(name, model);
  }
  std::string Save(const std::string& name, const ModelProto& model) {
    const auto path = dir_ / name;
    WriteFile(path, core::ir::SerializeDeterministic(model));
    return path.string();
  }
  // The model of `text` (ONNX text syntax) without the nodes of its main graph, for a test
  // to fill; by default (float[2] a) => (float[2] c).
  static ModelProto NodelessModel(const std::string& text = R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (float[2] a) => (float[2] c) { c = Identity (a) })ONNX") {
    ModelProto model = ParseText(text);
    model.mutable_graph()->clear_node();
    return model;
  }
  // Appends `output` = `domain`.`op`(`inputs`) to `graph`; returns `output`.
  static std::string AddNode(GraphProto& graph, const std::string& op, const std::vector<std::string>& inputs,
                             const std::string& output, const std::string& domain = "") {
    NodeProto& node = *graph.add_node();
    node.set_op_type(op);
    node.set_domain(domain);
    for (const std::string& input : inputs) node.add_input(input);
    node.add_output(output);
    return output;
  }
  // The model of `text` whose main graph is `calls` nodes local.f in a chain from `a` to
  // `c` (the functions are `text`'s).
  static ModelProto ChainOfCalls(const std::string& text, int calls) {
    ModelProto model = NodelessModel(text);
    std::string previous = "a";
    for (int i = 0; i < calls; ++i)
      previous =
          AddNode(*model.mutable_graph(), "f", {previous}, i + 1 == calls ? "c" : "c" + std::to_string(i), "local");
    return model;
  }
  // Appends a float output `name` of unknown shape to `graph`; returns `name`.
  static std::string AddOutput(GraphProto& graph, const std::string& name) {
    ValueInfoProto& value = *graph.add_output();
    value.set_name(name);
    value.mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
    return name;
  }
  // Appends Einsum "a,b,c,d->" of four vectors to `graph`: the reference kernel loops over
  // every combination of labels (the product of the four lengths). Returns `output`.
  static std::string AddEinsum(GraphProto& graph, const std::vector<std::string>& inputs, const std::string& output) {
    AddNode(graph, "Einsum", inputs, output);
    AttributeProto& equation = *graph.mutable_node()->rbegin()->add_attribute();
    equation.set_name("equation");
    equation.set_type(AttributeProto::STRING);
    equation.set_s("a,b,c,d->");
    return output;
  }
  // `onnxopt memory` on `model` (saved as `file`) succeeds within the bounds and prints
  // `line` (each of `lines`).
  void ExpectMemoryPlan(const std::string& file, const ModelProto& model, const std::string& line) {
    ExpectMemoryPlan(file, model, std::vector<std::string>{line});
  }
  void ExpectMemoryPlan(const std::string& file, const ModelProto& model, const std::vector<std::string>& lines,
                        double max_seconds = kMaxSeconds, long max_peak_rss_kib = kMaxPeakRssKib) {
    const CommandResult memory = Onnxopt({"memory", Save(file, model)}, max_seconds, max_peak_rss_kib);
    EXPECT_EQ(memory.exit_code, 0) << memory.output;
    for (const std::string& line : lines)
      EXPECT_NE(memory.output.find(line), std::string::npos) << line << "\n" << memory.output.substr(0, 2000);
  }
  // Runs onnxopt with `args` and checks the bounds every hostile case must respect.
  CommandResult Onnxopt(std::vector<std::string> args, double max_seconds = kMaxSeconds,
                        long max_peak_rss_kib = kMaxPeakRssKib) {
    args.insert(args.begin(), OnnxoptExe().string());
    CommandResult result = RunCommand(args, kLimits);
    const std::string command = args[1] + " " + args[2];
    EXPECT_NE(result.exit_code, 3) << command << ":\n" << result.output;
    EXPECT_NE(result.exit_code, -1) << command << " was killed (time or memory limit):\n" << result.output;
    EXPECT_LT(result.seconds, max_seconds) << command;
    EXPECT_LT(result.peak_rss_kib, max_peak_rss_kib) << command;
    return result;
  }
  // optimize and info --shapes succeed (the fold is skipped, inference has nothing to
  // allocate); run is refused with exit 2 and `expected` in its message.
  void ExpectHandled(const std::string& model, const std::vector<std::string>& expected) {
    const CommandResult optimized = Onnxopt({"optimize", model, "-o", (dir_ / "out.onnx").string()});
    EXPECT_EQ(optimized.exit_code, 0) << optimized.output;
    const CommandResult shapes = Onnxopt({"info", "--shapes", model});
    EXPECT_EQ(shapes.exit_code, 0) << shapes.output;
    const CommandResult run = Onnxopt({"run", model, "--random-inputs"});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    for (const std::string& text : expected)
      EXPECT_NE(run.output.find(text), std::string::npos) << "expected '" << text << "' in:\n" << run.output;
  }
  // The message of a tensor refused by the default limit.
  static std::vector<std::string> Refused(const std::string& node, const std::string& tensor) {
    return {"node '" + node + "'", "tensor " + tensor + " needs ", "more than the limit on tensor sizes",
            "--max-tensor-bytes"};
  }

  TempDir dir_;
};

TEST_F(ResourceLimitsTest, InitializerDeclaringMoreThanItHolds) {
  ExpectHandled(Model("init.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?] y) { y = Relu (w) })ONNX", {LyingFloats("w")}),
                {"tensor 'w' declares 1073741824 elements of FLOAT (4294967296 bytes) but holds 4 bytes of data"});
}

TEST_F(ResourceLimitsTest, ConstantNodeDeclaringMoreThanItHolds) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?] y) { y = Relu (c) })ONNX");
  NodeProto& constant = *model.mutable_graph()->mutable_node()->Add();
  model.mutable_graph()->mutable_node()->SwapElements(0, 1);
  constant.set_op_type("Constant");
  constant.set_name("c");
  constant.add_output("c");
  AttributeProto& value = *constant.add_attribute();
  value.set_name("value");
  value.set_type(AttributeProto::TENSOR);
  *value.mutable_t() = LyingFloats("c");
  ExpectHandled(Save("constant.onnx", model),
                {"node 'c' (Constant)", "declares 1073741824 elements of FLOAT (4294967296 bytes) but holds 4 bytes"});
}

TEST_F(ResourceLimitsTest, ConstantOfShapeOf2e9) {
  // The issue's case: 8 GB folded and thrown away, 81 s and 7.8 GB of peak memory before.
  const std::string model = Model("cos.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?] y) { y = ConstantOfShape (s) })ONNX", {Int64s("s", {2000000000})});
  const CommandResult optimized = Onnxopt({"optimize", model, "-o", (dir_ / "out.onnx").string()});
  EXPECT_EQ(optimized.exit_code, 0) << optimized.output;
  const CommandResult run = Onnxopt({"run", model, "--max-tensor-bytes", "1G"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("node 'y' (ConstantOfShape): tensor float[2000000000] needs 8000000000 bytes (7.5 GiB), "
                            "more than the limit on tensor sizes of 1073741824 bytes (1.0 GiB)"),
            std::string::npos)
      << run.output;
  ExpectHandled(Model("cos_huge.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?] y) { y = ConstantOfShape (s) })ONNX", {Int64s("s", {kHuge})}),
                Refused("y", "float[1099511627776]"));
}

TEST_F(ResourceLimitsTest, Expand) {
  ExpectHandled(Model("expand.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?] y) <float[1] x = {1}> { y = Expand (x, s) })ONNX", {Int64s("s", {kHuge})}),
                Refused("y", "float[1099511627776]"));
}

TEST_F(ResourceLimitsTest, Tile) {
  ExpectHandled(Model("tile.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?] y) <float[4] x = {1, 2, 3, 4}> { y = Tile (x, r) })ONNX", {Int64s("r", {kHuge})}),
                {"node 'y' (Tile)", "needs 17592186044416 bytes", "more than the limit on tensor sizes"});
}

TEST_F(ResourceLimitsTest, Range) {
  ExpectHandled(Model("range.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?] y) <float start = {0}, float limit = {1e12}, float delta = {1}> {
      y = Range (start, limit, delta)
    })ONNX"),
                Refused("y", "float[999999995904]"));  // 1e12 as a float
}

TEST_F(ResourceLimitsTest, PadWithHugePads) {
  ExpectHandled(Model("pad.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?] y) <float[1] x = {1}> { y = Pad (x, p) })ONNX", {Int64s("p", {0, kHuge})}),
                Refused("y", "float[1099511627777]"));
}

// Pads must be smaller than the kernel (onnxruntime's rule, which the kernel applies): a
// huge kernel with huge pads gives the huge output.
TEST_F(ResourceLimitsTest, AveragePoolWithHugePads) {
  ExpectHandled(Model("pool.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?, ?, ?, ?] y) <float[1, 1, 1, 1] x = {1}> {
      y = AveragePool <kernel_shape = [1048577, 1048577], pads = [1048576, 1048576, 1048576, 1048576]> (x)
    })ONNX"),
                Refused("y", "float[1,1,1048577,1048577]"));
}

TEST_F(ResourceLimitsTest, ResizeWithHugeScales) {
  ExpectHandled(Model("resize.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?, ?, ?, ?] y) <float[1, 1, 2, 2] x = {1, 2, 3, 4}, float[4] scales = {1, 1, 524288, 524288}> {
      y = Resize <mode = "nearest"> (x, , scales)
    })ONNX"),
                Refused("y", "float[1,1,1048576,1048576]"));
}

TEST_F(ResourceLimitsTest, ReshapeToHugeDims) {
  // No element, but kernels loop over the other dims (2^64 rows of nothing): refused like
  // a tensor of that many bytes.
  const std::string empty = Model("reshape_empty.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?, ?, ?] y) <float[0] x = {}> { y = Reshape <allowzero = 1> (x, s) })ONNX",
                                  {Int64s("s", {0, std::int64_t{1} << 62, 4})});
  ExpectHandled(empty, {"node 'y' (Reshape)", "tensor float[0,4611686018427387904,4] holds no element",
                        "multiply to more than 2^64"});
  // Dims whose product overflows: refused.
  ExpectHandled(Model("reshape_overflow.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?, ?, ?] y) <float[4] x = {1, 2, 3, 4}> { y = Reshape (x, s) })ONNX",
                      {Int64s("s", {std::int64_t{1} << 62, 4, 4})}),
                {"node 'y' (Reshape)", "[4611686018427387904,4,4]"});
}

TEST_F(ResourceLimitsTest, TheLimitIsAnOptionOfEveryCommand) {
  const std::string model = Model("small.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?] y) { y = ConstantOfShape (s) })ONNX", {Int64s("s", {1000})});
  EXPECT_EQ(Onnxopt({"run", model, "--max-tensor-bytes=4000"}).exit_code, 0);
  const CommandResult refused = Onnxopt({"run", model, "--max-tensor-bytes", "3999"});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("needs 4000 bytes, more than the limit on tensor sizes of 3999 bytes"),
            std::string::npos)
      << refused.output;
  const CommandResult zero = Onnxopt({"run", model, "--max-tensor-bytes", "0"});
  EXPECT_EQ(zero.exit_code, 1) << zero.output;
  EXPECT_NE(zero.output.find("--max-tensor-bytes must be positive"), std::string::npos) << zero.output;
  const CommandResult help = Onnxopt({"optimize", "--help"});
  EXPECT_NE(help.output.find("--max-tensor-bytes N"), std::string::npos) << help.output;
}

TEST_F(ResourceLimitsTest, RunningOutOfMemorySaysSo) {
  // A limit raised beyond the memory the process may take: the allocation fails. With
  // mimalloc's own operator new the process aborted (SIGABRT, no message, temporary files
  // left); it must say "out of memory" (exit 3) and leave no output.
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator reports a failed allocation itself; the main build runs this";
#else
  const std::string model = Model("big.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[?] y) { y = ConstantOfShape (s) })ONNX", {Int64s("s", {std::int64_t{1} << 31})});
  const CommandResult run = RunCommand({OnnxoptExe().string(), "run", model, "--max-tensor-bytes", "64G",
                                        "--output-dir", (dir_ / "out").string()},
                                       kLimits);
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_NE(run.output.find("onnxopt run: out of memory"), std::string::npos) << run.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out")) << "an output was left";
#endif
}

// Local functions each calling the next one `width` times, `depth` levels.
TEST_F(ResourceLimitsTest, CallChainsFinishQuickly) {
  // 40 levels, width 2 (the issue's case): too deep. 30 levels, width 2: 2^29 leaves,
  // inferred once per signature, refused by the evaluator before running. 8 levels of
  // width 10: 10^7 leaves.
  struct Case {
    int depth, width;
    std::string run_error;
  };
  const std::vector<Case> cases = {
      {40, 2, "node 'y' (F0): calls of local functions nest 40 deep from 'F0', more than the limit of 32"},
      {30, 2, "node 'y' (F0): calling local function 'F0' would run 1610612734 nodes"},
      {8, 10, "node 'y' (F0): calling local function 'F0' would run 21111110 nodes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("depth " + std::to_string(c.depth) + ", width " + std::to_string(c.width));
    const std::string model = Save("chain.onnx", CallChainModel(c.depth, c.width, "", "Relu"));
    const CommandResult shapes = Onnxopt({"info", "--shapes", model});
    EXPECT_EQ(shapes.exit_code, 0) << shapes.output;
    if (c.depth <= 32) {
      EXPECT_NE(shapes.output.find("y  float[2]"), std::string::npos) << shapes.output;
    }
    const CommandResult optimized = Onnxopt({"optimize", model, "-o", (dir_ / "out.onnx").string()});
    EXPECT_EQ(optimized.exit_code, 0) << optimized.output;
    const CommandResult run = Onnxopt({"run", model, "--random-inputs"});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find(c.run_error), std::string::npos) << run.output;
    // The memory plan instantiates calls within limits of its own (16 deep, 4096 calls);
    // a copy of every enclosing instance's type query per instance made it exponential.
    const CommandResult memory = Onnxopt({"memory", model});
    EXPECT_EQ(memory.exit_code, 0) << memory.output;
  }
}

TEST_F(ResourceLimitsTest, ManyCopiesTheMemoryPlanKeeps) {
  // 1 000 Identity nodes from a graph input to a graph output (copies copy elimination
  // keeps) beside a chain of 20 000 nodes: the plan was analysed again for each kept copy
  // (25 s in a release build).
  constexpr int kCopies = 1000;
  constexpr int kChain = 20000;
  ModelProto model = NodelessModel();
  GraphProto& graph = *model.mutable_graph();
  std::string previous = "a";
  for (int i = 0; i < kChain; ++i)
    previous = AddNode(graph, "Neg", {previous}, i + 1 == kChain ? "c" : "c" + std::to_string(i));
  for (int i = 0; i < kCopies; ++i) {
    const std::string index = std::to_string(i);
    *graph.add_input() = graph.input(0);
    graph.mutable_input()->rbegin()->set_name("x" + index);
    *graph.add_output() = graph.output(0);
    graph.mutable_output()->rbegin()->set_name("y" + index);
    AddNode(graph, "Identity", {"x" + index}, "y" + index);
  }
  ExpectMemoryPlan("copies.onnx", model, "copy nodes: 1000 -> 1000 (deleted 0, elided 0, kept 1000)");
}

TEST_F(ResourceLimitsTest, ManyCopiesTheMemoryPlanDeletes) {
  // A chain of 5 000 Neg nodes, each followed by an Identity copy that copy elimination
  // deletes: the plan was analysed again after each deletion (5 000 x 10 000 nodes; as
  // ONNXOPT_INCREMENTAL=0 still does it: 21 s; 0.11 s now).
  constexpr int kCopies = 5000;
  ModelProto model = NodelessModel();
  GraphProto& graph = *model.mutable_graph();
  std::string previous = "a";
  for (int i = 0; i < kCopies; ++i) {
    const std::string index = std::to_string(i);
    previous = AddNode(graph, "Identity", {AddNode(graph, "Neg", {previous}, "n" + index)},
                       i + 1 == kCopies ? "c" : "i" + index);
  }
  ExpectMemoryPlan("copies.onnx", model, "copy nodes: 5000 -> 0 (deleted 5000, elided 0, kept 0)");
}


TEST_F(ResourceLimitsTest, ManyCopiesOfOneValue) {
  // 8 000 Identity copies of one value, each read by a Neg: Rule 3 looked at every sibling
  // for each copy, and each deletion made every other copy pending again (16 000 copies,
  // a 1.3 MB model: 81 s). Each evaluation costs 4 x 8 000 + 12 steps; the work limit,
  // 2^24 + 64 x (24 001 node inputs + 8 000 graph outputs), lets 572 of them run.
  constexpr int kCopies = 8000;
  ModelProto model = NodelessModel();
  GraphProto& graph = *model.mutable_graph();
  graph.clear_output();
  AddNode(graph, "Relu", {"a"}, "r");
  for (int i = 0; i < kCopies; ++i) {
    const std::string index = std::to_string(i);
    AddNode(graph, "Neg", {AddNode(graph, "Identity", {"r"}, "t" + index)}, AddOutput(graph, "y" + index));
  }
  ExpectMemoryPlan("fan.onnx", model,
                   std::vector<std::string>{"copy nodes: 8000 -> 7428 (deleted 572, elided 0, kept 1)",
                    "warning: the work limit (18313280 steps, linear in the graph) ended the pass early"},
                   kMaxSeconds, kAtLimitMaxPeakRssKib);
}

TEST_F(ResourceLimitsTest, ManyCopiesAtTheEndOfALongChainOfViews) {
  // 4 000 Reshapes in a chain, the last one read by 4 000 copies: each copy's trace went
  // back through the whole chain, and the report printed it whole (4 000 x 4 000 names:
  // 10 s and 1.3 GB; 8 000 of each: 75 s and 5.7 GB). Each evaluation now costs what its
  // trace and the 4 000 siblings cost, under the same limit, and a path shows its ends.
  constexpr int kViews = 4000;
  constexpr int kCopies = 4000;
  ModelProto model = NodelessModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] c) <int64[1] shape = {2}> { c = Identity (a) })ONNX");
  GraphProto& graph = *model.mutable_graph();
  graph.clear_output();
  std::string view = AddNode(graph, "Relu", {"a"}, "v");
  for (int i = 0; i < kViews; ++i) view = AddNode(graph, "Reshape", {view, "shape"}, "v" + std::to_string(i));
  for (int i = 0; i < kCopies; ++i) {
    const std::string index = std::to_string(i);
    AddNode(graph, "Neg", {AddNode(graph, "Identity", {view}, "t" + index)}, AddOutput(graph, "y" + index));
  }
  ExpectMemoryPlan("views.onnx", model,
                   std::vector<std::string>{"(3985 more) --> v3992(out:0)", "ended the pass early: the copies not decided are kept"},
                   kMaxSeconds, kAtLimitMaxPeakRssKib);
}

// A model whose local function f copies its input (Identity) before a Relu.
constexpr const char* kCopyingFunction = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
  g (float[2] a) => (float[2] c) { c = local.f (a) }
  <domain: "local", opset_import: ["" : 18]>
  f (p) => (q) { t = Identity (p) q = Relu (t) })ONNX";

TEST_F(ResourceLimitsTest, ManyCallsOfAFunctionHoldingACopy) {
  // 2 000 calls in a chain of a local function whose body copies its input: copy
  // elimination decides each call's copy in that call's instance of the body, and built
  // every instance again after each such deletion (2 000 x 2 000 instances: 39 s with
  // ONNXOPT_INCREMENTAL=0, 0.2 s now).
  ExpectMemoryPlan("calls.onnx", ChainOfCalls(kCopyingFunction, 2000),
                   "copy nodes: 2000 -> 1 (deleted 1999, elided 0, kept 1)");
}

TEST_F(ResourceLimitsTest, MoreCallsThanTheInstanceLimit) {
  // 6 000 calls in a chain of a function whose body copies its input, beyond the 4 096
  // instances an analysis holds; and 3 000 calls of a function whose body copies its input
  // and calls another (two instances a call). At the limit, each deletion inside an
  // instance rebuilt the whole analysis (8 000 calls: 158 s; 3 000 of the second kind:
  // 122 s). The calls past the limit are opaque, their copies not candidates.
  ExpectMemoryPlan("calls.onnx", ChainOfCalls(kCopyingFunction, 6000),
                   "copy nodes: 4096 -> 1 (deleted 4095, elided 0, kept 1)");
  ExpectMemoryPlan("nested_calls.onnx", ChainOfCalls(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
    g (float[2] a) => (float[2] c) { c = local.f (a) }
    <domain: "local", opset_import: ["" : 18, "local" : 1]>
    f (p) => (q) { t = Identity (p) q = local.h (t) }
    <domain: "local", opset_import: ["" : 18]>
    h (p) => (q) { q = Relu (p) })ONNX", 3000),
                   "copy nodes: 2048 -> 1 (deleted 2047, elided 0, kept 1)");
}

TEST_F(ResourceLimitsTest, ManyCopiesReadByCalls) {
  // A chain of 3 000 Identity copies, each read by a call of a local function: an update
  // of the analysis declined readers that are calls, so each deletion rebuilt it (62 s).
  // The calls' instances are built again instead.
  ModelProto model = NodelessModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
    g (float[2] a) => (float[2] c) { c = local.f (a) }
    <domain: "local", opset_import: ["" : 18]>
    f (p) => (q) { q = Relu (p) })ONNX");
  GraphProto& graph = *model.mutable_graph();
  std::string previous = "a";
  for (int i = 0; i < 3000; ++i) {
    const std::string index = std::to_string(i);
    previous = AddNode(graph, "f", {AddNode(graph, "Identity", {previous}, "t" + index)},
                       i + 1 == 3000 ? "c" : "c" + index, "local");
  }
  ExpectMemoryPlan("call_readers.onnx", model, "copy nodes: 3000 -> 1 (deleted 2999, elided 0, kept 1)");
}

TEST_F(ResourceLimitsTest, ManyWritersInPlace) {
  // 8 000 ScatterND writers, each into a buffer of its own (a ConstantOfShape), summed in a
  // chain. The plan looked for the alias edges of each writer's buffer in the whole graph
  // (8 000 x 24 000 nodes: 19 s; 0.5 s now).
  constexpr int kWriters = 8000;
  ModelProto model = NodelessModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] a, int64[1,1] idx, float[1] upd) => (float[4] c) <int64[1] shape = {4}> { c = Identity (a) })ONNX");
  GraphProto& graph = *model.mutable_graph();
  std::string sum = "a";
  for (int i = 0; i < kWriters; ++i) {
    const std::string index = std::to_string(i);
    const std::string buffer = AddNode(graph, "ConstantOfShape", {"shape"}, "z" + index);
    const std::string written = AddNode(graph, "ScatterND", {buffer, "idx", "upd"}, "w" + index);
    sum = AddNode(graph, "Add", {sum, written}, i + 1 == kWriters ? "c" : "s" + index);
  }
  ExpectMemoryPlan("writers.onnx", model, "in-place writers: 8000 of 8000 run in place");
}

TEST_F(ResourceLimitsTest, ManyIdenticalReadersOfOneValue) {
  // 3 000 readers of a graph input computing the same, each a graph output (so that the
  // cleanup's duplicate pass leaves them to SameChildrenFromInputPattern): one pair was
  // merged per iteration, each iteration over the whole graph (4 000 readers: 18 s).
  // Beside them, 3 000 Reshapes of one value to shapes computed as Shape -> Gather ->
  // Unsqueeze -> Concat (folded alike) or given: ShapeBasedSameChildrenPattern matched the
  // whole group from every one of them in every iteration (n^3: 1 000 of them took 45 s).
  // ReshapePattern writes the computed targets as the given one, and the duplicates merge.
  constexpr int kReaders = 3000;
  ModelProto model = NodelessModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] a) => (float[6] c)
      <int64 zero = {0}, int64[1] axes = {0}, int64[1] rest = {-1}, int64[2] static_shape = {2, 3}> {
      c = Identity (a) })ONNX");
  GraphProto& graph = *model.mutable_graph();
  graph.clear_output();
  for (int i = 0; i < kReaders; ++i) {
    const std::string index = std::to_string(i);
    AddNode(graph, "Relu", {"a"}, AddOutput(graph, "r" + index));
    const std::string shape = AddNode(graph, "Shape", {"a"}, "s" + index);
    const std::string first = AddNode(graph, "Gather", {shape, "zero"}, "g" + index);
    const std::string dims = AddNode(graph, "Unsqueeze", {first, "axes"}, "u" + index);
    const std::string target = AddNode(graph, "Concat", {dims, "rest"}, "t" + index);
    AttributeProto& axis = *graph.mutable_node()->rbegin()->add_attribute();
    axis.set_name("axis");
    axis.set_type(AttributeProto::INT);
    axis.set_i(0);
    AddNode(graph, "Reshape", {"a", i % 2 == 0 ? target : "static_shape"}, AddOutput(graph, "y" + index));
  }
  const CommandResult optimized = Onnxopt({"optimize", Save("readers.onnx", model), "-o", (dir_ / "out.onnx").string()});
  ASSERT_EQ(optimized.exit_code, 0) << optimized.output;
  // Each group merges in one rewrite.
  EXPECT_NE(optimized.output.find("Identity: 0 -> 5998"), std::string::npos) << optimized.output;
  EXPECT_NE(optimized.output.find("iterations: 5, rewrites: 1505 (FoldConstants 1, RemoveUnusedNodes 2, "
                                  "RemoveDuplicateInitializers 1, ReshapePattern 1500, "
                                  "SameChildrenFromInputPattern 1)"),
            std::string::npos)
      << optimized.output;
}

TEST_F(ResourceLimitsTest, ReshapesAlternatingWithElementWiseNodes) {
  // Reshape, Relu, Reshape, Neg... 3 000 times: SwapUnaryPattern moved every Reshape below
  // its reader at once, each meeting the next reader, so that the chain rotated one node
  // per iteration (1 000 pairs: 44 s, half a million swaps).
  constexpr int kPairs = 3000;
  ModelProto model = NodelessModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] a) => (float[3,2] c) <int64[1] flat = {6}, int64[2] tall = {3, 2}> { c = Identity (a) })ONNX");
  GraphProto& graph = *model.mutable_graph();
  std::string previous = "a";
  for (int i = 0; i < kPairs; ++i) {
    const std::string index = std::to_string(i);
    const std::string reshaped = AddNode(graph, "Reshape", {previous, i % 2 == 0 ? "flat" : "tall"}, "r" + index);
    previous = AddNode(graph, i % 2 == 0 ? "Relu" : "Neg", {reshaped}, i + 1 == kPairs ? "c" : "e" + index);
  }
  const CommandResult optimized = Onnxopt({"optimize", Save("reshapes.onnx", model), "-o", (dir_ / "out.onnx").string()});
  ASSERT_EQ(optimized.exit_code, 0) << optimized.output;
  EXPECT_NE(optimized.output.find("Reshape: 3000 -> 1"), std::string::npos) << optimized.output;
}

TEST_F(ResourceLimitsTest, ManyGathersAndSlicesOfOneValue) {
  // 8 000 Gathers of the rows of one tensor, and 8 000 Slices of one row each of another:
  // GathersSplitPattern and SlicesSplitPattern looked at every reader of the data from each
  // reader (10 000 Gathers: 33 s; 0.15 s now).
  constexpr int kReaders = 8000;
  ModelProto model = NodelessModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8000,4] a, float[8000,4] b) => (float[4] c) <int64[1] axis = {0}> { c = Identity (a) })ONNX");
  GraphProto& graph = *model.mutable_graph();
  graph.clear_output();
  auto add_int64 = [&](const std::string& name, std::int64_t value, bool vector) {
    TensorProto& tensor = *graph.add_initializer();
    tensor.set_name(name);
    tensor.set_data_type(TensorProto::INT64);
    if (vector) tensor.add_dims(1);
    tensor.add_int64_data(value);
    return name;
  };
  for (int i = 0; i < kReaders; ++i) {
    const std::string index = std::to_string(i);
    AddNode(graph, "Gather", {"a", add_int64("i" + index, i, false)}, AddOutput(graph, "g" + index));
    AddNode(graph, "Slice", {"b", add_int64("s" + index, i, true), add_int64("e" + index, i + 1, true), "axis"},
            AddOutput(graph, "s_out" + index));
  }
  // 0.4 s without sanitizers.
  const CommandResult optimized =
      Onnxopt({"optimize", Save("readers.onnx", model), "-o", (dir_ / "out.onnx").string()});
  ASSERT_EQ(optimized.exit_code, 0) << optimized.output;
  EXPECT_NE(optimized.output.find("GathersSplitPattern 1"), std::string::npos) << optimized.output;
  EXPECT_NE(optimized.output.find("SlicesSplitPattern 1"), std::string::npos) << optimized.output;
}

TEST_F(ResourceLimitsTest, ManyLargeConstantRecipes) {
  // 4 000 ConstantOfShape nodes of 1 MiB each (not folded: they would grow the model), each
  // added to the input in a chain: a 330 KB model. IdentityPattern asks whether each is
  // zeros, and every value computed for a pattern is kept: 13.5 s and 4.2 GB. The duplicate
  // pass compared the 4 000 pairwise (their values sit in float_data, which the hash left
  // out): 8 000 of them took 6.4 s more. Now the computed values hold 256 MiB at most.
  constexpr int kRecipes = 4000;
  ModelProto model = NodelessModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[262144] a) => (float[262144] c) <int64[1] shape = {262144}> { c = Identity (a) })ONNX");
  GraphProto& graph = *model.mutable_graph();
  std::string sum = "a";
  for (int i = 0; i < kRecipes; ++i) {
    const std::string index = std::to_string(i);
    const std::string recipe = AddNode(graph, "ConstantOfShape", {"shape"}, "k" + index);
    AttributeProto& value = *graph.mutable_node()->rbegin()->add_attribute();
    value.set_name("value");
    value.set_type(AttributeProto::TENSOR);
    value.mutable_t()->set_data_type(TensorProto::FLOAT);
    value.mutable_t()->add_dims(1);
    value.mutable_t()->add_float_data(static_cast<float>(i));
    sum = AddNode(graph, "Add", {sum, recipe}, i + 1 == kRecipes ? "c" : "s" + index);
  }
  // Without sanitizers 0.2 s and 300 MB (the 256 MiB of computed values).
  const CommandResult optimized = Onnxopt({"optimize", Save("recipes.onnx", model), "-o", (dir_ / "out.onnx").string()},
                                          kMaxSeconds, kAtLimitMaxPeakRssKib);
  ASSERT_EQ(optimized.exit_code, 0) << optimized.output;
  // Matching walks from the last node: the allowance is spent on the last 256 recipes, and
  // the first one's zeros (x + 0, which IdentityPattern removes when it sees them) are
  // never computed. Nothing changes.
  EXPECT_NE(optimized.output.find("nodes: 8000 -> 8000"), std::string::npos) << optimized.output.substr(0, 2000);
}

TEST_F(ResourceLimitsTest, ManyExpensiveConstantNodes) {
  // 256 constant Einsums of 2^22 label combinations (4 inputs: 2^24 multiply-adds) in a
  // 10 KB model, 8 of them in the branches of an If: folding them all took 20 s, and a
  // model twice as large twice as long. Folding shares one budget among every graph of
  // the optimization: with 2^24 steps, four of them fold, wherever they are.
  constexpr int kMain = 248, kPerBranch = 4;
  ModelProto model = NodelessModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool c) => (float y) { y = Identity (c) })ONNX");
  GraphProto& graph = *model.mutable_graph();
  graph.clear_output();
  for (const auto& [name, count] : {std::pair{"x", 256}, {"y", 256}, {"z", 64}})
    *graph.add_initializer() = Floats(name, count, 0.5f);
  int scales = 0;
  auto einsum = [&](GraphProto& where, const std::string& output) {
    // A scale of its own per node, so that no two compute the same.
    const std::string scale = "s" + std::to_string(scales++);
    *graph.add_initializer() = Floats(scale, 1, static_cast<float>(scales));
    return AddEinsum(where, {"x", "y", "z", scale}, output);
  };
  for (int i = 0; i < kMain; ++i) AddOutput(graph, einsum(graph, "e" + std::to_string(i)));
  NodeProto& branches = *graph.add_node();
  branches.set_op_type("If");
  branches.add_input("c");
  branches.add_output(AddOutput(graph, "chosen"));
  for (const std::string attribute : {"then_branch", "else_branch"}) {
    AttributeProto& branch = *branches.add_attribute();
    branch.set_name(attribute);
    branch.set_type(AttributeProto::GRAPH);
    GraphProto& body = *branch.mutable_g();
    body.set_name(attribute);
    std::vector<std::string> terms;
    for (int i = 0; i < kPerBranch; ++i) terms.push_back(einsum(body, attribute + std::to_string(i)));
    AddOutput(body, AddNode(body, "Sum", terms, attribute + "_sum"));
  }
  const std::string path = Save("einsums.onnx", model);
  const CommandResult optimized =
      Onnxopt({"optimize", path, "-o", (dir_ / "out.onnx").string(), "--fold-work-limit", "16M", "-v"});
  ASSERT_EQ(optimized.exit_code, 0) << optimized.output;
  EXPECT_NE(optimized.output.find("the kernel needs 4194304 steps, more than the 0 left of constant folding's "
                                  "work budget of 16777216"),
            std::string::npos)
      << optimized.output.substr(0, 3000);
  int einsums = 0;
  const std::function<void(const GraphProto&)> count = [&](const GraphProto& where) {
    for (const NodeProto& node : where.node()) {
      einsums += node.op_type() == "Einsum" ? 1 : 0;
      for (const AttributeProto& attribute : node.attribute())
        if (attribute.has_g()) count(attribute.g());
    }
  };
  count(core::ir::LoadModel((dir_ / "out.onnx").string()).graph());
  EXPECT_EQ(einsums, kMain + 2 * kPerBranch - 4);
}

TEST_F(ResourceLimitsTest, ConstantNodeBeyondTheDefaultWorkBudget) {
  // One Einsum of 2^32 label combinations (about 20 s) from 12 KB of vectors: above the
  // default budget (2^28 steps), left as it is without running.
  ModelProto model = NodelessModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float y) <float[1] s = {2}> { y = Identity (s) })ONNX");
  GraphProto& graph = *model.mutable_graph();
  graph.clear_node();
  for (const auto& [name, count] : {std::pair{"x", 2048}, {"z", 1024}})
    *graph.add_initializer() = Floats(name, count, 1);
  AddEinsum(graph, {"x", "x", "z", "s"}, "y");
  const CommandResult optimized =
      Onnxopt({"optimize", Save("einsum.onnx", model), "-o", (dir_ / "out.onnx").string(), "-v"});
  ASSERT_EQ(optimized.exit_code, 0) << optimized.output;
  EXPECT_NE(optimized.output.find("y (Einsum): the kernel needs 4294967296 steps, more than the 268435456 left"),
            std::string::npos)
      << optimized.output;
}

TEST_F(ResourceLimitsTest, HighRankThroughManyNodes) {
  // An input of rank 8 000 (all dims 1) through 8 000 element-wise nodes, 200 KB: shape
  // inference kept 6.4 * 10^7 dims (1.1 GB, 1.5 s). Ranks above 64 are kept unknown.
  constexpr int kRank = 8000, kNodes = 8000;
  ModelProto model = NodelessModel();
  GraphProto& graph = *model.mutable_graph();
  graph.clear_output();
  onnx::TensorShapeProto& shape = *graph.mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape.clear_dim();
  for (int i = 0; i < kRank; ++i) shape.add_dim()->set_dim_value(1);
  std::string previous = "a";
  for (int i = 0; i < kNodes; ++i)
    previous = AddNode(graph, i % 2 == 0 ? "Relu" : "Neg", {previous}, "v" + std::to_string(i));
  AddOutput(graph, previous);
  const std::string path = Save("rank.onnx", model);
  const CommandResult optimized = Onnxopt({"optimize", path, "-o", (dir_ / "out.onnx").string()});
  EXPECT_EQ(optimized.exit_code, 0) << optimized.output;
  const CommandResult shapes = Onnxopt({"info", "--shapes", path});
  EXPECT_EQ(shapes.exit_code, 0);
  EXPECT_NE(shapes.output.find("a shape of 8000 dims, more than the 64 inference keeps"), std::string::npos)
      << shapes.output.substr(0, 2000);
}

TEST_F(ResourceLimitsTest, ManyNestedGraphsOnOneLevel) {
  // 3 000 If nodes reading one condition, 6 000 two-node branches. Each nested builder
  // copied the set of every name of the main graph (1.2 GB, 2.8 s), and folding each
  // branch indexed the main graph again. `onnxopt replay` of the records checked the whole
  // model after the batch of each branch (17 s).
  constexpr int kIfs = 3000;
  ModelProto model = NodelessModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool c, float[4] x) => (float[4] y) { y = Identity (x) })ONNX");
  GraphProto& graph = *model.mutable_graph();
  auto branch = [](const std::string& name, const std::string& op, const std::string& source,
                   const std::string& result) {
    GraphProto body;
    body.set_name(name);
    AddNode(body, "Identity", {AddNode(body, op, {source}, result + "_t")}, result);
    ValueInfoProto& output = *body.add_output();
    output.set_name(result);
    output.mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
    output.mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
    return body;
  };
  std::string previous = "x";
  for (int i = 0; i < kIfs; ++i) {
    const std::string index = std::to_string(i);
    NodeProto& node = *graph.add_node();
    node.set_op_type("If");
    node.add_input("c");
    node.add_output(i + 1 == kIfs ? "y" : "y" + index);
    for (const auto& [attribute, op, prefix] : {std::tuple{"then_branch", "Relu", "r"}, {"else_branch", "Neg", "n"}}) {
      AttributeProto& branch_attribute = *node.add_attribute();
      branch_attribute.set_name(attribute);
      branch_attribute.set_type(AttributeProto::GRAPH);
      *branch_attribute.mutable_g() = branch(attribute + index, op, previous, prefix + index);
    }
    previous = node.output(0);
  }
  // With --record, describing the removed nodes replays the batches, each in its branch:
  // finding the branch listed every nested graph of the main graph per batch.
  // 0.3 s and 45 MB without sanitizers; the sanitizer build (Debug, AddressSanitizer's
  // redzones and quarantine) takes 8 s and 720 MB.
#if defined(__SANITIZE_ADDRESS__)
  constexpr long kMaxPeak = 1536 * 1024;
#else
  constexpr long kMaxPeak = kMaxPeakRssKib;
#endif
  const CommandResult optimized = Onnxopt({"optimize", Save("ifs.onnx", model), "-o", (dir_ / "out.onnx").string(),
                                           "--record", (dir_ / "out.rewrites").string()},
                                          kMaxSeconds, kMaxPeak);
  ASSERT_EQ(optimized.exit_code, 0) << optimized.output;
  const ModelProto result = core::ir::LoadModel((dir_ / "out.onnx").string());
  int ifs = 0;
  for (const NodeProto& node : result.graph().node()) ifs += node.op_type() == "If" ? 1 : 0;
  EXPECT_EQ(ifs, kIfs);
  // The branches lost their Identity nodes.
  EXPECT_EQ(result.graph().node(0).attribute(0).g().node_size(), 1);

  const CommandResult replayed = Onnxopt({"replay", (dir_ / "ifs.onnx").string(), (dir_ / "out.rewrites").string(),
                                          "-o", (dir_ / "replayed.onnx").string()},
                                         kMaxSeconds, kMaxPeak);
  ASSERT_EQ(replayed.exit_code, 0) << replayed.output;
  EXPECT_EQ(ReadFile(dir_ / "replayed.onnx"), ReadFile(dir_ / "out.onnx"));
}

}  // namespace
}  // namespace onnxopt::testing
