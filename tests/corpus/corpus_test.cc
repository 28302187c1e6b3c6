// Every model of the shared corpus (real exported graphs, see ../shared/corpus/README.md)
// goes through the library unchanged: load -> GraphBuilder -> model -> save -> load gives
// the same deterministic bytes; after the cleanup passes the model is still well formed
// and survives a save/reload.
//
// One test instance per model file, so a failure names the model.

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "onnx_core/passes/cleanup.h"
#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/ir/graph_check.h"
#include "onnx_core/ir/model_io.h"
#include "tests/support/test_support.h"

namespace onnxopt {
namespace {

namespace fs = std::filesystem;
using core::builder::GraphBuilder;
using core::builder::RunCleanupPasses;
using testing::CorpusDir;
using testing::CorpusModels;
using testing::TempDir;

std::vector<std::string> CorpusFileNames() {
  std::vector<std::string> names;
  for (const fs::path& path : CorpusModels()) names.push_back(path.filename().string());
  return names;
}

// gtest parameter names allow [A-Za-z0-9_] only.
std::string ParamName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

std::size_t CountNodes(const GraphProto& graph) {
  std::size_t count = 0;
  for (const NodeProto& node : graph.node()) {
    ++count;
    for (const AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) count += CountNodes(attr.g());
      for (const GraphProto& g : attr.graphs()) count += CountNodes(g);
    }
  }
  return count;
}

class CorpusModelTest : public ::testing::TestWithParam<std::string> {
 protected:
  fs::path ModelPath() const { return CorpusDir() / GetParam(); }
};

TEST(CorpusTest, CorpusIsPresent) {
  // The corpus README lists 10 models; fewer means the shared folder is incomplete and
  // the parameterized tests below would silently shrink.
  EXPECT_GE(CorpusModels().size(), 10u) << "corpus folder: " << CorpusDir();
}

TEST_P(CorpusModelTest, BuilderRoundTripIsByteIdentical) {
  const fs::path path = ModelPath();
  ModelProto original = core::ir::LoadModel(path);
  const std::string expected = core::ir::SerializeDeterministic(original);

  GraphBuilder builder(std::move(original));
  // ToModel is a copy that must already be identical.
  EXPECT_EQ(core::ir::SerializeDeterministic(builder.ToModel()), expected) << path;
  ModelProto taken = std::move(builder).TakeModel();
  ASSERT_EQ(core::ir::SerializeDeterministic(taken), expected) << path;

  TempDir dir;
  const fs::path saved = dir / GetParam();
  core::ir::SaveModel(taken, saved);
  // SaveModel takes the model by reference and must leave it unchanged.
  EXPECT_EQ(core::ir::SerializeDeterministic(taken), expected) << path;
  ModelProto reloaded = core::ir::LoadModel(saved);
  EXPECT_EQ(core::ir::SerializeDeterministic(reloaded), expected) << path;
}

TEST_P(CorpusModelTest, RoundTripThroughExternalDataIsByteIdentical) {
  // Same round trip, with every initializer of 1 KiB or more in an external data file:
  // the reloaded model (data read back into raw_data) equals the original.
  const fs::path path = ModelPath();
  ModelProto original = core::ir::LoadModel(path);
  const std::string expected = core::ir::SerializeDeterministic(original);
  TempDir dir;
  const fs::path saved = dir / GetParam();
  core::ir::SaveOptions options;
  options.external_data_threshold = 1024;
  core::ir::SaveModel(original, saved, options);
  EXPECT_EQ(core::ir::SerializeDeterministic(original), expected) << path;
  ModelProto reloaded = core::ir::LoadModel(saved);
  EXPECT_EQ(core::ir::SerializeDeterministic(reloaded), expected) << path;
}

TEST_P(CorpusModelTest, CleanupKeepsTheModelValidAndSavable) {
  const fs::path path = ModelPath();
  ModelProto original = core::ir::LoadModel(path);
  const std::size_t nodes_before = CountNodes(original.graph());
  const int outputs_before = original.graph().output_size();
  const int inputs_before = original.graph().input_size();

  GraphBuilder builder(std::move(original));
  std::vector<core::builder::CleanupResult> results = RunCleanupPasses(builder);
  ModelProto cleaned = std::move(builder).TakeModel();

  EXPECT_NO_THROW(core::ir::CheckModel(cleaned)) << path;
  // Cleanup never changes the interface and never adds nodes.
  EXPECT_EQ(cleaned.graph().output_size(), outputs_before) << path;
  EXPECT_EQ(cleaned.graph().input_size(), inputs_before) << path;
  const std::size_t nodes_after = CountNodes(cleaned.graph());
  EXPECT_LE(nodes_after, nodes_before) << path;
  std::size_t reported_removed = 0;
  for (const auto& result : results) reported_removed += result.removed_nodes;
  EXPECT_EQ(nodes_before - nodes_after, reported_removed) << path << ": the passes report what they removed";
  std::cout << "[ corpus   ] " << GetParam() << ": " << nodes_before << " -> " << nodes_after << " nodes\n";

  TempDir dir;
  const fs::path saved = dir / GetParam();
  core::ir::SaveModel(cleaned, saved);
  ModelProto reloaded = core::ir::LoadModel(saved);
  EXPECT_EQ(core::ir::SerializeDeterministic(reloaded), core::ir::SerializeDeterministic(cleaned)) << path;

  // A second round of cleanup finds nothing left to do.
  GraphBuilder again(std::move(reloaded));
  for (const auto& result : RunCleanupPasses(again))
    EXPECT_FALSE(result.Changed()) << path << ": second cleanup still changes: " << result.ToString();
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusModelTest, ::testing::ValuesIn(CorpusFileNames()), ParamName);

}  // namespace
}  // namespace onnxopt
