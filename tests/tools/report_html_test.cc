// The page of `onnxopt optimize --report-html`: the writer on hand-made reports and records
// (escaping of hostile names, the numbers, the links between batches, what the limits cut,
// nothing fetched from the network), and the option end to end.

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/pattern.h"
#include "onnx_core/optimizer/report_html.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

namespace fs = std::filesystem;
using core::builder::LocalRewriting;
using core::builder::NamedOperation;
using core::builder::NodeSignature;
using core::builder::OptimizationReport;

constexpr const char* kScriptName = "<script>alert(1)</script>";
constexpr const char* kImageName = "fused<img src=x onerror=alert(2)>";

std::size_t Count(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
  return count;
}

// The <li> element with this id, whole.
std::string Item(const std::string& page, const std::string& id) {
  const std::size_t begin = page.find("<li id=\"" + id + "\"");
  if (begin == std::string::npos) return "";
  return page.substr(begin, page.find("</li>", begin) + 5 - begin);
}

NodeProto Node(const std::string& name, const std::string& op, const std::string& output) {
  NodeProto node;
  node.set_name(name);
  node.set_op_type(op);
  node.add_output(output);
  return node;
}

LocalRewriting Record(const std::string& pattern, std::size_t iteration, std::vector<std::size_t> removed,
                      std::vector<NodeSignature> signatures, std::vector<NodeProto> added) {
  LocalRewriting record;
  record.pattern = std::make_shared<NamedOperation>(pattern);
  record.iteration = iteration;
  record.matched_nodes = std::move(removed);
  record.matched_node_signatures = std::move(signatures);
  for (std::size_t i = 0; i < added.size(); ++i) {
    *record.added_nodes.Add() = added[i];
    record.added_nodes_positions.push_back(i);
  }
  return record;
}

// The original graph: Cast `a` named kScriptName, Relu `b` and Add `y`. Batch 1 replaces
// the Cast by a Relu named kImageName, which batch 2 replaces by an Identity.
class ReportHtmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    input_.model = "models/m&m's.onnx";
    input_.patterns = "default,-A";
    input_.before.ops.ops = {{"Cast", 1}, {"Relu", 1}, {"Add", 1}};
    input_.before.ops.nodes = 3;
    input_.before.initializers = {4, 4096, 0, {}};
    input_.after.ops.ops = {{"Identity", 1}, {"Relu", 1}};
    input_.after.ops.nodes = 2;
    input_.after.initializers = {1, 1000, 24, {}};
    input_.original_names = {{{{}, "a"}, kScriptName}, {{{}, "b"}, "x&y\"'"}, {{{}, "y"}, "keep"}};
    report_.iterations = 2;
    report_.nodes_before = 3;
    report_.nodes_after = 2;
    report_.matching_time_ns = 1'500'000;
    report_.rewriting_time_ns = 500'000;
    core::builder::PatternStats& evil = report_.Pattern("Evil<b>Pattern</b>", 0);
    evil.match_calls = 7;
    evil.matched = 1;
    evil.applied = 1;
    report_.Pattern("IdlePattern", 1);
    report_.AddNoMatch("Evil<b>Pattern</b>", "evil.cc", 12, "input is <not> \"constant\" & more");
    report_.AddNoMatch("Evil<b>Pattern</b>", "evil.cc", 12, "input is <not> \"constant\" & more");
    report_.SortNoMatches();
    report_.AddNotFolded({"big (ConstantOfShape): output of 9 MiB > limit <1 MiB>"});
    report_.AddRefused("Evil<b>Pattern</b>: Relu (output 'a'): Relu-14 has 1 inputs; found <2>");
    rewrites_.push_back(Record("Evil<b>Pattern</b>", 1, {0}, {{"Cast", "", {"a"}}}, {Node(kImageName, "Relu", "a")}));
    rewrites_.push_back(Record("SecondPattern", 2, {0}, {{"Relu", "", {"a"}}}, {Node("final", "Identity", "a")}));
    input_.report = &report_;
    input_.rewrites = &rewrites_;
  }

  core::builder::HtmlReportInput input_;
  OptimizationReport report_;
  std::vector<LocalRewriting> rewrites_;
};

TEST(EscapeHtmlTest, EscapesMarkupAndShowsControlBytes) {
  EXPECT_EQ(core::builder::EscapeHtml("<a href='x'>&\"y\""), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;y&quot;");
  EXPECT_EQ(core::builder::EscapeHtml(std::string("a\nb\0c\x7f", 6)), "a\\x0ab\\x00c\\x7f");
  EXPECT_EQ(core::builder::EscapeHtml("caf\xc3\xa9"), "caf\xc3\xa9");
}

TEST_F(ReportHtmlTest, HostileNamesAreEscapedEverywhere) {
  const std::string page = core::builder::RenderReportHtml(input_);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>Pattern"), std::string::npos);
  EXPECT_EQ(page.find("<not>"), std::string::npos);
  EXPECT_EQ(page.find("m&m's"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("fused&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_NE(page.find("Evil&lt;b&gt;Pattern&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(page.find("input is &lt;not&gt; &quot;constant&quot; &amp; more"), std::string::npos);
  EXPECT_NE(page.find("models/m&amp;m&#39;s.onnx"), std::string::npos);
  EXPECT_NE(page.find("limit &lt;1 MiB&gt;"), std::string::npos);
  EXPECT_NE(page.find("Relu-14 has 1 inputs; found &lt;2&gt;"), std::string::npos);
  // Our inline script is the page's only one.
  EXPECT_EQ(Count(page, "<script"), 1u);
  EXPECT_EQ(Count(page, "</script>"), 1u);
}

TEST_F(ReportHtmlTest, NothingComesFromTheNetwork) {
  const std::string page = core::builder::RenderReportHtml(input_);
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>\n"));
  for (const char* reference : {"http://", "https://", "<script src", "<link", "@import", "url(", "<img", "<iframe"})
    EXPECT_EQ(page.find(reference), std::string::npos) << reference;
}

TEST_F(ReportHtmlTest, ShowsTheNumbers) {
  const std::string page = core::builder::RenderReportHtml(input_);
  EXPECT_NE(page.find("<span id=\"nodes-before\">3</span> \u2192 <span id=\"nodes-after\">2</span>"),
            std::string::npos);
  EXPECT_NE(page.find("<span id=\"initializers-before\">4</span> \u2192 <span id=\"initializers-after\">1</span>"),
            std::string::npos);
  EXPECT_NE(page.find("id=\"initializer-bytes-before\" data-bytes=\"4096\" title=\"4096 bytes\">4.0 KiB</span>"),
            std::string::npos);
  EXPECT_NE(page.find("id=\"initializer-bytes-after\" data-bytes=\"1024\""), std::string::npos);
  EXPECT_NE(page.find("-1 (-33.3%)"), std::string::npos);  // nodes
  EXPECT_NE(page.find("<div class=\"value\" id=\"rewrites\">2</div><div class=\"delta muted\">in 2 batches, 2 rounds"),
            std::string::npos);
  EXPECT_NE(page.find("<div class=\"value\" id=\"total-time\">2.0 ms</div>"), std::string::npos);
  EXPECT_NE(page.find("<td>matching</td><td class=\"num\">1.5 ms</td><td class=\"num\">75.0%</td>"), std::string::npos);
  // Operators, largest change first: Cast 1 -> 0 and Identity 0 -> 1 before the unchanged Relu.
  EXPECT_NE(page.find("<td class=\"name\">Cast</td><td class=\"num\">1</td><td class=\"num\">0</td>"
                      "<td class=\"num\">-1 (-100.0%)</td>"),
            std::string::npos);
  EXPECT_LT(page.find("<td class=\"name\">Identity</td>"), page.find("<td class=\"name\">Relu</td>"));
  // The pattern table: candidates 7, matched 1, applied 1, rejections 2.
  EXPECT_NE(page.find("Evil&lt;b&gt;Pattern&lt;/b&gt;</td><td class=\"num\">0</td><td class=\"num\">7</td>"
                      "<td class=\"num\">1</td><td class=\"num\">1</td><td class=\"num\">2</td>"),
            std::string::npos);
  EXPECT_NE(page.find("1 selected patterns never saw a candidate: IdlePattern."), std::string::npos);
  EXPECT_NE(page.find("<code>evil.cc:12</code></td><td class=\"num\">2</td>"), std::string::npos);
  EXPECT_NE(page.find("<svg class=\"chart\""), std::string::npos);
  EXPECT_NE(page.find("<section id=\"refused\"><h2>Rewrites refused</h2>"), std::string::npos);
  EXPECT_NE(page.find("<li class=\"name\">Evil&lt;b&gt;Pattern&lt;/b&gt;: Relu (output &#39;a&#39;)"),
            std::string::npos);
  EXPECT_EQ(page.find("id=\"batches-cut\""), std::string::npos) << "nothing is cut";
}

TEST_F(ReportHtmlTest, LinksANodeFromTheBatchAddingItToTheBatchRemovingItAndBack) {
  const std::string page = core::builder::RenderReportHtml(input_);
  const std::string added = Item(page, "b1a0");
  const std::string removed = Item(page, "b2r0");
  EXPECT_NE(added.find("fused&lt;img"), std::string::npos) << added;
  EXPECT_NE(added.find("<a href=\"#b2r0\">removed by #2</a>"), std::string::npos) << added;
  EXPECT_NE(removed.find("fused&lt;img"), std::string::npos) << removed;
  EXPECT_NE(removed.find("<a href=\"#b1a0\">added by #1</a>"), std::string::npos) << removed;
  // The original Cast is named from the model, the Identity stays in the optimized model.
  const std::string original = Item(page, "b1r0");
  EXPECT_NE(original.find("&lt;script&gt;alert(1)&lt;/script&gt;</span> <span class=\"op\">Cast</span>"),
            std::string::npos) << original;
  EXPECT_EQ(original.find("<a "), std::string::npos) << original;
  EXPECT_NE(Item(page, "b2a0").find("final</span> <span class=\"op\">Identity</span>"), std::string::npos);
  EXPECT_NE(Item(page, "b2a0").find("(kept)"), std::string::npos);
  EXPECT_NE(page.find("<details class=\"batch\" id=\"b2\" open><summary><b>#2</b> \u00b7 step 2 \u00b7 main graph "
                      "\u00b7 SecondPattern \u00b7 \u22121 +1 nodes</summary>"),
            std::string::npos);
}

TEST_F(ReportHtmlTest, SaysWhatTheLimitsLeaveOut) {
  core::builder::HtmlReportLimits limits;
  limits.batches = 1;
  const std::string page = core::builder::RenderReportHtml(input_, limits);
  EXPECT_NE(page.find("Batches 1\u20131 of 2 are listed; the other 1 are left out"), std::string::npos);
  EXPECT_EQ(page.find("id=\"b2\""), std::string::npos);
  EXPECT_EQ(page.find("href=\"#b2"), std::string::npos);
  EXPECT_NE(Item(page, "b1a0").find("(removed by batch #2, not listed)"), std::string::npos) << Item(page, "b1a0");
}

TEST_F(ReportHtmlTest, CutsLongListsAndLinksToTheBatchWhenTheNodeIsNotListed) {
  // Batch 1 also adds four more nodes; batch 2 removes the fifth, which batch 1 does not list.
  for (const char* output : {"c", "d", "e", "f"}) {
    *rewrites_[0].added_nodes.Add() = Node(std::string("n_") + output, "Neg", output);
    rewrites_[0].added_nodes_positions.push_back(rewrites_[0].added_nodes_positions.size());
  }
  rewrites_[1].matched_nodes.push_back(4);
  rewrites_[1].matched_node_signatures.push_back({"Neg", "", {"f"}});
  core::builder::HtmlReportLimits limits;
  limits.nodes_per_list = 2;
  const std::string page = core::builder::RenderReportHtml(input_, limits);
  EXPECT_NE(Item(page, "b1a1").find("n_c"), std::string::npos);
  EXPECT_EQ(Item(page, "b1a2"), "");
  EXPECT_NE(page.find("<li class=\"muted\">\u2026 and 3 more, not listed</li>"), std::string::npos);
  EXPECT_NE(Item(page, "b2r1").find("n_f</span> <span class=\"op\">Neg</span>"), std::string::npos);
  EXPECT_NE(Item(page, "b2r1").find("<a href=\"#b1\">added by #1</a>"), std::string::npos) << Item(page, "b2r1");
}

TEST_F(ReportHtmlTest, RemovedNodesWithoutSignaturesAreShownByPosition) {
  for (LocalRewriting& record : rewrites_) record.matched_node_signatures.clear();
  const std::string page = core::builder::RenderReportHtml(input_);
  EXPECT_NE(Item(page, "b2r0").find("node at position 0"), std::string::npos) << Item(page, "b2r0");
  EXPECT_EQ(Item(page, "b2r0").find("<a "), std::string::npos);
  EXPECT_NE(Item(page, "b1a0").find("(kept)"), std::string::npos) << "no removal is known";
}

TEST_F(ReportHtmlTest, AManyBatchRunStaysSmall) {
  // 600 batches of 60 rewrites of one node each: too many to list.
  std::vector<LocalRewriting> many;
  for (std::size_t batch = 0; batch < 600; ++batch)
    for (std::size_t r = 0; r < 60; ++r) {
      const std::string output = "v" + std::to_string(batch) + "_" + std::to_string(r);
      many.push_back(Record("P", batch, {r}, {{"Relu", "", {output}}}, {Node("n" + output, "Relu", output + "x")}));
    }
  input_.rewrites = &many;
  const std::string page = core::builder::RenderReportHtml(input_);
  EXPECT_LT(page.size(), 6u << 20);
  EXPECT_NE(page.find("36000 rewrites in 600 batches"), std::string::npos);
  // 50 rewrites a batch are listed, 100 nodes: the 20000 nodes are reached at batch 200.
  EXPECT_NE(page.find("id=\"batches-cut\">Batches 1\u2013200 of 600 are listed"), std::string::npos);
  EXPECT_NE(page.find("id=\"b200\""), std::string::npos);
  EXPECT_EQ(page.find("id=\"b201\""), std::string::npos);
  EXPECT_NE(page.find("\u2026 and 10 more rewrites in this batch, not listed."), std::string::npos);
}

TEST(IndexNodeNamesTest, KeysNodesByGraphAndFirstOutput) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool c, float[2] x) => (float[2] y) {
      y = If (c) <
        then_branch = t () => (float[2] r) { r = Neg (x) },
        else_branch = e () => (float[2] s) { s = Relu (x) }>
    })ONNX");
  for (AttributeProto& branch : *model.mutable_graph()->mutable_node(0)->mutable_attribute())
    if (branch.name() == "then_branch") branch.mutable_g()->mutable_node(0)->set_name("inner");
  std::map<core::builder::NodeKey, std::string> names = core::builder::IndexNodeNames(model.graph());
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names.at({{}, "y"}), "");
  EXPECT_EQ(names.at({{{"y", "then_branch", -1}}, "r"}), "inner");
  EXPECT_TRUE(names.count({{{"y", "else_branch", -1}}, "s"}));
}

// The option end to end: the page is written with the model, and not at all when saving fails.
class ReportHtmlCommandTest : public ::testing::Test {
 protected:
  std::string Model() {
    const fs::path path = dir_ / "model.onnx";
    ModelProto model = ParseText(R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (float[2,3] x) => (float[2,3] y) {
        a = Identity (x)
        b = Cast <to = 1> (a)
        y = Relu (b)
      })ONNX");
    model.mutable_graph()->mutable_node(0)->set_name("id<1>");
    model.mutable_graph()->mutable_node(1)->set_name("c&c");
    WriteFile(path, core::ir::SerializeDeterministic(model));
    return path.string();
  }
  TempDir dir_;
};

TEST_F(ReportHtmlCommandTest, WritesThePage) {
  const fs::path page_path = dir_ / "report.html";
  const CommandResult result = RunCommand({OnnxoptExe().string(), "optimize", Model(), "-o",
                                           (dir_ / "out.onnx").string(), "--report-html", page_path.string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("saved the HTML report to " + page_path.string()), std::string::npos) << result.output;
  const std::string page = ReadFile(page_path);
  EXPECT_NE(page.find("<span id=\"nodes-before\">3</span> \u2192 <span id=\"nodes-after\">1</span>"),
            std::string::npos);
  EXPECT_NE(page.find("id&lt;1&gt;</span> <span class=\"op\">Identity</span>"), std::string::npos);
  EXPECT_NE(page.find("c&amp;c</span> <span class=\"op\">Cast</span>"), std::string::npos);
  EXPECT_EQ(page.find("id<1>"), std::string::npos);
}

TEST_F(ReportHtmlCommandTest, FailedSaveLeavesNoPage) {
  WriteFile(dir_ / "not-a-folder", "x");
  const CommandResult result =
      RunCommand({OnnxoptExe().string(), "optimize", Model(), "-o", (dir_ / "out.onnx").string(), "--report-html",
                  (dir_ / "not-a-folder" / "report.html").string()});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("cannot write HTML report"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(dir_ / "out.onnx"));
}

TEST_F(ReportHtmlCommandTest, RefusesThePageAsAnotherOutput) {
  const std::string model = Model(), out = (dir_ / "out.onnx").string();
  for (const auto& [page, message] :
       {std::pair{out, "two outputs (-o and --report-html)"},
        std::pair{(dir_ / "." / "report.json").string(), "two outputs (--report-json and --report-html)"},
        std::pair{model, "would overwrite the input model"}}) {
    const CommandResult result = RunCommand({OnnxoptExe().string(), "optimize", model, "-o", out, "--report-json",
                                             (dir_ / "report.json").string(), "--report-html", page});
    EXPECT_EQ(result.exit_code, 1) << result.output;
    EXPECT_NE(result.output.find(message), std::string::npos) << result.output;
  }
  EXPECT_EQ(ListFiles(dir_.path()), std::vector<fs::path>{dir_ / "model.onnx"});
}

TEST_F(ReportHtmlCommandTest, HelpNamesTheOption) {
  const CommandResult result = RunCommand({OnnxoptExe().string(), "optimize", "--help"});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("--report-html FILE"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace onnxopt::testing
