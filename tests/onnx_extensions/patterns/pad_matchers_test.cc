// The Pad queries shared by PadConvPattern (canonicalization) and PadPoolPattern (fusion).

#include "onnx_extensions/patterns/pad_matchers.h"

#include <gtest/gtest.h>

#include <cmath>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "tests/onnx_extensions/patterns/graph_fixture.h"

namespace onnxopt::onnx_patterns::padding {
namespace {


using onnxopt::onnx_patterns::testing::GraphFixture;

constexpr std::string_view kGraph = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[N,3,8,8] X, int64[4] dynamic) => (float[N,3,9,11] A)
    <int64[4] pads = {0, 1, 1, 2}, int64[2] axes = {-2, -1}, int64[2] twice = {3, -1},
     int64[8] channel = {0, 1, 0, 0, 0, 0, 0, 0}, float zero = {0.0}, float[2] two = {0.0, 0.0},
     int64[8] crop = {0, 0, 0, 0, 0, 0, 1, -1}> {
    low = Log(zero)
    A = Pad(X, pads, low, axes)
    B = Pad(X, pads, , twice)
    C = Pad(X, channel)
    D = Pad(X, dynamic)
    E = Pad<mode="edge">(X, pads, , axes)
    F = Pad(X, crop, two)
  })ONNX";

TEST(PadMatchers, ScattersThePadsOfNegativeAxesWithTheRank) {
  GraphFixture fixture(kGraph);
  std::string_view why;
  const std::optional<SpatialConstantPad> pad = MatchSpatialConstantPad(fixture.graph, fixture.Node("A"), &why);
  ASSERT_TRUE(pad) << why;
  EXPECT_EQ(pad->full, (Pads{0, 0, 0, 1, 0, 0, 1, 2}));
  EXPECT_TRUE(std::isinf(pad->value) && pad->value < 0);
}

TEST(PadMatchers, GivesTheReasonOfEachRejection) {
  GraphFixture fixture(kGraph);
  auto reason = [&](std::string_view output) {
    std::string_view why;
    EXPECT_FALSE(MatchSpatialConstantPad(fixture.graph, fixture.Node(output), &why)) << output;
    return std::string(why);
  };
  EXPECT_EQ(reason("B"), "the axes are not distinct valid axes");  // 3 and -1 are one axis of a rank-4 tensor
  EXPECT_EQ(reason("C"), "the Pad pads the batch or channel dimension");
  EXPECT_EQ(reason("D"), "the pads are not constant");
  EXPECT_EQ(reason("E"), "the Pad mode is not constant");
  EXPECT_EQ(reason("F"), "the padding value is not a constant scalar");
}

TEST(PadMatchers, RejectsCroppingPads) {
  GraphFixture fixture(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X) => (float[N,3,8,8] Y) <int64[8] crop = {0, 0, 0, 1, 0, 0, 0, -1}> {
      Y = Pad(X, crop)
    })ONNX");
  std::string_view why;
  EXPECT_FALSE(MatchSpatialConstantPad(fixture.graph, fixture.Node("Y"), &why));
  EXPECT_EQ(why, "a spatial pad is negative");
}

TEST(PadMatchers, MergesIntoThePadsAttribute) {
  const Pads full = {0, 0, 1, 2, 0, 0, 3, 4};
  NodeProto pool;
  pool.set_op_type("MaxPool");
  EXPECT_EQ(WhyPadsAttributeUnfit(pool, full), std::nullopt);
  EXPECT_EQ(MergedPads(pool, full), (Pads{1, 2, 3, 4}));
  core::builder::AddIntsAttribute(pool, "pads", {1, 1, 0, 1});
  EXPECT_EQ(WhyPadsAttributeUnfit(pool, full), std::nullopt);
  EXPECT_EQ(MergedPads(pool, full), (Pads{2, 3, 3, 5}));
  NodeProto short_pads;
  core::builder::AddIntsAttribute(short_pads, "pads", {1, 1});
  EXPECT_EQ(WhyPadsAttributeUnfit(short_pads, full),
            std::optional<std::string_view>("the pads attribute does not have two values per spatial dimension"));
  // A Pad of INT64_MAX on top of a Conv's pad of 1 (a mutated test graph): the sum wrapped
  // to a negative pad and the builder refused the new Conv, an internal error.
  const Pads huge = {0, 0, 2, INT64_MAX, 0, 0, 1, 1};
  EXPECT_EQ(WhyPadsAttributeUnfit(pool, huge), std::optional<std::string_view>("the pads added up are beyond int64"));
  EXPECT_THROW(MergedPads(pool, huge), BuilderError);
}

}  // namespace
}  // namespace onnxopt::onnx_patterns::padding
