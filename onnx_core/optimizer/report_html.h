#pragma once
// The page of `onnxopt optimize --report-html FILE` (with `--passes` too, written by the
// Python command line through the binding render_report_html): one self-contained HTML
// file (inline CSS, SVG charts drawn here, a few lines of inline script that only open
// collapsed sections; nothing is fetched from the network) showing what the optimizer did:
// the model before and after, the operators, the patterns with their rejections, the time
// per phase, and every rewrite batch with the nodes it removed and added, each node linked
// to the batch that added it or removes it later.
//
// Rendering is a pure function of the optimizer's report and records and of summaries of
// the model taken before and after, so that it is unit-testable without a model file.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/ir/model_summary.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_core/optimizer/report.h"

namespace onnxopt::core::builder {

// A node's identity while a model is rewritten: the graph holding it and its first
// non-empty output, which no other node of that graph defines (a checked model has no
// duplicate definition, and rewrites keep it so). Records describe the nodes they remove
// by position and signature only; this key follows a node from the batch that adds it to
// the batch that removes it.
using NodeKey = std::pair<std::vector<SubgraphKey>, std::string>;

// The names of the nodes of `graph` and of the graphs nested in it, by NodeKey. Nodes
// without a non-empty output are left out (nothing can designate them).
std::map<NodeKey, std::string> IndexNodeNames(const GraphProto& graph);

struct ModelCounts {
  ir::Histogram ops;
  ir::InitializerStats initializers;
};

struct HtmlReportInput {
  std::string model;     // the input model's path, for the title
  std::string patterns;  // the --patterns selection
  // The --overwrite-input-shape/--dim settings the model was specialised under
  // (ir::DescribeInputShapeSettings); empty: none.
  std::string input_shapes;
  ModelCounts before;
  ModelCounts after;
  // IndexNodeNames of the model before optimizing: the names of the nodes the records
  // remove, which records do not keep.
  std::map<NodeKey, std::string> original_names;
  const OptimizationReport* report = nullptr;
  // With matched_node_signatures filled (DescribeRemovedNodes); without them, removed
  // nodes are shown by position only and are not linked.
  const std::vector<LocalRewriting>* rewrites = nullptr;
};

// What keeps the page usable on a model with thousands of batches (the 400-layer
// decoder): what is cut is counted on the page, and said so where it is cut.
struct HtmlReportLimits {
  std::size_t batches = 500;          // batches listed, in order
  std::size_t records_per_batch = 50;  // rewrites listed in one batch
  std::size_t nodes_per_list = 20;    // nodes listed in one removed or added list
  std::size_t node_entries = 20000;   // all listed nodes: no batch is listed past it
  std::size_t table_rows = 200;       // rejection sites, constants not folded, nested graphs
  std::size_t chart_rows = 30;        // bars in the operator and pattern charts
};

std::string RenderReportHtml(const HtmlReportInput& input, const HtmlReportLimits& limits = {});

// `text` as HTML text or attribute value: & < > " ' as entities, control bytes (and DEL)
// as the visible four characters \xHH. Other bytes are kept; the page is declared UTF-8
// and a browser shows an invalid sequence as U+FFFD, which cannot change the markup.
std::string EscapeHtml(std::string_view text);

}  // namespace onnxopt::core::builder
