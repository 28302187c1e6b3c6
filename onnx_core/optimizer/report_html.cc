#include "onnx_core/optimizer/report_html.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <sstream>

#include "onnx_core/optimizer/rewrite_batches.h"

namespace onnxopt::core::builder {

namespace {

using ir::FormatBytes;
using ir::InitializerStats;
using ir::OpKey;

// Inline, so that the file needs nothing else. Colors: before grey, after blue, as in the
// charts' legends.
constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1b1f24; max-width: 1100px; }
h1 { font-size: 22px; margin: 0 0 4px; } h1 .model { font-weight: normal; color: #57606a; word-break: break-all; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h4 { margin: 4px 0; font-size: 13px; color: #57606a; }
.lead { color: #57606a; margin: 0 0 12px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 14px; min-width: 170px; }
.card .label { color: #57606a; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 22px; font-weight: 600; }
.card .delta { color: #1a7f37; font-size: 13px; } .card .delta.up { color: #cf222e; }
.card .delta.muted { color: #57606a; }
table { border-collapse: collapse; margin: 6px 0; font-size: 13px; }
th, td { border-bottom: 1px solid #eaeef2; padding: 3px 10px 3px 0; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px; padding: 6px 10px; }
.warn { background: #ffebe9; border: 1px solid #cf222e; border-radius: 6px; padding: 6px 10px; }
.muted { color: #57606a; }
code, .name { font-family: ui-monospace, monospace; font-size: 12px; word-break: break-all; }
svg.chart { display: block; margin: 8px 0; } svg text { font: 11px system-ui, sans-serif; fill: #1b1f24; }
details.batch { border: 1px solid #d0d7de; border-radius: 6px; margin: 4px 0; padding: 2px 8px; }
details.batch > summary { cursor: pointer; }
table.records { width: 100%; table-layout: fixed; } table.records col.rewrite { width: 22%; }
ul.nodes { margin: 0; padding-left: 16px; } ul.nodes li { margin: 1px 0; }
.op { color: #8250df; } li:target, details:target > summary { background: #fff8c5; }
)";

// Opens the collapsed batch holding the node or batch a link points to (browsers that do
// not open <details> on fragment navigation), and the buttons that open or close all.
constexpr const char* kScript = R"(
function openTarget() {
  var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  for (var e = target; e; e = e.parentElement) if (e.tagName === 'DETAILS') e.open = true;
  if (target) target.scrollIntoView();
}
function openAll(open) { document.querySelectorAll('details.batch').forEach(function (d) { d.open = open; }); }
addEventListener('hashchange', openTarget);
addEventListener('DOMContentLoaded', openTarget);
)";

constexpr const char* kBeforeColor = "#8c959f";
constexpr const char* kAfterColor = "#0969da";
constexpr const char* kPhaseColors[] = {"#0969da", "#1a7f37", "#bf8700", "#cf222e", "#8250df",
                                        "#1b7c83", "#bc4c00", "#57606a", "#e85aad"};

// How many of `total` rows a table cut at `limit` shows; says so on the page when it cuts.
std::size_t ListedRows(std::ostringstream& html, std::size_t total, std::size_t limit) {
  const std::size_t shown = std::min(total, limit);
  if (shown < total) html << "<p class=\"note\">The first " << shown << " of " << total << " are listed.</p>\n";
  return shown;
}

std::string Milliseconds(std::int64_t ns) {
  if (ns == 0) return "0 ms";
  char text[32];
  std::snprintf(text, sizeof text, ns < 100'000 ? "%.3f ms" : "%.1f ms", static_cast<double>(ns) / 1e6);
  return text;
}

std::string Percent(double part, double whole) {
  if (whole <= 0) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * part / whole);
  return text;
}

// "-667 (-54.1%)", "+3 (+0.2%)", "unchanged".
std::string Change(std::uint64_t before, std::uint64_t after) {
  if (before == after) return "unchanged";
  const double difference = static_cast<double>(after) - static_cast<double>(before);
  std::string text = (after > before ? "+" : "-") + std::to_string(after > before ? after - before : before - after);
  if (before > 0) text += " (" + std::string(difference > 0 ? "+" : "") + Percent(difference, before) + ")";
  return text;
}

// At most `max_bytes` bytes of `text`, cut before a UTF-8 continuation byte, with an ellipsis.
std::string Shorten(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "\u2026";
}

// Of a node's outputs (NodeProto::output or NodeSignature::outputs): the first non-empty
// one, which names nested graphs in SubgraphKey too.
const std::string& FirstOutput(const auto& outputs) {
  static const std::string kNone;
  for (const std::string& output : outputs)
    if (!output.empty()) return output;
  return kNone;
}

std::string JoinOutputs(const auto& outputs) {
  std::string text;
  for (const std::string& output : outputs) text += (text.empty() ? "" : ", ") + output;
  return text;
}

std::string GraphLabel(const std::vector<SubgraphKey>& path) {
  if (path.empty()) return "main graph";
  std::string text;
  for (const SubgraphKey& key : path) text += (text.empty() ? "" : "/") + key.ToString();
  return text;
}

// The graphs nested in `node` (at `path`), with their paths.
void AddNestedGraphs(const NodeProto& node, const std::vector<SubgraphKey>& path,
                     std::vector<std::pair<const GraphProto*, std::vector<SubgraphKey>>>& graphs) {
  for (const AttributeProto& attribute : node.attribute()) {
    if (!attribute.has_g() && attribute.graphs_size() == 0) continue;
    std::vector<SubgraphKey> nested = path;
    nested.push_back({FirstOutput(node.output()), attribute.name(), -1});
    if (attribute.has_g()) graphs.emplace_back(&attribute.g(), nested);
    for (int i = 0; i < attribute.graphs_size(); ++i) {
      nested.back().index = i;
      graphs.emplace_back(&attribute.graphs(i), nested);
    }
  }
}

// Calls visit(key, node) for every node of the graphs in `pending` and of the graphs nested
// in them, without recursion: a hostile model cannot exhaust the stack. Nodes without a
// non-empty output have no key and are skipped.
template <typename Visit>
void VisitNodes(std::vector<std::pair<const GraphProto*, std::vector<SubgraphKey>>> pending, Visit visit) {
  while (!pending.empty()) {
    auto [graph, path] = std::move(pending.back());
    pending.pop_back();
    for (const NodeProto& node : graph->node()) {
      const std::string& output = FirstOutput(node.output());
      if (!output.empty()) visit(NodeKey{path, output}, node);
      AddNestedGraphs(node, path, pending);
    }
  }
}

// One node in a batch's removed or added list.
struct NodeEntry {
  std::string name;
  std::string op;
  std::string outputs;
  // The other end of the node's life in the records: for a removed node the batch that
  // added it, for an added node the batch that removes it; -1 when there is none (a node of
  // the original model, a node the optimized model keeps).
  std::ptrdiff_t other_batch = -1;
  std::size_t other_entry = 0;
  bool listed = false;
};

struct BatchView {
  std::size_t begin = 0, end = 0;  // records
  std::vector<NodeEntry> removed, added;
  // Per record of the batch: its entries in removed and added, [first, last).
  std::vector<std::pair<std::size_t, std::size_t>> record_removed, record_added;
  bool listed = false;
  std::size_t listed_records = 0;
};

// The node a key designates now: its name and the batch entry that added it.
struct LiveNode {
  std::string name;
  std::ptrdiff_t batch = -1;
  std::size_t entry = 0;
};

// Groups the records into batches (as Replay does: consecutive records with the same
// iteration and graph) and follows every node from the batch adding it to the batch
// removing it.
std::vector<BatchView> BuildBatches(const std::vector<LocalRewriting>& rewrites,
                                    const std::map<NodeKey, std::string>& original_names) {
  std::map<NodeKey, LiveNode> live;
  for (const auto& [key, name] : original_names) live[key].name = name;
  std::vector<BatchView> batches;
  for (std::size_t begin = 0; begin < rewrites.size();) {
    const LocalRewriting& first = rewrites[begin];
    const std::size_t end = BatchEnd(rewrites, begin);
    const std::ptrdiff_t index = static_cast<std::ptrdiff_t>(batches.size());
    BatchView& batch = batches.emplace_back();
    batch.begin = begin;
    batch.end = end;
    // Removals designate the graph at the start of the batch: all of them before any addition.
    for (std::size_t r = begin; r < end; ++r) {
      const LocalRewriting& record = rewrites[r];
      const std::size_t first_entry = batch.removed.size();
      for (std::size_t i = 0; i < record.matched_nodes.size(); ++i) {
        NodeEntry& entry = batch.removed.emplace_back();
        if (i >= record.matched_node_signatures.size()) {
          entry.name = "node at position " + std::to_string(record.matched_nodes[i]);
          continue;
        }
        const NodeSignature& signature = record.matched_node_signatures[i];
        // As OpKey writes it.
        entry.op = signature.domain.empty() || signature.domain == "ai.onnx"
                       ? signature.op_type
                       : signature.domain + "::" + signature.op_type;
        entry.outputs = JoinOutputs(signature.outputs);
        auto found = live.find({first.graph_path, FirstOutput(signature.outputs)});
        if (found == live.end()) continue;
        entry.name = found->second.name;
        entry.other_batch = found->second.batch;
        entry.other_entry = found->second.entry;
        if (entry.other_batch >= 0) {
          NodeEntry& added = batches[static_cast<std::size_t>(entry.other_batch)].added[entry.other_entry];
          added.other_batch = index;
          added.other_entry = batch.removed.size() - 1;
        }
        live.erase(found);
      }
      batch.record_removed.emplace_back(first_entry, batch.removed.size());
    }
    for (std::size_t r = begin; r < end; ++r) {
      const LocalRewriting& record = rewrites[r];
      const std::size_t first_entry = batch.added.size();
      for (const NodeProto& node : record.added_nodes) {
        NodeEntry& entry = batch.added.emplace_back();
        entry.name = node.name();
        entry.op = OpKey(node);
        entry.outputs = JoinOutputs(node.output());
        const std::string& output = FirstOutput(node.output());
        if (!output.empty()) live[{first.graph_path, output}] = {node.name(), index, batch.added.size() - 1};
        // The nodes nested in an added If or Loop get their names known, not a link: the
        // batch entry is the node holding them.
        std::vector<std::pair<const GraphProto*, std::vector<SubgraphKey>>> nested;
        AddNestedGraphs(node, first.graph_path, nested);
        VisitNodes(std::move(nested), [&](NodeKey key, const NodeProto& inner) {
          live[std::move(key)] = {inner.name(), -1, 0};
        });
      }
      batch.record_added.emplace_back(first_entry, batch.added.size());
    }
    begin = end;
  }
  return batches;
}

// Decides what is listed: batches in order while the limits allow, and in each the first
// records and the first nodes of each list.
void ChooseListed(std::vector<BatchView>& batches, const HtmlReportLimits& limits) {
  std::size_t entries = 0;
  for (std::size_t b = 0; b < batches.size() && b < limits.batches && entries < limits.node_entries; ++b) {
    BatchView& batch = batches[b];
    batch.listed = true;
    batch.listed_records = std::min(batch.end - batch.begin, limits.records_per_batch);
    for (std::size_t r = 0; r < batch.listed_records; ++r) {
      for (auto [list, range] : {std::pair{&batch.removed, batch.record_removed[r]},
                                 std::pair{&batch.added, batch.record_added[r]}}) {
        const std::size_t last = std::min(range.second, range.first + limits.nodes_per_list);
        for (std::size_t i = range.first; i < last; ++i) (*list)[i].listed = true;
        entries += last - range.first;
      }
    }
  }
}

struct ChartSeries {
  std::string name;
  const char* color;
};

struct ChartRow {
  std::string label;
  std::vector<double> values;       // one per series
  std::vector<std::string> texts;   // printed after each bar
};

// Horizontal bars, one group per row, one bar per series, all on one scale.
void HorizontalBarChart(std::ostringstream& html, const std::string& title, const std::vector<ChartSeries>& series,
                        const std::vector<ChartRow>& rows) {
  constexpr int kWidth = 1000, kLabelWidth = 260, kTextRoom = 110, kBar = 12, kGap = 6, kLegend = 24;
  double max = 0;
  for (const ChartRow& row : rows)
    for (double value : row.values) max = std::max(max, value);
  const int row_height = kBar * static_cast<int>(series.size()) + kGap;
  const int height = kLegend + row_height * static_cast<int>(rows.size()) + 4;
  html << "<svg class=\"chart\" role=\"img\" aria-label=\"" << EscapeHtml(title) << "\" width=\"" << kWidth
       << "\" height=\"" << height << "\" viewBox=\"0 0 " << kWidth << " " << height << "\"><title>"
       << EscapeHtml(title) << "</title>";
  int legend_x = kLabelWidth;
  for (const ChartSeries& entry : series) {
    html << "<rect x=\"" << legend_x << "\" y=\"6\" width=\"10\" height=\"10\" fill=\"" << entry.color
         << "\"/><text x=\""
         << legend_x + 14 << "\" y=\"15\">" << EscapeHtml(entry.name) << "</text>";
    legend_x += 24 + 7 * static_cast<int>(entry.name.size());
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ChartRow& row = rows[i];
    const int top = kLegend + row_height * static_cast<int>(i);
    html << "<g><title>" << EscapeHtml(row.label) << "</title><text x=\"" << kLabelWidth - 6 << "\" y=\""
         << top + (row_height - kGap) / 2 + 4 << "\" text-anchor=\"end\">" << EscapeHtml(Shorten(row.label, 40))
         << "</text>";
    for (std::size_t s = 0; s < series.size(); ++s) {
      const double value = s < row.values.size() ? row.values[s] : 0;
      const int y = top + kBar * static_cast<int>(s);
      const int width = max > 0 ? static_cast<int>(value / max * (kWidth - kLabelWidth - kTextRoom) + 0.5) : 0;
      html << "<rect x=\"" << kLabelWidth << "\" y=\"" << y << "\" width=\"" << width << "\" height=\"" << kBar - 2
           << "\" fill=\"" << series[s].color << "\"/><text x=\"" << kLabelWidth + width + 4 << "\" y=\"" << y + 9
           << "\">" << EscapeHtml(s < row.texts.size() ? row.texts[s] : "") << "</text>";
    }
    html << "</g>";
  }
  html << "</svg>\n";
}

void SummarySection(std::ostringstream& html, const HtmlReportInput& input, std::size_t batch_count) {
  const OptimizationReport& report = *input.report;
  html << "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">\n";
  const auto card = [&](const char* label, const char* id, std::uint64_t before, std::uint64_t after, bool bytes) {
    const auto value = [&](const char* side, std::uint64_t count) {
      html << "<span id=\"" << id << "-" << side << "\"";
      if (bytes) html << " data-bytes=\"" << count << "\" title=\"" << count << " bytes\">" << FormatBytes(count);
      else html << ">" << count;
      html << "</span>";
    };
    html << "<div class=\"card\"><div class=\"label\">" << label << "</div><div class=\"value\">";
    value("before", before);
    html << " \u2192 ";
    value("after", after);
    html << "</div><div class=\"delta" << (after > before ? " up" : "") << "\">" << Change(before, after)
         << "</div></div>\n";
  };
  card("nodes", "nodes", input.before.ops.nodes, input.after.ops.nodes, false);
  card("initializers", "initializers", input.before.initializers.count, input.after.initializers.count, false);
  const auto bytes = [](const InitializerStats& stats) { return stats.inline_bytes + stats.external_bytes; };
  card("initializer bytes", "initializer-bytes", bytes(input.before.initializers), bytes(input.after.initializers),
       true);
  html << "<div class=\"card\"><div class=\"label\">rewrites</div><div class=\"value\" id=\"rewrites\">"
       << input.rewrites->size() << "</div><div class=\"delta muted\">in " << batch_count << " batches, "
       << report.iterations << " rounds</div></div>\n";
  html << "<div class=\"card\"><div class=\"label\">optimizer time</div><div class=\"value\" id=\"total-time\">"
       << Milliseconds(report.TotalTimeNs()) << "</div><div class=\"delta muted\">load and save not included</div>"
       << "</div>\n</div>\n";
  if (input.before.ops.nested_graphs || input.after.ops.nested_graphs)
    html << "<p class=\"muted\">Counts include the nodes of nested graphs (" << input.before.ops.nested_graphs
         << " before, " << input.after.ops.nested_graphs << " after); the main graph alone: " << report.nodes_before
         << " \u2192 " << report.nodes_after << " nodes.</p>\n";
  if (report.reached_max_iter)
    html << "<p class=\"warn\">A graph stopped at its round limit (" << report.max_iter
         << " for the main graph), not because no pattern matched any more.</p>\n";
  html << "</section>\n";
}

void PhaseSection(std::ostringstream& html, const OptimizationReport& report) {
  struct Phase {
    const char* name;
    std::int64_t ns;
    std::optional<std::size_t> nodes;  // visited (none for nested graphs: counted in the other phases)
  };
  const PhaseNodes& visited = report.nodes_visited;
  const std::vector<Phase> phases = {{"indexing", report.indexing_time_ns, visited.indexing},
                                     {"matching", report.matching_time_ns, visited.matching},
                                     {"rewriting", report.rewriting_time_ns, visited.rewriting},
                                     {"shape inference", report.shape_inference_time_ns, visited.shape_inference},
                                     {"constant folding", report.constant_folding_time_ns, visited.constant_folding},
                                     {"cleanup", report.cleanup_time_ns, visited.cleanup},
                                     {"graph passes", report.passes_time_ns, visited.graph_passes},
                                     {"nested graphs", report.subgraph_optimization_time_ns, std::nullopt}};
  const std::int64_t total = report.TotalTimeNs();
  html << "<section id=\"phases\"><h2>Time per phase</h2>\n";
  constexpr int kWidth = 1000, kHeight = 30;
  html << "<svg class=\"chart\" role=\"img\" aria-label=\"time per phase\" width=\"" << kWidth << "\" height=\""
       << kHeight << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\"><title>time per phase</title>";
  double x = 0;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    if (total <= 0 || phases[i].ns <= 0) continue;
    const double width = static_cast<double>(phases[i].ns) / static_cast<double>(total) * kWidth;
    html << "<rect x=\"" << static_cast<int>(x) << "\" y=\"0\" width=\"" << std::max(1, static_cast<int>(width + 0.5))
         << "\" height=\"" << kHeight << "\" fill=\"" << kPhaseColors[i] << "\"><title>" << phases[i].name << ": "
         << Milliseconds(phases[i].ns) << "</title></rect>";
    x += width;
  }
  html << "</svg>\n<table><tr><th></th><th>phase</th><th class=\"num\">time</th><th class=\"num\">share</th>"
       << "<th class=\"num\" title=\"a phase that walks the whole graph counts each of its nodes\">nodes visited</th></tr>\n";
  for (std::size_t i = 0; i < phases.size(); ++i)
    html << "<tr><td><svg width=\"10\" height=\"10\"><rect width=\"10\" height=\"10\" fill=\"" << kPhaseColors[i]
         << "\"/></svg></td><td>" << phases[i].name << "</td><td class=\"num\">" << Milliseconds(phases[i].ns)
         << "</td><td class=\"num\">" << Percent(static_cast<double>(phases[i].ns), static_cast<double>(total))
         << "</td><td class=\"num\">" << (phases[i].nodes ? std::to_string(*phases[i].nodes) : std::string("\u2014"))
         << "</td></tr>\n";
  html << "<tr><th></th><th>total</th><th class=\"num\">" << Milliseconds(total) << "</th><th></th><th class=\"num\">"
       << visited.Total() << "</th></tr></table>\n"
       << "</section>\n";
}

void OperatorSection(std::ostringstream& html, const HtmlReportInput& input, const HtmlReportLimits& limits) {
  std::set<std::string> names;
  for (const auto& [op, count] : input.before.ops.ops) names.insert(op);
  for (const auto& [op, count] : input.after.ops.ops) names.insert(op);
  struct OpCounts {
    std::string op;
    std::uint64_t before, after;
  };
  std::vector<OpCounts> ops;
  for (const std::string& op : names) {
    const auto before = input.before.ops.ops.find(op), after = input.after.ops.ops.find(op);
    ops.push_back({op, before == input.before.ops.ops.end() ? 0 : before->second,
                   after == input.after.ops.ops.end() ? 0 : after->second});
  }
  std::stable_sort(ops.begin(), ops.end(), [](const OpCounts& a, const OpCounts& b) {
    return std::max(a.before, a.after) > std::max(b.before, b.after);
  });
  html << "<section id=\"operators\"><h2>Operators before and after</h2>\n";
  std::vector<ChartRow> rows;
  for (std::size_t i = 0; i < ops.size() && i < limits.chart_rows; ++i)
    rows.push_back({ops[i].op,
                    {static_cast<double>(ops[i].before), static_cast<double>(ops[i].after)},
                    {std::to_string(ops[i].before), std::to_string(ops[i].after)}});
  if (ops.size() > rows.size())
    html << "<p class=\"muted\">The chart shows the " << rows.size() << " operators with the most nodes; the table "
         << "lists all " << ops.size() << ".</p>\n";
  HorizontalBarChart(html, "nodes per operator, before and after", {{"before", kBeforeColor}, {"after", kAfterColor}},
                     rows);
  std::stable_sort(ops.begin(), ops.end(), [](const OpCounts& a, const OpCounts& b) {
    const auto change = [](const OpCounts& c) { return c.before > c.after ? c.before - c.after : c.after - c.before; };
    return change(a) > change(b);
  });
  html << "<table id=\"operator-table\"><tr><th>operator</th><th class=\"num\">before</th><th class=\"num\">after</th>"
       << "<th class=\"num\">change</th></tr>\n";
  for (const OpCounts& op : ops)
    html << "<tr><td class=\"name\">" << EscapeHtml(op.op) << "</td><td class=\"num\">" << op.before
         << "</td><td class=\"num\">" << op.after << "</td><td class=\"num\">" << Change(op.before, op.after)
         << "</td></tr>\n";
  html << "</table></section>\n";
}

void PatternSection(std::ostringstream& html, const OptimizationReport& report, const HtmlReportLimits& limits) {
  std::map<std::string, std::size_t> rejections;
  for (const auto& site : report.no_matches) rejections[site.pattern] += site.count;
  std::vector<const PatternStats*> active;
  std::vector<std::string> idle;
  for (const auto& stats : report.patterns) {
    if (stats.match_calls || stats.applied || rejections.count(stats.name)) active.push_back(&stats);
    else idle.push_back(stats.name);
  }
  const auto time = [](const PatternStats* stats) {
    return stats->match_time_ns + stats->apply_time_ns;
  };
  std::stable_sort(active.begin(), active.end(), [&](const auto* a, const auto* b) {
    return a->applied != b->applied ? a->applied > b->applied : time(a) > time(b);
  });
  html << "<section id=\"patterns\"><h2>Patterns</h2>\n";
  std::vector<ChartRow> applied_rows;
  for (const auto* stats : active)
    if (stats->applied && applied_rows.size() < limits.chart_rows)
      applied_rows.push_back({stats->name,
                              {static_cast<double>(stats->applied), static_cast<double>(rejections[stats->name])},
                              {std::to_string(stats->applied), std::to_string(rejections[stats->name])}});
  if (applied_rows.empty()) {
    html << "<p>No pattern rewrote anything.</p>\n";
  } else {
    HorizontalBarChart(html, "rewrites applied and candidates rejected per pattern",
                       {{"applied", kAfterColor}, {"rejected", kBeforeColor}}, applied_rows);
  }
  std::vector<const PatternStats*> by_time = active;
  std::stable_sort(by_time.begin(), by_time.end(), [&](const auto* a, const auto* b) { return time(a) > time(b); });
  std::vector<ChartRow> time_rows;
  for (const auto* stats : by_time)
    if (time(stats) > 0 && time_rows.size() < limits.chart_rows)
      time_rows.push_back({stats->name,
                           {static_cast<double>(time(stats))},
                           {Milliseconds(time(stats)) + " (match " + Milliseconds(stats->match_time_ns) + ", apply " +
                            Milliseconds(stats->apply_time_ns) + ")"}});
  if (!time_rows.empty())
    HorizontalBarChart(html, "time per pattern, matching and applying", {{"time", kAfterColor}}, time_rows);
  html << "<table id=\"pattern-table\"><tr><th>pattern</th><th class=\"num\">priority</th>"
       << "<th class=\"num\">candidates</th><th class=\"num\">matched</th><th class=\"num\">applied</th>"
       << "<th class=\"num\">rejections</th><th class=\"num\">nodes removed</th><th class=\"num\">nodes added</th>"
       << "<th class=\"num\">match time</th><th class=\"num\">apply time</th></tr>\n";
  for (const auto* stats : active)
    html << "<tr><td class=\"name\">" << EscapeHtml(stats->name) << "</td><td class=\"num\">" << stats->priority
         << "</td><td class=\"num\">" << stats->match_calls << "</td><td class=\"num\">" << stats->matched
         << "</td><td class=\"num\">" << stats->applied << "</td><td class=\"num\">" << rejections[stats->name]
         << "</td><td class=\"num\">" << stats->removed_nodes << "</td><td class=\"num\">" << stats->added_nodes
         << "</td><td class=\"num\">" << Milliseconds(stats->match_time_ns) << "</td><td class=\"num\">"
         << Milliseconds(stats->apply_time_ns) << "</td></tr>\n";
  html << "</table>\n";
  if (!idle.empty()) {
    html << "<p class=\"muted\">" << idle.size() << " selected patterns never saw a candidate: ";
    for (std::size_t i = 0; i < idle.size(); ++i) html << (i ? ", " : "") << EscapeHtml(idle[i]);
    html << ".</p>\n";
  }
  html << "<h3>Rejections</h3>\n";
  if (report.no_matches.empty()) {
    html << "<p class=\"muted\">No candidate was rejected with a reason.</p>\n";
  } else {
    const std::size_t shown = std::min(report.no_matches.size(), limits.table_rows);
    if (shown < report.no_matches.size())
      html << "<p class=\"note\">The " << shown << " most frequent of " << report.no_matches.size()
           << " rejection sites are listed.</p>\n";
    html << "<table id=\"rejection-table\"><tr><th>pattern</th><th>reason</th><th>where</th><th class=\"num\">count"
         << "</th></tr>\n";
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& site = report.no_matches[i];
      html << "<tr><td class=\"name\">" << EscapeHtml(site.pattern) << "</td><td>" << EscapeHtml(site.reason)
           << "</td><td><code>" << EscapeHtml(site.file) << ":" << site.line << "</code></td><td class=\"num\">"
           << site.count << "</td></tr>\n";
    }
    html << "</table>\n";
  }
  html << "</section>\n";
}

// Graph passes, cleanup passes, constants left unfolded, nested graphs: the report's other
// lists, each only when it has something.
void OtherSections(std::ostringstream& html, const OptimizationReport& report, const HtmlReportLimits& limits) {
  if (!report.passes.empty()) {
    html << "<section id=\"passes\"><h2>Graph passes</h2><table><tr><th>pass</th><th>stage</th>"
         << "<th class=\"num\">runs</th><th class=\"num\">changed</th><th class=\"num\">nodes removed</th>"
         << "<th class=\"num\">nodes added</th><th class=\"num\">time</th><th>counters</th></tr>\n";
    for (const auto& pass : report.passes) {
      html << "<tr><td class=\"name\">" << EscapeHtml(pass.name) << "</td><td>" << EscapeHtml(pass.stage)
           << "</td><td class=\"num\">" << pass.runs << "</td><td class=\"num\">" << pass.changed
           << "</td><td class=\"num\">" << pass.removed_nodes << "</td><td class=\"num\">" << pass.added_nodes
           << "</td><td class=\"num\">" << Milliseconds(pass.time_ns) << "</td><td>";
      for (const auto& [name, value] : pass.counters) html << EscapeHtml(name) << " " << value << " ";
      html << "</td></tr>\n";
    }
    html << "</table></section>\n";
  }
  if (!report.cleanup.empty()) {
    html << "<section id=\"cleanup\"><h2>Cleanup and folding</h2><table><tr><th>operation</th>"
         << "<th class=\"num\">effective runs</th><th class=\"num\">nodes removed</th>"
         << "<th class=\"num\">initializers removed</th><th class=\"num\">renames</th>"
         << "<th class=\"num\">functions removed</th></tr>\n";
    for (const auto& cleanup : report.cleanup)
      html << "<tr><td class=\"name\">" << EscapeHtml(cleanup.name) << "</td><td class=\"num\">" << cleanup.runs
           << "</td><td class=\"num\">" << cleanup.removed_nodes << "</td><td class=\"num\">"
           << cleanup.removed_initializers << "</td><td class=\"num\">" << cleanup.renames << "</td><td class=\"num\">"
           << cleanup.removed_functions << "</td></tr>\n";
    html << "</table></section>\n";
  }
  if (!report.refused_rewrites.empty()) {
    html << "<section id=\"refused\"><h2>Rewrites refused</h2>\n"
         << "<p>A replacement node breaks its operator's specification at the model's opset, in its signature "
            "or with the shapes of its inputs: the match was left as it is. This is a defect of the pattern.</p>\n";
    const std::size_t shown = ListedRows(html, report.refused_rewrites.size(), limits.table_rows);
    html << "<ul>";
    for (std::size_t i = 0; i < shown; ++i)
      html << "<li class=\"name\">" << EscapeHtml(report.refused_rewrites[i]) << "</li>";
    html << "</ul></section>\n";
  }
  if (!report.not_folded.empty()) {
    html << "<section id=\"not-folded\"><h2>Constants not folded</h2>\n";
    const std::size_t shown = ListedRows(html, report.not_folded.size(), limits.table_rows);
    html << "<ul>";
    for (std::size_t i = 0; i < shown; ++i)
      html << "<li class=\"name\">" << EscapeHtml(report.not_folded[i]) << "</li>";
    html << "</ul></section>\n";
  }
  if (!report.subgraphs.empty()) {
    html << "<section id=\"subgraphs\"><h2>Nested graphs</h2>\n";
    const std::size_t shown = ListedRows(html, report.subgraphs.size(), limits.table_rows);
    html << "<table><tr><th>graph</th><th class=\"num\">time</th><th class=\"num\">rounds</th>"
         << "<th class=\"num\">rewrites</th></tr>\n";
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& graph = report.subgraphs[i];
      html << "<tr><td class=\"name\">" << EscapeHtml(graph.path) << "</td><td class=\"num\">"
           << Milliseconds(graph.time_ns) << "</td><td class=\"num\">" << graph.iterations << "</td><td class=\"num\">"
           << graph.rewrites << "</td></tr>\n";
    }
    html << "</table></section>\n";
  }
}

// One node of a removed or added list, with its link to the other end of its life.
void NodeItem(std::ostringstream& html, const std::vector<BatchView>& batches, const NodeEntry& entry,
              const std::string& id, bool removed) {
  html << "<li id=\"" << id << "\"><span class=\"name\">"
       << (entry.name.empty() ? "(no name)" : EscapeHtml(entry.name)) << "</span>";
  if (!entry.op.empty()) html << " <span class=\"op\">" << EscapeHtml(entry.op) << "</span>";
  if (!entry.outputs.empty())
    html << " <span class=\"muted\">\u2192 <code>" << EscapeHtml(entry.outputs) << "</code></span>";
  if (entry.other_batch >= 0) {
    const auto other = static_cast<std::size_t>(entry.other_batch);
    const char* verb = removed ? "added by" : "removed by";
    const BatchView& batch = batches[other];
    if (!batch.listed) {
      html << " <span class=\"muted\">(" << verb << " batch #" << other + 1 << ", not listed)</span>";
    } else {
      const NodeEntry& target = removed ? batch.added[entry.other_entry] : batch.removed[entry.other_entry];
      html << " <a href=\"#b" << other + 1;
      if (target.listed) html << (removed ? "a" : "r") << entry.other_entry;
      html << "\">" << verb << " #" << other + 1 << "</a>";
    }
  } else if (!removed) {
    html << " <span class=\"muted\">(kept)</span>";
  }
  html << "</li>";
}

// The removed or added nodes of one record, as a table cell.
void NodeList(std::ostringstream& html, const std::vector<BatchView>& batches, std::size_t batch_index,
              std::pair<std::size_t, std::size_t> range, bool removed) {
  const BatchView& batch = batches[batch_index];
  const std::vector<NodeEntry>& list = removed ? batch.removed : batch.added;
  html << "<td>";
  if (range.first == range.second) {
    html << "<span class=\"muted\">none</span></td>";
    return;
  }
  html << "<ul class=\"nodes\">";
  std::size_t unlisted = 0;
  for (std::size_t i = range.first; i < range.second; ++i) {
    if (!list[i].listed) {
      ++unlisted;
      continue;
    }
    NodeItem(html, batches, list[i], "b" + std::to_string(batch_index + 1) + (removed ? "r" : "a") + std::to_string(i),
             removed);
  }
  if (unlisted) html << "<li class=\"muted\">\u2026 and " << unlisted << " more, not listed</li>";
  html << "</ul></td>";
}

void BatchSection(std::ostringstream& html, const std::vector<LocalRewriting>& rewrites,
                  const std::vector<BatchView>& batches, const HtmlReportLimits& limits) {
  std::size_t listed = 0;
  while (listed < batches.size() && batches[listed].listed) ++listed;
  html << "<section id=\"batches\"><h2>Rewrite batches</h2>\n<p>" << rewrites.size() << " rewrites in "
       << batches.size() << " batches. A batch is one step of the optimizer on one graph: the rewrites of one pattern "
       << "round, a cleanup pass or a folding. Each node removed or added links to the batch that added it or that "
       << "removes it later (\u201cadded by #i\u201d, \u201cremoved by #j\u201d); \u201ckept\u201d nodes are in the "
       << "optimized model.</p>\n";
  if (listed < batches.size())
    html << "<p class=\"note\" id=\"batches-cut\">Batches 1\u2013" << listed << " of " << batches.size()
         << " are listed; the other " << batches.size() - listed << " are left out to keep this file small (at most "
         << limits.batches << " batches and " << limits.node_entries << " nodes; in a batch, the first "
         << limits.records_per_batch << " rewrites and " << limits.nodes_per_list << " nodes per list). The tables "
         << "above count every rewrite; <code>--record FILE</code> saves all of them.</p>\n";
  if (listed > 30)
    html << "<p><button onclick=\"openAll(true)\">open all</button> <button onclick=\"openAll(false)\">close all"
         << "</button></p>\n";
  for (std::size_t b = 0; b < listed; ++b) {
    const BatchView& batch = batches[b];
    const LocalRewriting& first = rewrites[batch.begin];
    std::vector<std::pair<std::string, std::size_t>> names;  // pattern -> records, in order
    for (std::size_t r = batch.begin; r < batch.end; ++r) {
      const std::string name = rewrites[r].Name();
      auto it = std::find_if(names.begin(), names.end(), [&](const auto& entry) { return entry.first == name; });
      if (it == names.end()) names.emplace_back(name, 1);
      else ++it->second;
    }
    html << "<details class=\"batch\" id=\"b" << b + 1 << "\"" << (listed <= 30 ? " open" : "") << "><summary><b>#"
         << b + 1 << "</b> \u00b7 step " << first.iteration << " \u00b7 " << EscapeHtml(GraphLabel(first.graph_path))
         << " \u00b7 ";
    for (std::size_t i = 0; i < names.size(); ++i)
      html << (i ? ", " : "") << EscapeHtml(names[i].first)
           << (names[i].second > 1 ? " \u00d7" + std::to_string(names[i].second) : "");
    html << " \u00b7 \u2212" << batch.removed.size() << " +" << batch.added.size() << " nodes</summary>\n";
    html << "<table class=\"records\"><col class=\"rewrite\"><col><col><tr><th>rewrite</th><th>removed</th>"
         << "<th>added</th></tr>\n";
    for (std::size_t r = 0; r < batch.listed_records; ++r) {
      const LocalRewriting& record = rewrites[batch.begin + r];
      html << "<tr><td><span class=\"name\">" << EscapeHtml(record.Name()) << "</span><br><span class=\"muted\">"
           << Milliseconds(record.match_time_ns + record.apply_time_ns);
      if (!record.added_initializers.empty()) html << ", " << record.added_initializers.size() << " initializers added";
      if (!record.removed_initializers.empty())
        html << ", " << record.removed_initializers.size() << " initializers removed";
      html << "</span></td>";
      NodeList(html, batches, b, batch.record_removed[r], true);
      NodeList(html, batches, b, batch.record_added[r], false);
      html << "</tr>\n";
    }
    html << "</table>\n";
    if (batch.listed_records < batch.end - batch.begin)
      html << "<p class=\"muted\">\u2026 and " << batch.end - batch.begin - batch.listed_records
           << " more rewrites in this batch, not listed.</p>\n";
    html << "</details>\n";
  }
  html << "</section>\n";
}

}  // namespace

std::string EscapeHtml(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&#39;"; break;
      default:
        if (byte < 0x20 || byte == 0x7F) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", byte);
          escaped += hex;
        } else {
          escaped += c;
        }
    }
  }
  return escaped;
}

std::map<NodeKey, std::string> IndexNodeNames(const GraphProto& graph) {
  std::map<NodeKey, std::string> names;
  VisitNodes({{&graph, {}}}, [&](NodeKey key, const NodeProto& node) { names[std::move(key)] = node.name(); });
  return names;
}


std::string RenderReportHtml(const HtmlReportInput& input, const HtmlReportLimits& limits) {
  std::vector<BatchView> batches = BuildBatches(*input.rewrites, input.original_names);
  ChooseListed(batches, limits);
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
       << "<title>onnxopt report: " << EscapeHtml(input.model) << "</title><style>" << kStyle << "</style><script>"
       << kScript << "</script></head>\n<body>\n<h1>onnxopt optimization report <span class=\"model\">"
       << EscapeHtml(input.model) << "</span></h1>\n<p class=\"lead\">patterns <code>" << EscapeHtml(input.patterns)
       << "</code>";
  if (!input.input_shapes.empty()) html << " \u00b7 input shapes <code>" << EscapeHtml(input.input_shapes) << "</code>";
  html << " \u00b7 " << input.report->iterations << " rounds \u00b7 " << input.rewrites->size()
       << " rewrites \u00b7 " << Milliseconds(input.report->TotalTimeNs()) << " \u00b7 sections: "
       << "<a href=\"#phases\">time</a>, <a href=\"#operators\">operators</a>, <a href=\"#patterns\">patterns</a>, "
       << "<a href=\"#batches\">batches</a></p>\n";
  SummarySection(html, input, batches.size());
  PhaseSection(html, *input.report);
  OperatorSection(html, input, limits);
  PatternSection(html, *input.report, limits);
  OtherSections(html, *input.report, limits);
  BatchSection(html, *input.rewrites, batches, limits);
  html << "</body></html>\n";
  return html.str();
}

}  // namespace onnxopt::core::builder
