#include "onnx_core/optimizer/report.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "onnx_core/common/json_writer.h"

namespace onnxopt::core::builder {

namespace {

std::string Milliseconds(std::int64_t ns) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f ms", static_cast<double>(ns) / 1e6);
  return buffer;
}

// Appends an indented table cell: "  label" padded to `width` columns.
void AppendCell(std::string& text, std::string_view label, std::size_t width) {
  text += "  ";
  text += label;
  if (label.size() < width) text.append(width - label.size(), ' ');
}

}  // namespace

std::int64_t OptimizationReport::TotalTimeNs() const {
  return matching_time_ns + rewriting_time_ns + cleanup_time_ns + constant_folding_time_ns +
         shape_inference_time_ns + indexing_time_ns + subgraph_optimization_time_ns + passes_time_ns;
}

void PhaseNodes::Add(const PhaseNodes& other) {
  indexing += other.indexing;
  matching += other.matching;
  rewriting += other.rewriting;
  shape_inference += other.shape_inference;
  constant_folding += other.constant_folding;
  cleanup += other.cleanup;
  graph_passes += other.graph_passes;
}

PatternStats& OptimizationReport::Pattern(const std::string& name, int priority) {
  auto it = std::find_if(patterns.begin(), patterns.end(), [&](const PatternStats& s) { return s.name == name; });
  if (it != patterns.end()) return *it;
  PatternStats& stats = patterns.emplace_back();
  stats.name = name;
  stats.priority = priority;
  return stats;
}

CleanupStats& OptimizationReport::Cleanup(const std::string& name) {
  auto it = std::find_if(cleanup.begin(), cleanup.end(), [&](const CleanupStats& s) { return s.name == name; });
  if (it != cleanup.end()) return *it;
  CleanupStats& stats = cleanup.emplace_back();
  stats.name = name;
  return stats;
}

PassStats& OptimizationReport::Pass(const std::string& name, std::string_view stage) {
  auto it = std::find_if(passes.begin(), passes.end(), [&](const PassStats& s) { return s.name == name; });
  if (it != passes.end()) return *it;
  PassStats& stats = passes.emplace_back();
  stats.name = name;
  stats.stage = stage;
  return stats;
}

void OptimizationReport::AddNoMatch(const std::string& pattern, const char* file, unsigned line,
                                    std::string_view reason) {
  ++no_match_counts_[{pattern, file, line, std::string(reason)}];
}

void OptimizationReport::MergeCounters(const OptimizationReport& nested) {
  iterations += nested.iterations;
  rewrites += nested.rewrites;
  nodes_visited.Add(nested.nodes_visited);
  reached_max_iter = reached_max_iter || nested.reached_max_iter;
  for (const PatternStats& stats : nested.patterns) {
    PatternStats& mine = Pattern(stats.name, stats.priority);
    mine.match_calls += stats.match_calls;
    mine.matched += stats.matched;
    mine.applied += stats.applied;
    mine.refused += stats.refused;
    mine.match_time_ns += stats.match_time_ns;
    mine.apply_time_ns += stats.apply_time_ns;
    mine.removed_nodes += stats.removed_nodes;
    mine.added_nodes += stats.added_nodes;
  }
  for (const CleanupStats& stats : nested.cleanup) {
    CleanupStats& mine = Cleanup(stats.name);
    mine.runs += stats.runs;
    mine.removed_nodes += stats.removed_nodes;
    mine.removed_initializers += stats.removed_initializers;
    mine.renames += stats.renames;
    mine.removed_functions += stats.removed_functions;
  }
  for (const PassStats& stats : nested.passes) {
    PassStats& mine = Pass(stats.name, stats.stage);
    mine.runs += stats.runs;
    mine.changed += stats.changed;
    mine.time_ns += stats.time_ns;
    mine.removed_nodes += stats.removed_nodes;
    mine.added_nodes += stats.added_nodes;
    for (const auto& [name, count] : stats.counters) mine.counters[name] += count;
  }
  for (const auto& [key, count] : nested.no_match_counts_) no_match_counts_[key] += count;
  subgraphs.insert(subgraphs.end(), nested.subgraphs.begin(), nested.subgraphs.end());
  AddNotFolded(nested.not_folded);
  for (const std::string& refusal : nested.refused_rewrites) AddRefused(refusal);
}

void OptimizationReport::AddNotFolded(const std::vector<std::string>& skipped) {
  for (const std::string& line : skipped)
    if (not_folded_seen_.insert(line).second) not_folded.push_back(line);
}

void OptimizationReport::AddRefused(const std::string& refusal) {
  if (refused_seen_.insert(refusal).second) refused_rewrites.push_back(refusal);
}

void OptimizationReport::SortNoMatches() {
  no_matches.clear();
  for (const auto& [key, count] : no_match_counts_) {
    const auto& [pattern, file, line, reason] = key;
    no_matches.push_back(NoMatchStats{pattern, file, line, reason, count});
  }
  std::stable_sort(no_matches.begin(), no_matches.end(),
                   [](const NoMatchStats& a, const NoMatchStats& b) { return a.count > b.count; });
}

std::string OptimizationReport::ToString() const {
  std::string text;
  text += "optimization: " + std::to_string(nodes_before) + " -> " + std::to_string(nodes_after) + " nodes, " +
          std::to_string(iterations) + " iterations, " + std::to_string(rewrites) + " rewrites, " +
          Milliseconds(TotalTimeNs()) + "\n";
  if (reached_max_iter)
    text += "  stopped at the iteration bound (max_iter = " + std::to_string(max_iter) +
            ") before convergence: a pattern may keep matching its own output\n";
  text += "time per phase and nodes visited:\n";
  struct Phase {
    const char* name;
    std::int64_t ns;
    const std::size_t* nodes;  // null: the nested graphs' visits are in the other phases
  };
  const Phase phases[] = {{"graph passes", passes_time_ns, &nodes_visited.graph_passes},
                          {"indexing", indexing_time_ns, &nodes_visited.indexing},
                          {"matching", matching_time_ns, &nodes_visited.matching},
                          {"rewriting", rewriting_time_ns, &nodes_visited.rewriting},
                          {"shape inference", shape_inference_time_ns, &nodes_visited.shape_inference},
                          {"constant folding", constant_folding_time_ns, &nodes_visited.constant_folding},
                          {"cleanup", cleanup_time_ns, &nodes_visited.cleanup},
                          {"subgraphs", subgraph_optimization_time_ns, nullptr}};
  for (const Phase& phase : phases) {
    AppendCell(text, phase.name, 18);
    const std::string time = Milliseconds(phase.ns);
    text += time;
    if (phase.nodes) {
      constexpr std::size_t kTimeWidth = 12;  // the counts line up in a column
      text.append(time.size() < kTimeWidth ? kTimeWidth - time.size() : 1, ' ');
      text += std::to_string(*phase.nodes) + " nodes";
    }
    text += "\n";
  }
  bool any_pattern = false;
  for (const PatternStats& stats : patterns) {
    if (!any_pattern) text += "patterns (priority, tried, matched, applied, -nodes, +nodes, match time, apply time):\n";
    any_pattern = true;
    AppendCell(text, stats.name, 36);
    text += std::to_string(stats.priority) + ", " + std::to_string(stats.match_calls) +
            ", " + std::to_string(stats.matched) + ", " + std::to_string(stats.applied) + ", " +
            std::to_string(stats.removed_nodes) + ", " + std::to_string(stats.added_nodes) + ", " +
            Milliseconds(stats.match_time_ns) + ", " + Milliseconds(stats.apply_time_ns) + "\n";
  }
  if (!passes.empty()) text += "graph passes (stage, runs, changed, -nodes, +nodes, time, counters):\n";
  for (const PassStats& stats : passes) {
    AppendCell(text, stats.name, 36);
    text += stats.stage + ", " + std::to_string(stats.runs) + ", " + std::to_string(stats.changed) + ", " +
            std::to_string(stats.removed_nodes) + ", " + std::to_string(stats.added_nodes) + ", " +
            Milliseconds(stats.time_ns);
    for (const auto& [name, count] : stats.counters) text += ", " + name + " " + std::to_string(count);
    text += "\n";
  }
  if (!cleanup.empty()) text += "cleanup and folding (runs, -nodes, -initializers, renames):\n";
  for (const CleanupStats& stats : cleanup) {
    AppendCell(text, stats.name, 36);
    text += std::to_string(stats.runs) + ", " + std::to_string(stats.removed_nodes) + ", " +
            std::to_string(stats.removed_initializers) + ", " + std::to_string(stats.renames);
    if (stats.removed_functions != 0) text += ", -" + std::to_string(stats.removed_functions) + " local functions";
    text += "\n";
  }
  if (!subgraphs.empty()) text += "subgraphs (time, iterations, rewrites):\n";
  for (const SubgraphStats& stats : subgraphs) {
    AppendCell(text, stats.path, 36);
    text += Milliseconds(stats.time_ns) + ", " + std::to_string(stats.iterations) + ", " + std::to_string(stats.rewrites) +
            "\n";
  }
  if (!not_folded.empty()) text += "constants not folded (" + std::to_string(not_folded.size()) + "):\n";
  for (const std::string& line : not_folded) text += "  " + line + "\n";
  if (!refused_rewrites.empty())
    text += "rewrites refused, a replacement node is not valid in the model (" +
            std::to_string(refused_rewrites.size()) + "):\n";
  for (const std::string& line : refused_rewrites) text += "  " + line + "\n";
  if (!no_matches.empty()) text += "rejected candidates (count, pattern, reason, where):\n";
  for (const NoMatchStats& stats : no_matches) {
    std::string file = stats.file;
    if (const std::size_t slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
    text += "  " + std::to_string(stats.count) + "  " + stats.pattern + ": " + stats.reason + " (" + file + ":" +
            std::to_string(stats.line) + ")\n";
  }
  return text;
}

std::string OptimizationReport::ToJson(const ir::InputShapeSettings& input_shapes) const {
  JsonWriter json;
  json.BeginObject();
  json.Key("format").String("onnxopt-optimization-report").Key("version").Int(1);
  json.Key("nodes_before").Int(static_cast<std::int64_t>(nodes_before));
  json.Key("nodes_after").Int(static_cast<std::int64_t>(nodes_after));
  json.Key("iterations").Int(static_cast<std::int64_t>(iterations));
  json.Key("max_iter").Int(max_iter);
  json.Key("reached_max_iter").Bool(reached_max_iter);
  json.Key("rewrites").Int(static_cast<std::int64_t>(rewrites));
  json.Key("time_ns").BeginObject();
  json.Key("total").Int(TotalTimeNs());
  json.Key("indexing").Int(indexing_time_ns);
  json.Key("matching").Int(matching_time_ns);
  json.Key("rewriting").Int(rewriting_time_ns);
  json.Key("shape_inference").Int(shape_inference_time_ns);
  json.Key("constant_folding").Int(constant_folding_time_ns);
  json.Key("cleanup").Int(cleanup_time_ns);
  json.Key("subgraphs").Int(subgraph_optimization_time_ns);
  json.Key("graph_passes").Int(passes_time_ns);
  json.EndObject();
  json.Key("nodes_visited").BeginObject();
  json.Key("total").Int(static_cast<std::int64_t>(nodes_visited.Total()));
  json.Key("indexing").Int(static_cast<std::int64_t>(nodes_visited.indexing));
  json.Key("matching").Int(static_cast<std::int64_t>(nodes_visited.matching));
  json.Key("rewriting").Int(static_cast<std::int64_t>(nodes_visited.rewriting));
  json.Key("shape_inference").Int(static_cast<std::int64_t>(nodes_visited.shape_inference));
  json.Key("constant_folding").Int(static_cast<std::int64_t>(nodes_visited.constant_folding));
  json.Key("cleanup").Int(static_cast<std::int64_t>(nodes_visited.cleanup));
  json.Key("graph_passes").Int(static_cast<std::int64_t>(nodes_visited.graph_passes));
  json.EndObject();
  json.Key("patterns").BeginArray();
  for (const PatternStats& stats : patterns) {
    json.BeginObject();
    json.Key("name").String(stats.name).Key("priority").Int(stats.priority);
    json.Key("match_calls").Int(static_cast<std::int64_t>(stats.match_calls));
    json.Key("matched").Int(static_cast<std::int64_t>(stats.matched));
    json.Key("applied").Int(static_cast<std::int64_t>(stats.applied));
    json.Key("refused").Int(static_cast<std::int64_t>(stats.refused));
    json.Key("removed_nodes").Int(static_cast<std::int64_t>(stats.removed_nodes));
    json.Key("added_nodes").Int(static_cast<std::int64_t>(stats.added_nodes));
    json.Key("match_time_ns").Int(stats.match_time_ns).Key("apply_time_ns").Int(stats.apply_time_ns);
    json.EndObject();
  }
  json.EndArray();
  json.Key("passes").BeginArray();
  for (const PassStats& stats : passes) {
    json.BeginObject();
    json.Key("name").String(stats.name).Key("stage").String(stats.stage);
    json.Key("runs").Int(static_cast<std::int64_t>(stats.runs));
    json.Key("changed").Int(static_cast<std::int64_t>(stats.changed));
    json.Key("removed_nodes").Int(static_cast<std::int64_t>(stats.removed_nodes));
    json.Key("added_nodes").Int(static_cast<std::int64_t>(stats.added_nodes));
    json.Key("time_ns").Int(stats.time_ns);
    json.Key("counters").BeginObject();
    for (const auto& [name, count] : stats.counters) json.Key(name).Int(count);
    json.EndObject();
    json.EndObject();
  }
  json.EndArray();
  json.Key("cleanup").BeginArray();
  for (const CleanupStats& stats : cleanup) {
    json.BeginObject();
    json.Key("name").String(stats.name).Key("runs").Int(static_cast<std::int64_t>(stats.runs));
    json.Key("removed_nodes").Int(static_cast<std::int64_t>(stats.removed_nodes));
    json.Key("removed_initializers").Int(static_cast<std::int64_t>(stats.removed_initializers));
    json.Key("renames").Int(static_cast<std::int64_t>(stats.renames));
    json.Key("removed_functions").Int(static_cast<std::int64_t>(stats.removed_functions));
    json.EndObject();
  }
  json.EndArray();
  json.Key("subgraphs").BeginArray();
  for (const SubgraphStats& stats : subgraphs) {
    json.BeginObject();
    json.Key("path").String(stats.path).Key("time_ns").Int(stats.time_ns);
    json.Key("iterations").Int(static_cast<std::int64_t>(stats.iterations));
    json.Key("rewrites").Int(static_cast<std::int64_t>(stats.rewrites));
    json.EndObject();
  }
  json.EndArray();
  json.Key("not_folded").BeginArray();
  for (const std::string& line : not_folded) json.String(line);
  json.EndArray();
  json.Key("refused_rewrites").BeginArray();
  for (const std::string& line : refused_rewrites) json.String(line);
  json.EndArray();
  json.Key("no_matches").BeginArray();
  for (const NoMatchStats& stats : no_matches) {
    json.BeginObject();
    json.Key("pattern").String(stats.pattern).Key("reason").String(stats.reason);
    json.Key("file").String(stats.file).Key("line").Int(stats.line);
    json.Key("count").Int(static_cast<std::int64_t>(stats.count));
    json.EndObject();
  }
  json.EndArray();
  json.Key("input_shapes").BeginObject();
  for (const auto& [name, dims] : input_shapes.input_shapes) {
    json.Key(name).BeginArray();
    for (std::int64_t dim : dims) json.Int(dim);
    json.EndArray();
  }
  json.EndObject();
  json.Key("dims").BeginObject();
  for (const auto& [symbol, value] : input_shapes.dims) json.Key(symbol).Int(value);
  json.EndObject();
  json.EndObject();
  return json.Text() + "\n";
}

}  // namespace onnxopt::core::builder
