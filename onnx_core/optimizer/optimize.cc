// GraphGraph::Optimize: the match/apply loop, its batches and their records.

#include <algorithm>
#include <array>
#include <climits>
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "onnx_core/passes/cleanup.h"
#include "onnx_core/passes/constant_folding.h"
#include "onnx_core/shapes/type_constraints.h"
#include "onnx_core/common/environment.h"
#include "onnx_core/common/error.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/local_functions.h"
#include "onnx_core/ir/op_schema.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/batch_cleanup.h"
#include "onnx_core/optimizer/graph_pass.h"
#include "onnx_core/optimizer/match_cache.h"
#include "onnx_core/optimizer/pattern_alternatives.h"

namespace onnxopt::core::builder {

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t Since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

std::string Describe(const NodeProto& node) {
  std::string text = node.op_type();
  if (!node.name().empty()) text += " '" + node.name() + "'";
  if (node.output_size() > 0) text += " (output '" + node.output(0) + "')";
  return text;
}

// The operations that are not patterns, shared by every record they produce.
std::shared_ptr<const PatternOptimization> Operation(const std::string& name) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::shared_ptr<const PatternOptimization>> operations;
  std::lock_guard lock(mutex);
  auto& operation = operations[name];
  if (!operation) operation = std::make_shared<NamedOperation>(name);
  return operation;
}

// Positions (in `before`) of the elements that are not in `after`, where `after` keeps a
// subsequence of `before`'s elements in order, possibly followed by new ones (passes
// delete and modify in place; folding appends initializers): one merge-like walk.
template <class T>
std::vector<std::size_t> MissingPositions(const std::vector<const T*>& before, const utils::RepeatedProtoField<T>& after) {
  std::vector<std::size_t> missing;
  int next = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (next < after.size() && &after.Get(next) == before[i])
      ++next;
    else
      missing.push_back(i);
  }
  return missing;
}

// The nodes to fold among those a rewrite added: identities are left to the cleanup, which
// removes them without copying a tensor, except one that writes a graph output and reads an
// initializer or another graph output. The cleanup keeps that one (no producer can take
// the name over) and the folding before the loop folds it: folded here too, the result
// does not depend on when the Identity appeared (optimizing the optimized model again
// changes nothing).
std::vector<const NodeProto*> WithoutIdentities(const GraphBuilder& builder,
                                                const std::vector<const NodeProto*>& nodes) {
  const auto kept_by_cleanup = [&](const NodeProto& identity) {
    return identity.input_size() == 1 && identity.output_size() == 1 && builder.IsGraphOutput(identity.output(0)) &&
           (builder.Initializer(identity.input(0)) != nullptr || builder.IsGraphOutput(identity.input(0)));
  };
  std::vector<const NodeProto*> kept;
  for (const NodeProto* node : nodes)
    if (node->op_type() != "Identity" || !IsOnnxDomain(node->domain()) || kept_by_cleanup(*node)) kept.push_back(node);
  return kept;
}

template <class T>
std::vector<const T*> Addresses(const utils::RepeatedProtoField<T>& field) {
  std::vector<const T*> addresses;
  addresses.reserve(static_cast<std::size_t>(field.size()));
  for (const T& element : field) addresses.push_back(&element);
  return addresses;
}

// The serialized content of nodes, one buffer for all (a snapshot of a large graph would
// otherwise allocate a string per node): what a graph pass may have edited in place.
class SerializedNodes {
 public:
  explicit SerializedNodes(const std::vector<const NodeProto*>& nodes) {
    ends_.reserve(nodes.size());
    for (const NodeProto* node : nodes) {
      node->AppendToString(&bytes_);
      ends_.push_back(bytes_.size());
    }
  }
  std::string_view Of(std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(bytes_).substr(begin, ends_[i] - begin);
  }

 private:
  std::string bytes_;
  std::vector<std::size_t> ends_;
};

}  // namespace

// One Optimize call over one graph (nested graphs get their own driver).
class GraphGraph::Driver {
  struct PatternClasses;

 public:
  // `classes`: the classification of the patterns when the caller has it (a nested graph's
  // optimizer has exactly its parent's patterns); null to compute it.
  Driver(GraphGraph& graph, OptimizationReport& report, std::vector<LocalRewriting>& records, std::size_t& batch,
         std::shared_ptr<const PatternClasses> classes = nullptr)
      : g_(graph),
        report_(report),
        records_(records),
        batch_(batch),
        classes_(classes ? std::move(classes) : Classify(graph.patterns_)),
        // ONNXOPT_INCREMENTAL=0 turns incremental matching (match_cache.h) off, to compare;
        // ONNXOPT_CHECK_INCREMENTAL=1 also tries the nodes it skips and fails on a match.
        incremental_(EnvironmentFlag("ONNXOPT_INCREMENTAL", true)),
        check_incremental_(EnvironmentFlag("ONNXOPT_CHECK_INCREMENTAL", false)) {}

  void Run(int max_iter) {
    GraphBuilder& builder = g_.builder_;
    report_.nodes_before += static_cast<std::size_t>(builder.Nodes().size());
    if (builder.IsRoot() && !classes_->stages[StageIndex(OptimizationStage::kBeforeShapeInference)].Empty()) {
      // On the graph as loaded: shapes inferred earlier by the caller describe a graph the
      // stage may change, so they are inferred again after it.
      const bool had_shapes = builder.Shapes() != nullptr;
      const std::size_t first_record = records_.size();
      RunStage(OptimizationStage::kBeforeShapeInference, max_iter);
      RunBeforeShapeInferenceInSubgraphs(max_iter);
      if (had_shapes && records_.size() != first_record) InferAllShapes();
    }
    if (builder.IsRoot() && !builder.Shapes()) InferAllShapes();
    OptimizeSubgraphs();
    if (g_.options_.fold_constants_first) FoldAll();
    Cleanup();
    if (check_incremental_) CheckShapesAgainstFreshInference();
    for (OptimizationStage stage :
         {OptimizationStage::kMain, OptimizationStage::kAfterPatterns, OptimizationStage::kFinal})
      RunStage(stage, max_iter);
    report_.nodes_after += static_cast<std::size_t>(builder.Nodes().size());
  }

 private:
  // The patterns and passes of one stage, as indices into g_.patterns_ (driver order).
  struct Stage {
    std::vector<std::size_t> passes, patterns;
    bool Empty() const { return passes.empty() && patterns.empty(); }
  };
  static constexpr std::size_t kStages = 4;
  // The cleanup after a batch looks only around it when the batch changes (removes or adds)
  // at most 1/kLocalCleanupShare of the graph's nodes. Looking around costs several times
  // more per changed node than a whole-graph pass per node (bench/RESULTS-incremental.md:
  // about 10 000 instructions per changed node against 1 200 per node and pass, at 400
  // layers): the decoder's batches, which change 10 to 35 % of the graph, are cleaned no
  // faster locally, a batch that changes a few nodes of a large graph much faster.
  static constexpr std::size_t kLocalCleanupShare = 8;
  static std::size_t StageIndex(OptimizationStage stage) { return static_cast<std::size_t>(stage); }

  // The patterns and passes of each stage and the op types of each pattern, for one
  // pattern list. Computed once and shared with the drivers of the nested graphs: asking
  // every pattern for its op types cost more than optimizing a small branch.
  struct PatternClasses {
    std::array<Stage, kStages> stages;
    std::vector<std::set<std::string>> fast_op_types;  // by index into the pattern list
  };

  static std::shared_ptr<const PatternClasses> Classify(
      const std::vector<std::shared_ptr<const PatternOptimization>>& patterns) {
    auto classes = std::make_shared<PatternClasses>();
    for (std::size_t p = 0; p < patterns.size(); ++p) {
      const PatternOptimization& pattern = *patterns[p];
      const std::size_t stage = StageIndex(pattern.Stage());
      if (stage >= kStages) throw BuilderError(pattern.Name() + ": unknown optimization stage");
      if (dynamic_cast<const GraphPass*>(&pattern))
        classes->stages[stage].passes.push_back(p);
      else
        classes->stages[stage].patterns.push_back(p);
      classes->fast_op_types.push_back(pattern.FastOpType());
    }
    return classes;
  }

  // The stage's passes, then its match/apply loop. `max_iter` (< 0: the default) bounds the
  // iterations of each stage's loop. A pass whose RunAgainAfterAdding names an op type the
  // loop added runs again, then the loop again if the pass changed something: at most
  // kStageRounds rounds (a pass and a pattern that undo each other cannot loop forever).
  void RunStage(OptimizationStage stage, int max_iter) {
    const Stage& members = classes_->stages[StageIndex(stage)];
    for (std::size_t p : members.passes) RunPass(p);
    if (members.patterns.empty()) return;
    std::vector<std::set<std::string>> pass_wake_on;  // by position in members.passes
    wake_on_.clear();
    for (std::size_t p : members.passes) {
      pass_wake_on.push_back(static_cast<const GraphPass&>(*g_.patterns_[p]).RunAgainAfterAdding());
      wake_on_.insert(pass_wake_on.back().begin(), pass_wake_on.back().end());
    }
    for (int round = 1;; ++round) {
      added_op_types_.clear();
      MatchApplyLoop(members.patterns, max_iter);
      if (round == kStageRounds || added_op_types_.empty()) return;
      const std::size_t records_before = records_.size();
      for (std::size_t i = 0; i < members.passes.size(); ++i)
        if (std::any_of(pass_wake_on[i].begin(), pass_wake_on[i].end(),
                        [&](const std::string& op) { return added_op_types_.contains(op); }))
          RunPass(members.passes[i]);
      if (records_.size() == records_before) return;
    }
  }
  static constexpr int kStageRounds = 3;

  void MatchApplyLoop(const std::vector<std::size_t>& members, int max_iter) {
    GraphBuilder& builder = g_.builder_;
    std::vector<int> priorities;
    for (std::size_t p : members) priorities.push_back(g_.patterns_[p]->priority);
    std::sort(priorities.begin(), priorities.end());
    priorities.erase(std::unique(priorities.begin(), priorities.end()), priorities.end());
    if (max_iter < 0)
      max_iter = static_cast<int>(std::max<std::size_t>(static_cast<std::size_t>(builder.Nodes().size()), 10) *
                                  priorities.size());
    if (builder.IsRoot()) report_.max_iter = std::max(report_.max_iter, max_iter);

    // Incremental matching: a node on which nothing matched is tried again only after
    // something its patterns looked at changed.
    std::optional<MatchCache> cache;
    if (incremental_) cache.emplace(check_incremental_, NodeCount());
    changes_.Clear();

    std::size_t level = 0;
    bool changed = true;  // by the last iteration
    for (int iteration = 0;;) {
      if (iteration >= max_iter) {
        report_.reached_max_iter = true;
        break;
      }
      ++iteration;
      ++report_.iterations;
      if (g_.options_.progress) {
        const std::string where = builder.IsRoot() ? "" : builder.PathString() + ": ";
        g_.options_.progress(where + "iteration " + std::to_string(iteration) + ", " +
                             std::to_string(builder.Nodes().size()) + " nodes");
      }
      RefreshIndex();
      for (std::string& name : builder.TakeRefinedValues()) changes_.refined.push_back(std::move(name));
      if (cache && changed) {
        const auto start = Clock::now();
        cache->Update(g_, changes_);
        report_.nodes_visited.indexing += NodeCount();  // the comparison with the snapshot
        changes_.Clear();
        report_.indexing_time_ns += Since(start);
      }
      // When the previous iteration applied nothing, the graph is the same: the patterns it
      // tried would find nothing to apply again (Match only reads the graph), so only those
      // of the new priority run.
      const int tried = level > 0 && !changed ? priorities[level - 1] : INT_MIN;
      std::vector<Found> found = MatchAll(members, priorities[level], tried, cache ? &*cache : nullptr);
      if (found.empty()) {
        if (level + 1 == priorities.size()) break;
        ++level;
        changed = false;
        continue;
      }
      // A batch whose every replacement was refused changed nothing; the next iteration
      // tries the same patterns again, without the refused matches, so that the matches
      // they overlapped can be claimed.
      if (std::optional<BatchFootprint> footprint = ApplyAll(found)) Cleanup(&*footprint);
      if (check_incremental_) CheckShapesAgainstFreshInference();
      changed = true;
    }
  }

  // ONNXOPT_CHECK_INCREMENTAL: the shapes inferred node by node as batches added nodes
  // must know what inference of the whole graph from scratch knows.
  void CheckShapesAgainstFreshInference() const {
    const std::vector<std::string> less_known = g_.builder_.LessKnownThanFreshInference();
    if (less_known.empty()) return;
    std::string message = "incremental shape inference: " + std::to_string(less_known.size()) +
                          " value(s) know less than inference from scratch (ONNXOPT_CHECK_INCREMENTAL)";
    for (std::size_t i = 0; i < less_known.size() && i < 5; ++i) message += "\n  " + less_known[i];
    throw BuilderError(message);
  }

  void RefreshIndex() {
    if (!g_.index_stale_) return;
    const auto start = Clock::now();
    g_.BuildIndex();
    report_.nodes_visited.indexing += NodeCount();
    report_.indexing_time_ns += Since(start);
  }

  void InferAllShapes() {
    const auto start = Clock::now();
    g_.builder_.InferShapes();
    report_.nodes_visited.shape_inference += NodeCount();
    report_.shape_inference_time_ns += Since(start);
  }

  std::size_t NodeCount() const { return static_cast<std::size_t>(g_.builder_.Nodes().size()); }

  struct Found {
    MatchResult match;
    const std::shared_ptr<const PatternOptimization>* pattern;
    std::int64_t match_time_ns;
    const NodeProto* candidate;  // the node Match was called on
  };

  // Runs `visit(driver, subgraph)` with a driver of each graph nested in this one, which is
  // not edited meanwhile (its constants are indexed once for all of them), and reports the
  // SubgraphStats it returns after the nested graph's own (the report lists the innermost
  // first); false when there is none. Nested graphs may read fewer outer values afterwards:
  // the index is rebuilt.
  template <class Visit>
  bool ForEachSubgraph(Visit visit) {
    std::vector<GraphBuilder*> nested = g_.builder_.Subgraphs();
    if (nested.empty()) return false;
    const EnclosingConstants enclosing_constants(g_.builder_, g_.enclosing_constants_);
    for (GraphBuilder* subgraph : nested) {
      GraphGraph child(*subgraph, g_);
      child.enclosing_constants_ = &enclosing_constants;
      OptimizationReport child_report;
      Driver driver(child, child_report, records_, batch_, classes_);
      std::optional<SubgraphStats> stats = visit(driver, *subgraph);
      report_.MergeCounters(child_report);
      if (stats) report_.subgraphs.push_back(std::move(*stats));
    }
    g_.index_stale_ = true;
    graph_clean_ = false;
    return true;
  }

  // The kBeforeShapeInference stage in the graphs nested in this one, depth first, while
  // no shape is inferred yet (the main graph's Run calls it after the stage's own run): the
  // later stages reach nested graphs through OptimizeSubgraphs, once shapes are known.
  void RunBeforeShapeInferenceInSubgraphs(int max_iter) {
    ForEachSubgraph([max_iter](Driver& driver, const GraphBuilder&) -> std::optional<SubgraphStats> {
      driver.RunStage(OptimizationStage::kBeforeShapeInference, max_iter);
      driver.RunBeforeShapeInferenceInSubgraphs(max_iter);
      return std::nullopt;
    });
  }

  void OptimizeSubgraphs() {
    const auto start = Clock::now();
    const bool any = ForEachSubgraph([this](Driver& driver, const GraphBuilder& subgraph) {
      const std::size_t first_record = records_.size();
      const auto child_start = Clock::now();
      driver.Run(-1);
      return std::optional<SubgraphStats>(SubgraphStats{subgraph.PathString(), Since(child_start),
                                                        driver.report_.iterations, records_.size() - first_record});
    });
    if (any) report_.subgraph_optimization_time_ns += Since(start);
  }

  // --- Matching -------------------------------------------------------------------------

  // A pattern's turn at a candidate node in one round.
  struct Turn {
    enum class Kind : std::uint8_t {
      kMatched,
      kNoMatch,
      kLeftOut,  // a match of an earlier pattern included the node: Match when the turn comes
      kClean,    // the cache knows the node clean (noted only for ONNXOPT_CHECK_INCREMENTAL)
    };
    static constexpr std::uint32_t kNoResult = UINT32_MAX;
    std::uint32_t position = 0;
    std::uint32_t pattern = 0;  // index into the round
    // What Match returned, by index into Turns::results: every match, and the reason of a
    // rejection when the report collects them.
    std::uint32_t result = kNoResult;
    Kind kind = Kind::kClean;
    std::int64_t time_ns = 0;  // of the Match call
  };
  struct Turns {
    // Pattern after pattern (in the round's order), each pattern's in graph order: those of
    // the round's pattern r are [first[r], first[r + 1]).
    std::vector<Turn> turns;
    std::vector<std::size_t> first;
    std::vector<MatchResult> results;
  };

  // Matches the `members` (indices into g_.patterns_) of priority in (tried, threshold].
  // With a cache, nodes it knows clean are skipped and what each Match reads is noted.
  //
  // The matches are claimed pattern by pattern, in driver order, each pattern's in graph
  // order: a node an earlier claim took is not offered to later patterns. The Match calls
  // themselves are made beforehand, node after node (TakeTurns), so that a node, its
  // neighbours and their entries in the index are still in the memory caches for the next
  // pattern; one walk of the graph per pattern missed the caches on every call once the
  // graph outgrew them (bench/RESULTS-incremental.md). Match only reads the graph, so a call
  // returns the same in either order.
  std::vector<Found> MatchAll(const std::vector<std::size_t>& members, int threshold, int tried, MatchCache* cache) {
    const auto start = Clock::now();
    const auto& nodes = g_.builder_.Nodes();
    std::vector<std::size_t> round;  // the patterns of this round, in driver order
    for (std::size_t p : members) {
      const int priority = g_.patterns_[p]->priority;
      if (priority <= threshold && priority > tried) round.push_back(p);
    }
    Turns turns = TakeTurns(round, cache);
    std::vector<Found> found;
    NodeSet marked;
    for (std::size_t r = 0; r < round.size(); ++r) {
      const auto& pattern = g_.patterns_[round[r]];
      PatternStats& stats = StatsOf(round[r]);
      for (std::size_t t = turns.first[r]; t < turns.first[r + 1]; ++t) {
        Turn& turn = turns.turns[t];
        const NodeProto* candidate = &nodes.Get(static_cast<int>(turn.position));
        if (marked.contains(candidate)) {
          stats.match_time_ns += turn.time_ns;
          continue;
        }
        if (turn.kind == Turn::Kind::kClean) {
          CheckSkipped(*pattern, *candidate);
          continue;
        }
        if (turn.kind == Turn::Kind::kLeftOut) {  // that earlier match was not claimed
          auto since = Clock::now();
          turn = Try(*pattern, turn.position, cache, since, turns.results);
        }
        stats.match_time_ns += turn.time_ns;
        ++stats.match_calls;
        ++report_.nodes_visited.matching;
        if (turn.kind == Turn::Kind::kNoMatch) {
          if (turn.result != Turn::kNoResult) {
            const NoMatchReason& why = turns.results[turn.result].no_match;
            report_.AddNoMatch(pattern->Name(), why.FileName(), why.Line(), why.reason);
          }
          continue;
        }
        MatchResult& match = turns.results[turn.result];
        // The pattern that matched: `pattern`, or one of its alternatives (pattern_alternatives.h),
        // which the record and Apply then use.
        const std::shared_ptr<const PatternOptimization>* matched = &pattern;
        if (match.pattern != pattern.get()) {
          const auto* group = dynamic_cast<const PatternAlternatives*>(pattern.get());
          matched = group ? group->FindAlternative(*match.pattern) : nullptr;
          if (!matched) throw BuilderError(pattern->Name() + "::Match returned a result of another pattern");
        }
        ++stats.matched;
        if (cache) cache->Unclean(turn.position);
        if (WasRefused(*match.pattern, *candidate)) continue;
        if (!Claimable(**matched, match, marked)) continue;
        for (const NodeProto* node : match.nodes) {
          if (!node) continue;
          marked.insert(node);
          // Not tried by the later patterns: tried again next round (if the batch keeps it).
          if (cache) cache->Unclean(g_.Position(*node));
        }
        found.push_back(Found{std::move(match), matched, turn.time_ns, candidate});
      }
    }
    if (cache) cache->EndRound(threshold);
    report_.matching_time_ns += Since(start);
    return found;
  }

  // Tries the patterns `round` (indices into g_.patterns_, in driver order) on the nodes of
  // their op types, node after node. Leaves out the nodes the cache knows clean, and a
  // pattern's call on a node that a match of an earlier pattern includes: that node will
  // most likely be claimed before the pattern's turn. The same for a node that a match of
  // the same pattern includes: MatchAll tries such a node when its turn comes and it is not
  // claimed, and the first in graph order then claims the others (a match of k nodes that
  // any of them anchors, as k alike branches over one value, cost k calls, not two). The
  // walk goes from the last node to the first, because a match mostly includes nodes before
  // its root (the producers of its inputs): they are then known to be in a match when
  // their turn comes.
  Turns TakeTurns(const std::vector<std::size_t>& round, MatchCache* cache) {
    // The patterns (indices into `round`, ascending) tried on each node: those of its op
    // type, merged with those tried on every node; and the highest of their priorities (a
    // node the cache knows clean up to it is passed over whole: most are, after a round).
    struct PatternList {
      std::vector<std::uint32_t> patterns;
      int top_priority = INT_MIN;
    };
    PatternList on_every_node;
    std::unordered_map<std::string_view, PatternList, utils::StringHash> by_op_type;
    for (std::uint32_t r = 0; r < round.size(); ++r) {
      const std::set<std::string>& ops = classes_->fast_op_types[round[r]];
      if (ops.empty()) on_every_node.patterns.push_back(r);
      for (const std::string& op : ops)
        if (g_.by_op_type_.contains(op)) by_op_type[op].patterns.push_back(r);
    }
    auto top_priority = [&](const std::vector<std::uint32_t>& patterns) {
      int top = INT_MIN;
      for (std::uint32_t r : patterns) top = std::max(top, g_.patterns_[round[r]]->priority);
      return top;
    };
    on_every_node.top_priority = top_priority(on_every_node.patterns);
    const auto& nodes = g_.builder_.Nodes();
    std::vector<const PatternList*> patterns_at(static_cast<std::size_t>(nodes.size()), &on_every_node);
    for (auto& [op, list] : by_op_type) {
      std::vector<std::uint32_t>& patterns = list.patterns;
      const auto middle = static_cast<std::ptrdiff_t>(patterns.size());
      patterns.insert(patterns.end(), on_every_node.patterns.begin(), on_every_node.patterns.end());
      std::inplace_merge(patterns.begin(), patterns.begin() + middle, patterns.end());
      list.top_priority = top_priority(patterns);
      for (std::size_t position : g_.by_op_type_.at(op)) patterns_at[position] = &list;
    }

    std::vector<Turn> walked;  // in the order of the walk
    std::vector<MatchResult> results;
    // The first pattern (index into `round`) whose match includes the node, by position.
    std::vector<std::uint32_t> in_match_of(patterns_at.size(), UINT32_MAX);
    auto since = Clock::now();
    for (std::size_t position = patterns_at.size(); position-- > 0;) {
      const auto at = static_cast<std::uint32_t>(position);
      const PatternList& list = *patterns_at[position];
      if (cache && !check_incremental_ && cache->Clean(position, list.top_priority)) continue;
      for (std::uint32_t r : list.patterns) {
        const PatternOptimization& pattern = *g_.patterns_[round[r]];
        if (cache && cache->Clean(position, pattern.priority)) {
          if (check_incremental_) walked.push_back(Turn{.position = at, .pattern = r, .kind = Turn::Kind::kClean});
          continue;
        }
        if (r >= in_match_of[position]) {
          walked.push_back(Turn{.position = at, .pattern = r, .kind = Turn::Kind::kLeftOut});
          continue;
        }
        Turn& turn = walked.emplace_back(Try(pattern, position, cache, since, results));
        turn.pattern = r;
        if (turn.kind != Turn::Kind::kMatched) continue;
        for (const NodeProto* node : results[turn.result].nodes)
          if (node && g_.Contains(*node)) {
            std::uint32_t& first = in_match_of[g_.Position(*node)];
            first = std::min(first, r);
          }
      }
    }
    // Grouped by pattern, each group in graph order (the walk's order reversed).
    Turns turns;
    turns.first.assign(round.size() + 1, 0);
    for (const Turn& turn : walked) ++turns.first[turn.pattern + 1];
    for (std::size_t r = 0; r < round.size(); ++r) turns.first[r + 1] += turns.first[r];
    std::vector<std::size_t> next(turns.first.begin(), turns.first.end() - 1);
    turns.turns.resize(walked.size());
    for (auto it = walked.rbegin(); it != walked.rend(); ++it) turns.turns[next[it->pattern]++] = *it;
    turns.results = std::move(results);
    return turns;
  }

  // Calls `pattern`'s Match on the node at `position`, noting its reads in the cache, and
  // keeps its result in `results` when it is needed later. One clock read per call: its
  // time runs from `since` (the previous call's end), so that it includes the skipping and
  // bookkeeping between calls. Two reads per call were 35 600 reads of about 40 ns on the
  // 8-layer decoder: 2 to 3 % of its optimization.
  Turn Try(const PatternOptimization& pattern, std::size_t position, MatchCache* cache,
           std::chrono::steady_clock::time_point& since, std::vector<MatchResult>& results) {
    std::optional<ScopedReads> reads;
    if (cache) reads.emplace(cache->Reads(position));
    MatchResult match = pattern.Match(g_, g_.builder_.Nodes().Get(static_cast<int>(position)));
    reads.reset();
    const auto now = Clock::now();
    Turn turn{.position = static_cast<std::uint32_t>(position),
              .kind = match ? Turn::Kind::kMatched : Turn::Kind::kNoMatch,
              .time_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - since).count()};
    since = now;
    if (match || g_.options_.collect_no_match) {
      turn.result = static_cast<std::uint32_t>(results.size());
      results.push_back(std::move(match));
    }
    return turn;
  }

  // ONNXOPT_CHECK_INCREMENTAL: the cache skipped `node` for `pattern`; a match there means
  // the cache missed a change.
  void CheckSkipped(const PatternOptimization& pattern, const NodeProto& node) {
    if (pattern.Match(g_, node))
      throw BuilderError("incremental matching skipped " + Describe(node) + ", where " + pattern.Name() +
                         " matches: a change it depends on was not seen (ONNXOPT_CHECK_INCREMENTAL)");
  }

  // Whether no node of `match` is claimed already or protected. Nodes outside the graph
  // are a bug in the pattern.
  bool Claimable(const PatternOptimization& pattern, const MatchResult& match,
                 const NodeSet& marked) const {
    bool any = false, claimable = true;
    for (const NodeProto* node : match.nodes) {
      if (!node) continue;
      any = true;
      if (!g_.Contains(*node))
        throw BuilderError(pattern.Name() + "::Match returned a node that is not in the graph: " + Describe(*node));
      if (marked.contains(node) || g_.options_.do_not_remove(*node)) claimable = false;
    }
    if (!any) throw BuilderError(pattern.Name() + "::Match returned a match without nodes");
    if (match.insert_at && !g_.Contains(*match.insert_at))
      throw BuilderError(pattern.Name() + "::Match returned an insert_at node that is not in the graph");
    return claimable;
  }

  // --- Applying -------------------------------------------------------------------------

  struct Planned {
    const Found* found;
    std::vector<NodeProto*> added;  // owned until handed to the batch
    std::size_t anchor;             // position (before the batch) where `added` goes
    std::int64_t apply_time_ns;
    // Initializers Apply created (GraphGraph::MakeInitializer): [first, end) of the field.
    std::size_t first_initializer = 0, end_initializer = 0;
    // Local functions Apply added (GraphBuilder::GetOrAddFunction): [first, end) of the
    // model's functions.
    std::size_t first_function = 0, end_function = 0;
  };

  // Applies the matches `found` as one batch; returns what it changed, nothing when every
  // replacement was refused (RefusalOf). Matches are disjoint, but a replacement may read a
  // value produced outside its match, which another match of the batch removes or defines
  // again after it: the later of the two matches (in `found`'s order, so that the first
  // always goes through) then waits for the next round, and the batch is planned again
  // without it.
  std::optional<BatchFootprint> ApplyAll(std::vector<Found>& found) {
    for (;;) {
      std::vector<const Found*> waiting;
      std::optional<BatchFootprint> footprint = TryApplyAll(found, waiting);
      if (waiting.empty()) return footprint;
      std::erase_if(found, [&](const Found& f) { return std::find(waiting.begin(), waiting.end(), &f) != waiting.end(); });
    }
  }

  // ApplyAll's batch, unless a match must wait: then `waiting` lists it, with the matches
  // already refused (not to be asked and counted again), and nothing has changed.
  std::optional<BatchFootprint> TryApplyAll(std::vector<Found>& found, std::vector<const Found*>& waiting) {
    auto start = Clock::now();
    std::vector<Planned> planned;
    // Owns the replacement nodes until the batch takes them: an Apply that throws after
    // others returned leaks none of theirs.
    struct PlannedNodes {
      std::vector<Planned>& planned;
      bool handed_over = false;
      ~PlannedNodes() {
        if (handed_over) return;
        for (const Planned& plan : planned)
          for (NodeProto* node : plan.added) delete node;
      }
    } owner{planned};
    // Undoes what the Applies added to the builder (initializers, local functions) when one
    // of them, or the batch check, throws: a failed batch leaves the graph as it was
    // (opset imports a new function brought stay: an unused import changes nothing).
    struct AddedByApply {
      GraphBuilder& builder;
      const std::size_t initializers = static_cast<std::size_t>(builder.Initializers().size());
      const std::size_t functions = static_cast<std::size_t>(builder.Functions().size());
      bool committed = false;
      ~AddedByApply() {
        if (!committed) RemoveAdditions(builder, initializers, functions, "undoing a failed batch");
      }
    } added_by_apply{g_.builder_};
    BatchFootprint footprint;
    NodeSet& removed = footprint.removed;
    std::vector<const Found*> refused;
    for (const Found& f : found) {
      const auto apply_start = Clock::now();
      const auto first_initializer = static_cast<std::size_t>(g_.builder_.Initializers().size());
      const auto first_function = static_cast<std::size_t>(g_.builder_.Functions().size());
      utils::RepeatedProtoField<NodeProto> replacement = (*f.pattern)->Apply(g_, f.match.nodes);
      const std::int64_t elapsed = Since(apply_start);
      if (std::optional<std::string> refusal = RefusalOf(replacement)) {
        RemoveAdditions(g_.builder_, first_initializer, first_function, "undoing a refused rewrite");
        Refuse(f, *refusal);
        refused.push_back(&f);
        continue;
      }
      Planned& plan = planned.emplace_back(Planned{&f,
                                                   std::vector<NodeProto*>(static_cast<std::size_t>(replacement.size())),
                                                   0,
                                                   elapsed,
                                                   first_initializer,
                                                   static_cast<std::size_t>(g_.builder_.Initializers().size()),
                                                   first_function,
                                                   static_cast<std::size_t>(g_.builder_.Functions().size())});
      if (!replacement.empty()) replacement.ExtractSubrange(0, replacement.size(), plan.added.data());
      std::size_t anchor = SIZE_MAX;
      for (const NodeProto* node : f.match.nodes) {
        if (!node) continue;
        removed.insert(node);
        anchor = std::min(anchor, g_.Position(*node));
      }
      plan.anchor = f.match.insert_at ? g_.Position(*f.match.insert_at) : anchor;
    }
    if (planned.empty()) {
      report_.rewriting_time_ns += Since(start);
      return std::nullopt;
    }
    // Owns the added nodes from here on (an exception deletes them).
    BatchEdit edit;
    edit.label = "batch " + std::to_string(batch_ + 1);
    const std::size_t old_size = static_cast<std::size_t>(g_.builder_.Nodes().size());
    std::vector<std::size_t> new_position(old_size, SIZE_MAX);  // survivors
    std::vector<std::vector<std::size_t>> added_positions(planned.size());
    {
      std::vector<std::size_t> order(planned.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return planned[a].anchor < planned[b].anchor; });
      std::size_t total = 0;
      for (const Planned& plan : planned) total += plan.added.size();
      edit.added_nodes.reserve(total);  // the hand-over below cannot throw
      owner.handed_over = true;
      std::size_t next = 0, k = 0;
      for (std::size_t i = 0; i < old_size; ++i) {
        for (; k < order.size() && planned[order[k]].anchor == i; ++k)
          for (NodeProto* node : planned[order[k]].added) {
            added_positions[order[k]].push_back(next);
            edit.added_nodes.emplace_back(next++, node);
          }
        const NodeProto* node = &g_.builder_.Nodes().Get(static_cast<int>(i));
        if (removed.contains(node))
          edit.removed_nodes.push_back(i);
        else
          new_position[i] = next++;
      }
    }
    std::vector<std::size_t> later = CheckBatch(planned, removed, added_positions, new_position);
    if (!later.empty()) {  // the guards undo the Applies
      for (std::size_t p : later) waiting.push_back(planned[p].found);
      waiting.insert(waiting.end(), refused.begin(), refused.end());
      report_.rewriting_time_ns += Since(start);
      return std::nullopt;
    }
    // The shapes of the added nodes, inferred before the graph changes: a node that breaks
    // its operator's specification only with these shapes (a Reshape to another element
    // count, a Transpose whose perm does not fit the rank) is refused as RefusalOf refuses
    // a broken signature, and the rest of the batch waits for the next try.
    // The added nodes in their order after the batch: ApplyBatch hands these very nodes to
    // the graph (the builder's model has no arena: AddAllocated copies nothing).
    std::vector<AddedNode> added;
    for (std::size_t p = 0; p < planned.size(); ++p)
      for (std::size_t k = 0; k < planned[p].added.size(); ++k)
        added.push_back(AddedNode{added_positions[p][k], p, planned[p].added[k]});
    std::sort(added.begin(), added.end(),
              [](const AddedNode& a, const AddedNode& b) { return a.position < b.position; });
    std::vector<const NodeProto*> in_order;
    for (const AddedNode& node : added) in_order.push_back(node.node);
    report_.rewriting_time_ns += Since(start);
    const bool shapes_known = g_.builder_.Shapes() != nullptr;
    GraphBuilder::PendingShapes shapes_ahead;
    if (shapes_known) {
      start = Clock::now();
      shapes_ahead = g_.builder_.InferShapesAhead(in_order);
      report_.nodes_visited.shape_inference += in_order.size();
      report_.shape_inference_time_ns += Since(start);
      if (const std::optional<shapes::InvalidNodeAt>& invalid = shapes_ahead.invalid) {
        const Found& f = *planned[added[invalid->position].plan].found;
        Refuse(f, Describe(*in_order[invalid->position]) + ": " + invalid->error.Rule() + "; found " +
                      invalid->error.Found());
        waiting.push_back(&f);
        waiting.insert(waiting.end(), refused.begin(), refused.end());
        return std::nullopt;
      }
    }
    start = Clock::now();
    // ONNXOPT_CHECK_INCREMENTAL takes the local path for every batch, to check it.
    footprint.local = incremental_ && graph_clean_ &&
                      (check_incremental_ ||
                       (edit.removed_nodes.size() + edit.added_nodes.size()) * kLocalCleanupShare <= old_size);
    if (footprint.local) {
      std::vector<const NodeProto*> removed_nodes, added_nodes;
      for (const Planned& plan : planned) {
        for (const NodeProto* node : plan.found->match.nodes)
          if (node) removed_nodes.push_back(node);
        added_nodes.insert(added_nodes.end(), plan.added.begin(), plan.added.end());
      }
      footprint.duplicate_nodes = DuplicatesAfterBatch(IndexView(g_), removed_nodes, removed, added_nodes);
      // Moves the content out (Swap between heap-allocated messages exchanges pointers:
      // the strings the index views stay where they are); the batch deletes the husks.
      for (std::size_t position : edit.removed_nodes) {
        NodeProto* node = g_.builder_.Nodes().Mutable(static_cast<int>(position));
        if (node->GetArena() != nullptr) {  // a copy would move the strings: no local cleanup
          footprint.local = false;
          footprint.removed_content.clear();
          break;
        }
        footprint.removed_content.push_back(std::make_unique<NodeProto>());
        footprint.removed_content.back()->Swap(node);
      }
    }
    added_by_apply.committed = true;
    report_.rewriting_time_ns += Since(start);

    // The batch itself, then shapes and folding of what it added.
    start = Clock::now();
    ++batch_;
    const auto old_initializers = static_cast<std::size_t>(g_.builder_.Initializers().size());
    try {
      ApplyBatch(g_.builder_, edit);
    } catch (...) {
      // The graph as it was: the removed nodes get their content back.
      for (std::size_t i = 0; i < footprint.removed_content.size(); ++i)
        footprint.removed_content[i]->Swap(g_.builder_.Nodes().Mutable(static_cast<int>(edit.removed_nodes[i])));
      throw;
    }
    report_.nodes_visited.rewriting += old_size;
    g_.index_stale_ = true;
    report_.rewriting_time_ns += Since(start);

    std::unordered_map<std::string, std::size_t> plan_of_output;  // to attribute folded values
    for (const AddedNode& node : added) {
      changes_.nodes.insert(node.node);
      refused_.erase(node.node);  // a new node, perhaps at a removed one's address
      identities_possible_ = identities_possible_ || node.node->op_type() == "Identity";
      for (const std::string& output : node.node->output()) plan_of_output.emplace(output, node.plan);
      if (!wake_on_.empty() && IsOnnxDomain(node.node->domain()) && wake_on_.contains(node.node->op_type()))
        added_op_types_.insert(node.node->op_type());
    }
    // Before shape inference (OptimizationStage::kBeforeShapeInference) nothing is
    // inferred and nothing folds.
    start = Clock::now();
    if (shapes_known) g_.builder_.CommitShapes(std::move(shapes_ahead));
    report_.shape_inference_time_ns += Since(start);

    start = Clock::now();
    const std::vector<const NodeProto*> to_fold =
        shapes_known ? WithoutIdentities(g_.builder_, in_order) : std::vector<const NodeProto*>{};
    // What the candidates read, for the cleanup: folding deletes the nodes it folds.
    NameList candidate_inputs;
    std::vector<std::size_t> inputs_end;
    if (footprint.local)
      for (const NodeProto* node : to_fold) {
        for (const std::string& input : node->input()) candidate_inputs.Add(input);
        inputs_end.push_back(candidate_inputs.size());
      }
    const FoldResult folding = FoldNodes(g_.builder_, to_fold, g_.options_.fold, g_.enclosing_constants_,
                                          g_.evaluation_budget_.get());
    report_.nodes_visited.constant_folding += to_fold.size();
    report_.AddNotFolded(folding.skipped);
    report_.constant_folding_time_ns += Since(start);
    const std::unordered_set<const NodeProto*> folded(folding.folded_node_addresses.begin(),
                                                      folding.folded_node_addresses.end());

    // The records, with the final positions (folded nodes are gone).
    std::vector<LocalRewriting> batch(planned.size());
    for (std::size_t p = 0; p < planned.size(); ++p) {
      for (std::size_t position = planned[p].first_initializer; position < planned[p].end_initializer; ++position) {
        batch[p].added_initializer_positions.push_back(position);
        *batch[p].added_initializers.Add() = g_.builder_.Initializers().Get(static_cast<int>(position));
      }
      for (std::size_t position = planned[p].first_function; position < planned[p].end_function; ++position)
        *batch[p].added_functions.Add() = g_.builder_.Functions().Get(static_cast<int>(position));
    }
    std::size_t folded_before = 0;
    for (const AddedNode& node : added) {
      if (folded.contains(node.node)) {
        ++folded_before;
        continue;
      }
      const std::size_t position = node.position - folded_before;
      batch[node.plan].added_nodes_positions.push_back(position);
      *batch[node.plan].added_nodes.Add() = g_.builder_.Nodes().Get(static_cast<int>(position));
    }
    for (std::size_t i = 0; i < folding.added_initializers.size(); ++i) {
      const std::size_t position = old_initializers + i;
      LocalRewriting& record = batch[plan_of_output.at(folding.added_initializers[i])];
      record.added_initializer_positions.push_back(position);
      *record.added_initializers.Add() = g_.builder_.Initializers().Get(static_cast<int>(position));
    }
    if (!folded.empty()) report_.Cleanup("FoldConstants").removed_nodes += folded.size();
    for (const LocalRewriting& record : batch)
      for (std::size_t position : record.added_initializer_positions)
        footprint.added_initializers.push_back(&g_.builder_.Initializers().Get(static_cast<int>(position)));
    for (const AddedNode& node : added)
      if (!folded.contains(node.node)) footprint.added.push_back(node.node);
    for (std::size_t k = 0; k < inputs_end.size() && !folded.empty(); ++k)
      if (folded.contains(to_fold[k]))
        for (std::size_t i = k == 0 ? 0 : inputs_end[k - 1]; i < inputs_end[k]; ++i)
          footprint.folded_inputs.Add(candidate_inputs[i]);
    for (std::size_t p = 0; p < planned.size(); ++p) {
      const Found& f = *planned[p].found;
      LocalRewriting& record = batch[p];
      record.pattern = *f.pattern;
      for (const NodeProto* node : f.match.nodes)
        if (node) record.matched_nodes.push_back(g_.IndexedPosition(*node));
      record.iteration = batch_;
      record.graph_path = g_.builder_.Path();
      record.match_time_ns = f.match_time_ns;
      record.apply_time_ns = planned[p].apply_time_ns;
      PatternStats& stats = report_.Pattern((*f.pattern)->Name(), (*f.pattern)->priority);
      ++stats.applied;
      stats.apply_time_ns += planned[p].apply_time_ns;
      stats.removed_nodes += record.matched_nodes.size();
      stats.added_nodes += planned[p].added.size();
      records_.push_back(std::move(record));
    }
    return footprint;
  }

  // Removes the initializers and local functions added to `builder` since it had
  // `initializers` and `functions` of them.
  static void RemoveAdditions(GraphBuilder& builder, std::size_t initializers, std::size_t functions,
                              std::string_view why) {
    auto& fields = builder.Initializers();
    if (static_cast<std::size_t>(fields.size()) > initializers)
      fields.DeleteSubrange(static_cast<int>(initializers), fields.size() - static_cast<int>(initializers));
    std::vector<std::size_t> added;
    for (std::size_t i = functions; i < static_cast<std::size_t>(builder.Functions().size()); ++i) added.push_back(i);
    if (!added.empty()) builder.RemoveFunctions(added, why);
  }

  // Why the model could not hold `replacement`: its first node that breaks its operator's
  // signature at the version the model imports (ir::CheckNodeSignature, the check of
  // loading: a Reshape with a shape input in an opset-3 model), or whose inputs of known
  // type its operator does not take (shapes::CheckArgumentType, the check of shape
  // inference: an Identity of a sequence before opset 14). A domain the model does not
  // import yet counts at version 1, where ImportUsedDomains will import it. Inputs the
  // replacement itself defines anew are of unknown type here; shape inference checks them
  // after the batch.
  std::optional<std::string> RefusalOf(const utils::RepeatedProtoField<NodeProto>& replacement) const {
    for (const NodeProto& node : replacement) {
      const std::int64_t version =
          g_.builder_.OpsetVersion(node.domain()).value_or(ir::IsOnnxDomain(node.domain()) ? 0 : 1);
      std::optional<ir::RuleViolation> violation = ir::CheckNodeSignature(node, version, nullptr);
      if (violation) {  // unless the node calls a local function (rare: built only then)
        const ir::LocalFunctions functions(g_.builder_.Functions());
        violation = ir::CheckNodeSignature(node, version, &functions);
      }
      if (!violation) violation = InputTypeViolation(node, version);
      if (violation) return Describe(node) + ": " + violation->rule + "; found " + violation->found;
    }
    return std::nullopt;
  }

  std::optional<ir::RuleViolation> InputTypeViolation(const NodeProto& node, std::int64_t version) const {
    const ir::OpSchema* schema = ir::FindOpSchema(node.domain(), node.op_type(), version);
    if (!schema || !g_.builder_.Shapes()) return std::nullopt;
    std::vector<shapes::TypeBinding> bound(schema->variables.size());
    for (int i = 0; i < node.input_size(); ++i) {
      if (node.input(i).empty()) continue;
      const shapes::SymTensor* value = g_.builder_.GetShape(node.input(i));
      if (!value) continue;
      if (auto violation = shapes::CheckArgumentType(*schema, bound, schema->Input(i), true,
                                                     static_cast<std::size_t>(i), *value))
        return violation;
    }
    return std::nullopt;
  }

  // A replacement the model cannot hold is a defect of the pattern, but the model is not
  // to blame: the match is left as it is (not applied again while its candidate node
  // lives) and the report names the pattern and the rule.
  void Refuse(const Found& f, const std::string& refusal) {
    refused_[f.candidate].push_back(f.match.pattern);
    const PatternOptimization& pattern = **f.pattern;
    ++report_.Pattern(pattern.Name(), pattern.priority).refused;
    report_.AddRefused(pattern.Name() + ": " + refusal);
  }

  bool WasRefused(const PatternOptimization& pattern, const NodeProto& candidate) const {
    auto it = refused_.find(&candidate);
    return it != refused_.end() && std::find(it->second.begin(), it->second.end(), &pattern) != it->second.end();
  }

  struct AddedNode {
    std::size_t position;  // after the batch, before folding
    std::size_t plan;
    const NodeProto* node;
  };

  // The contract every batch keeps (see pattern.h): a pattern that breaks it is a bug,
  // reported with its name before the graph changes. Two plans that conflict (one reads a
  // value the other removes, or defines after it) are no one's bug: returns the later of
  // each such pair (indices into `planned`, ascending), which must wait.
  std::vector<std::size_t> CheckBatch(const std::vector<Planned>& planned, const NodeSet& removed,
                                      const std::vector<std::vector<std::size_t>>& added_positions,
                                      const std::vector<std::size_t>& new_position) const {
    const GraphBuilder& builder = g_.builder_;
    auto fail = [](const PatternOptimization& pattern, const std::string& message) {
      throw BuilderError(pattern.Name() + ": " + message);
    };
    auto defined_outside = [&](const std::string& name) {
      return g_.inputs_.contains(name) || g_.initializers_.contains(name) || builder.OuterScope().Contains(name);
    };
    std::set<std::size_t> later;
    auto conflict = [&](std::size_t p, std::size_t q) { later.insert(std::max(p, q)); };
    // The plan whose match removes `node` (only asked on a conflict).
    auto plan_removing = [&](const NodeProto* node) {
      for (std::size_t q = 0; q < planned.size(); ++q) {
        const std::vector<const NodeProto*>& nodes = planned[q].found->match.nodes;
        if (std::find(nodes.begin(), nodes.end(), node) != nodes.end()) return q;
      }
      return planned.size();
    };
    // Value -> position of its definer after the batch and its plan (views into the
    // replacement nodes).
    struct Definer {
      std::size_t position, plan;
    };
    std::unordered_map<std::string_view, Definer> defined;
    for (std::size_t p = 0; p < planned.size(); ++p) {
      const PatternOptimization& pattern = **planned[p].found->pattern;
      for (std::size_t k = 0; k < planned[p].added.size(); ++k) {
        for (const std::string& output : planned[p].added[k]->output()) {
          if (output.empty()) continue;
          if (auto twice = defined.find(output); twice != defined.end()) {
            if (twice->second.plan == p) fail(pattern, "two replacement nodes define '" + output + "'");
            conflict(twice->second.plan, p);
            continue;
          }
          const NodeProto* producer = g_.NodeBefore(output);
          if (producer && !removed.contains(producer))
            fail(pattern, "a replacement node redefines '" + output + "', still produced by " + Describe(*producer));
          if (defined_outside(output))
            fail(pattern, "a replacement node redefines '" + output + "', a graph input, initializer or outer value");
          defined.emplace(output, Definer{added_positions[p][k], p});
        }
      }
    }
    for (std::size_t p = 0; p < planned.size(); ++p) {
      const PatternOptimization& pattern = **planned[p].found->pattern;
      for (std::size_t k = 0; k < planned[p].added.size(); ++k) {
        const std::size_t position = added_positions[p][k];
        for (const std::string& input : planned[p].added[k]->input()) {
          if (input.empty()) continue;
          if (auto def = defined.find(input); def != defined.end()) {
            if (def->second.position < position) continue;
            if (def->second.plan == p)
              fail(pattern, "a replacement node reads '" + input + "' before the node that defines it");
            conflict(def->second.plan, p);
          } else if (const NodeProto* producer = g_.NodeBefore(input)) {
            if (removed.contains(producer)) {
              const std::size_t remover = plan_removing(producer);
              if (remover == p)
                fail(pattern, "a replacement node reads '" + input + "', whose producer " + Describe(*producer) +
                                  " the batch removes");
              conflict(remover, p);
              continue;
            }
            if (new_position[g_.IndexedPosition(*producer)] >= position)
              fail(pattern, "a replacement node is placed before " + Describe(*producer) + ", which produces its input '" +
                                input + "' (set insert_at)");
          } else if (!defined_outside(input)) {
            fail(pattern, "a replacement node reads '" + input + "', which is not defined");
          }
        }
      }
    }
    // What the matches remove is checked on the batch that is applied (without the waiting
    // matches, a reader they remove may stay).
    if (!later.empty()) return {later.begin(), later.end()};
    for (const Planned& plan : planned) {
      const PatternOptimization& pattern = **plan.found->pattern;
      for (const NodeProto* node : plan.found->match.nodes) {
        if (!node) continue;
        for (const std::string& output : node->output()) {
          if (output.empty()) continue;
          std::vector<const NodeProto*> readers;
          for (const NodeProto* consumer : g_.NextNodes(output))
            if (!removed.contains(consumer)) readers.push_back(consumer);
          if (auto it = g_.subgraph_readers_.find(output); it != g_.subgraph_readers_.end())
            for (const NodeProto* holder : it->second)
              if (!removed.contains(holder)) readers.push_back(holder);
          auto def = defined.find(output);
          if (def == defined.end()) {
            if (g_.IsOutput(output)) fail(pattern, "the rewrite removes graph output '" + output + "'");
            if (!readers.empty())
              fail(pattern, "the rewrite removes '" + output + "', still read by " + Describe(*readers.front()));
            continue;
          }
          for (const NodeProto* reader : readers)
            if (new_position[g_.IndexedPosition(*reader)] < def->second.position)
              fail(pattern, "the replacement defines '" + output + "' after its reader " + Describe(*reader) +
                                " (set insert_at)");
        }
      }
    }
    return {};
  }

  // --- Graph passes -------------------------------------------------------------------------

  // Runs the pass at g_.patterns_[index] on this graph and records what it changed as one
  // batch: the driver compares the graph after the pass with a snapshot taken before it
  // (by node address and content), so a pass edits the builder freely and cannot forget to
  // declare a change. Then shapes of what changed, folding of added constant nodes, and
  // cleanup.
  void RunPass(std::size_t index) {
    const auto& pass = static_cast<const GraphPass&>(*g_.patterns_[index]);
    GraphBuilder& builder = g_.builder_;
    if (!builder.IsRoot() && !pass.RunsOnSubgraphs()) return;
    // The index is not refreshed here: a pass that asks GraphGraph's queries gets it built
    // then, and one that does not (the transpose optimizer has its own view) saves a build.
    // The report's "graph passes" phase: the snapshot, Run and the record (PassStats::time_ns
    // is Run alone).
    const auto phase_start = Clock::now();
    const std::vector<const NodeProto*> nodes_before = Addresses(builder.Nodes());
    report_.nodes_visited.graph_passes += nodes_before.size();
    // Content as it was: an address alone does not identify a node (a pass may edit it in
    // place, or delete it and allocate a new one at the same address), unless the pass lists
    // every node it edited.
    std::optional<SerializedNodes> content_before;
    if (!pass.ListsEveryModifiedNode() || check_incremental_) content_before.emplace(nodes_before);
    std::vector<std::pair<const TensorProto*, std::string>> initializers_before;
    for (const TensorProto& initializer : builder.Initializers())
      initializers_before.emplace_back(&initializer, initializer.name());
    const auto functions_before = static_cast<std::size_t>(builder.Functions().size());

    PassStats& stats = report_.Pass(pass.Name(), OptimizationStageName(pass.Stage()));
    PassResult result;
    const auto start = Clock::now();
    try {
      pass.Run(g_, result);
    } catch (const BuilderError& error) {
      throw BuilderError(pass.Name() + ": " + error.what());
    }
    const std::int64_t elapsed = Since(start);
    g_.index_stale_ = true;
    ++stats.runs;
    stats.time_ns += elapsed;
    for (const auto& [name, count] : result.counters) stats.counters[name] += count;

    LocalRewriting record = PassRecord(pass, nodes_before, content_before ? &*content_before : nullptr,
                                       initializers_before, functions_before, result);
    report_.passes_time_ns += Since(phase_start);
    if (record.matched_nodes.empty() && record.added_nodes.empty() && record.removed_initializers.empty() &&
        record.added_initializers.empty() && record.added_functions.empty() && record.value_renames.empty())
      return;
    record.pattern = g_.patterns_[index];
    record.iteration = ++batch_;
    identities_possible_ = true;
    graph_clean_ = false;
    record.graph_path = builder.Path();
    ++stats.changed;
    stats.removed_nodes += record.matched_nodes.size();
    stats.added_nodes += static_cast<std::size_t>(record.added_nodes.size());
    record.apply_time_ns = elapsed;
    std::vector<const NodeProto*> changed_nodes;
    for (std::size_t position : record.added_nodes_positions) {
      changed_nodes.push_back(&builder.Nodes().Get(static_cast<int>(position)));
      refused_.erase(changed_nodes.back());
    }
    records_.push_back(std::move(record));

    if (builder.Shapes()) {
      const auto shapes_start = Clock::now();
      builder.InferShapesOf(changed_nodes);
      report_.nodes_visited.shape_inference += changed_nodes.size();
      report_.shape_inference_time_ns += Since(shapes_start);
      Fold(WithoutIdentities(builder, changed_nodes));
    }
    Cleanup();
    if (check_incremental_) CheckShapesAgainstFreshInference();
  }

  // What a pass changed: see RunPass.
  // `content_before`: the nodes' content before Run, null when the pass lists the nodes it
  // edited (then only checked under ONNXOPT_CHECK_INCREMENTAL).
  LocalRewriting PassRecord(const GraphPass& pass, const std::vector<const NodeProto*>& nodes_before,
                            const SerializedNodes* content_before,
                            const std::vector<std::pair<const TensorProto*, std::string>>& initializers_before,
                            std::size_t functions_before, PassResult& result) {
    GraphBuilder& builder = g_.builder_;
    LocalRewriting record;

    // Nodes: a node kept at its address, with its content and in order, survives; every
    // other node before is removed, every other node after is added.
    // Numbered by position: nodes_before lists distinct nodes.
    utils::DenseIndex<const NodeProto*> position_before;
    position_before.reserve(nodes_before.size());
    for (const NodeProto* node : nodes_before) position_before.insert(node);
    const std::unordered_set<const NodeProto*> declared(result.modified_nodes.begin(), result.modified_nodes.end());
    std::vector<bool> survives(nodes_before.size(), false);
    std::size_t last_survivor = 0;
    bool any_survivor = false;
    const auto& nodes = builder.Nodes();
    std::string content;  // of one node after the pass
    for (int i = 0; i < nodes.size(); ++i) {
      const NodeProto* node = &nodes.Get(i);
      const std::uint32_t before = position_before.find(node);
      bool kept = before != position_before.kNone && !declared.contains(node) &&
                  (!any_survivor || before > last_survivor);
      if (kept && content_before) {
        content.clear();
        node->AppendToString(&content);
        const bool same = content == content_before->Of(before);
        if (!same && pass.ListsEveryModifiedNode())
          throw BuilderError(pass.Name() + ": " + Describe(*node) +
                             " changed in place but is not in PassResult::modified_nodes (ONNXOPT_CHECK_INCREMENTAL)");
        kept = same;
      }
      if (kept) {
        survives[before] = true;
        last_survivor = before;
        any_survivor = true;
        continue;
      }
      record.added_nodes_positions.push_back(static_cast<std::size_t>(i));
      *record.added_nodes.Add() = *node;
    }
    for (std::size_t i = 0; i < nodes_before.size(); ++i)
      if (!survives[i]) record.matched_nodes.push_back(i);

    // Initializers are never edited in place (a new content gets a new name): one kept at
    // its address under its name survives.
    std::unordered_map<const TensorProto*, std::size_t> initializer_before;
    for (std::size_t i = 0; i < initializers_before.size(); ++i) initializer_before.emplace(initializers_before[i].first, i);
    std::vector<bool> initializer_survives(initializers_before.size(), false);
    std::size_t last_initializer = 0;
    bool any_initializer = false;
    const auto& initializers = builder.Initializers();
    for (int i = 0; i < initializers.size(); ++i) {
      const TensorProto* initializer = &initializers.Get(i);
      auto before = initializer_before.find(initializer);
      const bool kept = before != initializer_before.end() &&
                        initializers_before[before->second].second == initializer->name() &&
                        (!any_initializer || before->second > last_initializer);
      if (kept) {
        initializer_survives[before->second] = true;
        last_initializer = before->second;
        any_initializer = true;
        continue;
      }
      record.added_initializer_positions.push_back(static_cast<std::size_t>(i));
      *record.added_initializers.Add() = *initializer;
    }
    for (std::size_t i = 0; i < initializers_before.size(); ++i)
      if (!initializer_survives[i]) record.removed_initializers.push_back(i);

    // Local functions: a pass may add (GetOrAddFunction appends), not remove.
    const auto functions = static_cast<std::size_t>(builder.Functions().size());
    if (functions < functions_before)
      throw BuilderError(pass.Name() + ": a graph pass removed a local function (unused ones are the cleanup's)");
    for (std::size_t i = functions_before; i < functions; ++i)
      *record.added_functions.Add() = builder.Functions().Get(static_cast<int>(i));

    record.value_renames = std::move(result.value_renames);
    return record;
  }

  // --- Folding and cleanup batches --------------------------------------------------------

  // A record for a step that only deleted and modified elements in place.
  LocalRewriting OperationRecord(const std::string& name, const std::vector<const NodeProto*>& nodes_before,
                                 const std::vector<const TensorProto*>& initializers_before,
                                 const std::vector<const NodeProto*>& redefined) {
    GraphBuilder& builder = g_.builder_;
    LocalRewriting record;
    record.pattern = Operation(name);
    record.matched_nodes = MissingPositions(nodes_before, builder.Nodes());
    if (!redefined.empty()) {
      std::unordered_map<const NodeProto*, std::size_t> now;
      for (int i = 0; i < builder.Nodes().size(); ++i) now.emplace(&builder.Nodes().Get(i), i);
      std::unordered_set<const NodeProto*> done;
      for (std::size_t i = 0; i < nodes_before.size(); ++i) {
        const NodeProto* node = nodes_before[i];
        if (std::find(redefined.begin(), redefined.end(), node) == redefined.end() || !done.insert(node).second) continue;
        record.matched_nodes.push_back(i);
        record.added_nodes_positions.push_back(now.at(node));
        *record.added_nodes.Add() = *node;
      }
      std::sort(record.matched_nodes.begin(), record.matched_nodes.end());
    }
    record.removed_initializers = MissingPositions(initializers_before, builder.Initializers());
    record.iteration = ++batch_;
    record.graph_path = builder.Path();
    return record;
  }

  void FoldAll() { Fold(Addresses(g_.builder_.Nodes())); }

  // Folds the foldable nodes among `candidates` (in graph order) as one recorded batch.
  void Fold(const std::vector<const NodeProto*>& candidates) {
    const auto start = Clock::now();
    GraphBuilder& builder = g_.builder_;
    const std::vector<const NodeProto*> nodes = Addresses(builder.Nodes());
    const std::vector<const TensorProto*> initializers = Addresses(builder.Initializers());
    const FoldResult folding =
        FoldNodes(builder, candidates, g_.options_.fold, g_.enclosing_constants_, g_.evaluation_budget_.get());
    report_.nodes_visited.constant_folding += candidates.size();
    report_.AddNotFolded(folding.skipped);
    if (folding.folded_nodes > 0) {
      LocalRewriting record = OperationRecord("FoldConstants", nodes, initializers, {});
      for (std::size_t i = initializers.size(); i < static_cast<std::size_t>(builder.Initializers().size()); ++i) {
        record.added_initializer_positions.push_back(i);
        *record.added_initializers.Add() = builder.Initializers().Get(static_cast<int>(i));
      }
      CleanupStats& stats = report_.Cleanup("FoldConstants");
      ++stats.runs;
      stats.removed_nodes += folding.folded_nodes;
      records_.push_back(std::move(record));
      g_.index_stale_ = true;
      graph_clean_ = false;
    }
    report_.constant_folding_time_ns += Since(start);
  }

  // The cleanup passes, in an order after which none would find anything more:
  // identities (whose removal can leave dead producers), unused nodes (removing dead
  // code creates neither identities nor duplicates), duplicate nodes (merging never
  // leaves a producer dead: the kept node reads the same values), duplicate
  // initializers, and duplicate nodes again when merged initializers made two nodes
  // read the same values. After a batch, the node passes are decided from what it
  // changed (CleanupAroundBatch) and duplicate initializers are looked for only among
  // those it added; without a batch, or without a local proof, the passes look at the
  // whole graph.
  void Cleanup(const BatchFootprint* batch = nullptr) {
    const auto start = Clock::now();
    GraphBuilder& builder = g_.builder_;
    auto remove_duplicate_nodes = [&] { return RemoveDuplicateNodes(builder, CleanupScope::kThisGraph); };
    // The plan the node passes followed, when they were decided around the batch and the
    // duplicate pass changed nothing (it then renamed values the index no longer follows).
    std::optional<BatchCleanupPlan> plan;
    bool merged_nodes = false;
    if (batch && batch->local) plan = CleanupAroundBatch(*batch, merged_nodes);
    if (!plan) {
      RemoveIdentities();
      RunCleanupPass([&] { return RemoveUnusedNodes(builder, CleanupScope::kThisGraph); });
      RunCleanupPass(remove_duplicate_nodes);
    } else if (merged_nodes) {
      plan.reset();
    }
    const std::vector<const TensorProto*>* recent = batch ? &batch->added_initializers : nullptr;
    if (recent == nullptr || !recent->empty()) {
      std::vector<ValueRename> merges;
      const bool merged = RunCleanupPass([&] {
        CleanupResult result = recent ? RemoveDuplicateInitializers(builder, *recent)
                                      : RemoveDuplicateInitializers(builder, CleanupScope::kThisGraph);
        merges = result.renames;
        return result;
      });
      // No two nodes could be merged before (the duplicate pass ran, or the plan proved it
      // had nothing to find): only readers of the kept initializers can merge now.
      if (merged) {
        std::vector<std::string> kept;
        for (const ValueRename& merge : merges) kept.push_back(merge.to);
        RunUnlessNothingToFind(!plan || DuplicatesAfterMerge(IndexView(g_), *batch, *plan, merges), "duplicate-node",
                               [&] { return RemoveDuplicateNodesReading(builder, kept); });
        RunUnlessNothingToFind(false, "duplicate-node (beyond the readers of merged initializers)",
                               remove_duplicate_nodes);
      }
    }
    // Functions belong to the model: the main graph's driver removes those that rewrites (or
    // dead code removal, here or in nested graphs) left without a call.
    if (builder.IsRoot() && !builder.Functions().empty())
      RunCleanupPass([&] { return RemoveUnusedFunctions(builder); });
    graph_clean_ = true;
    report_.cleanup_time_ns += Since(start);
  }

  // The identity, unused-node and duplicate passes after `batch`, decided from what it
  // changed and the index (PlanCleanupAfterBatch), and recorded as the whole-graph passes
  // would be. Returns the plan, or nullopt, having changed nothing, when a proof is
  // missing; `merged_nodes`: whether the duplicate pass ran and merged nodes.
  std::optional<BatchCleanupPlan> CleanupAroundBatch(const BatchFootprint& batch, bool& merged_nodes) {
    GraphBuilder& builder = g_.builder_;
    // When the last identity pass kept none, the plain Identity nodes are among the added.
    const bool identities_known = !identities_kept_;
    std::optional<BatchCleanupPlan> plan = PlanCleanupAfterBatch(IndexView(g_), batch, identities_known);
    if (!plan) return plan;
    report_.nodes_visited.cleanup += plan->nodes_visited;
    if (!plan->identities.empty())
      RunCleanupPass([&] {
        return RemoveIdentityNodesAmong(builder, plan->identities,
                                        [&](const std::string& value) -> const std::vector<NodeProto*>& {
                                          return plan->identity_readers.at(value);
                                        });
      });
    // No plain Identity node is left (otherwise those the last pass kept are, which the
    // batch cannot have made removable: the plan sees no node holding a nested graph go).
    if (identities_known) identities_possible_ = false;
    if (!plan->unused_nodes.empty() || !plan->unused_initializers.empty()) {
      // By address: the removal walks every initializer, and reading each name would touch
      // every weight's message.
      std::unordered_set<const TensorProto*> unused_initializers;
      for (const TensorProto* initializer : batch.added_initializers)
        if (plan->unused_initializers.contains(initializer->name())) unused_initializers.insert(initializer);
      for (const std::string& name : plan->unused_initializers)
        if (auto known = g_.initializers_.find(name); known != g_.initializers_.end())
          unused_initializers.insert(known->second);
      RunCleanupPass([&] {
        return RemoveUnusedElements(
            builder, [&](const NodeProto& node) { return plan->unused_nodes.contains(&node); },
            [&](const TensorProto& initializer) { return unused_initializers.contains(&initializer); });
      });
    }
    if (check_incremental_) {
      RemoveIdentities();  // fails if it finds something
      if (RunCleanupPass([&] { return RemoveUnusedNodes(builder, CleanupScope::kThisGraph); }))
        throw BuilderError("incremental cleanup: the batch left unused nodes the local search did not find "
                           "(ONNXOPT_CHECK_INCREMENTAL)");
    }
    merged_nodes = RunUnlessNothingToFind(plan->duplicate_nodes, "duplicate-node",
                                          [&] { return RemoveDuplicateNodes(builder, CleanupScope::kThisGraph); });
    return plan;
  }

  // The index as it is, stale or not (GraphGraph::FindUses would rebuild a stale one):
  // until the next iteration rebuilds it, it describes the graph before the last batch.
  // These are the driver's lookups, not a Match's reads (nothing is noted).
  class IndexView final : public IndexBeforeBatch {
   public:
    explicit IndexView(const GraphGraph& graph) : graph_(graph) {}
    const NodeProto* Producer(std::string_view value) const override {
      const GraphGraph::ValueUses* uses = Find(value);
      return uses ? uses->producer : nullptr;
    }
    const std::vector<const NodeProto*>& Readers(std::string_view value) const override {
      static const std::vector<const NodeProto*> kNone;
      const GraphGraph::ValueUses* uses = Find(value);
      return uses ? uses->consumers : kNone;
    }
    const std::vector<const NodeProto*>* NestedReaders(std::string_view value) const override {
      auto holders = graph_.subgraph_readers_.find(value);
      return holders == graph_.subgraph_readers_.end() ? nullptr : &holders->second;
    }
    bool IsGraphOutput(std::string_view value) const override { return graph_.outputs_.contains(value); }
    bool IsPlainInitializer(std::string_view value) const override {
      return graph_.initializers_.contains(value) && !graph_.inputs_.contains(value);
    }

   private:
    const GraphGraph::ValueUses* Find(std::string_view value) const {
      const std::uint32_t entry = graph_.value_index_.find(value);
      return entry == graph_.value_index_.kNone ? nullptr : &graph_.values_[entry];
    }
    const GraphGraph& graph_;
  };

  // Runs a cleanup pass when `can_find` (else skips it: proven to find nothing);
  // ONNXOPT_CHECK_INCREMENTAL runs it anyway and fails if a skipped pass finds something.
  // Returns whether the pass changed anything.
  template <class Pass>
  bool RunUnlessNothingToFind(bool can_find, const char* what, Pass&& pass) {
    if (!can_find && !check_incremental_) return false;
    const bool changed = RunCleanupPass(std::forward<Pass>(pass));
    if (!can_find && changed)
      throw BuilderError(std::string("incremental cleanup: the ") + what +
                         " pass was skipped after a batch, but it finds something (ONNXOPT_CHECK_INCREMENTAL)");
    return changed;
  }

  // The identity pass, skipped when it is known to find nothing: its last run kept no
  // Identity node and none was added since (Identity nodes come from rewrites and graph
  // passes only: folding and the other cleanup passes create none). With
  // ONNXOPT_CHECK_INCREMENTAL it runs anyway and must then find nothing.
  void RemoveIdentities() {
    if (!identities_possible_ && !check_incremental_) return;
    std::size_t kept = 0;
    const bool changed = RunCleanupPass([&] {
      CleanupResult result = RemoveIdentityNodes(g_.builder_, CleanupScope::kThisGraph);
      kept = result.kept_identities;
      return result;
    });
    if (!identities_possible_ && (changed || kept > 0))
      throw BuilderError("incremental cleanup: the identity pass was skipped, but the graph holds an Identity node "
                         "(ONNXOPT_CHECK_INCREMENTAL)");
    identities_possible_ = kept > 0 || !incremental_;
    identities_kept_ = kept > 0;
  }

  // Runs one pass and records what it changed; returns whether it changed anything.
  template <class Pass>
  bool RunCleanupPass(Pass&& pass) {
    GraphBuilder& builder = g_.builder_;
    const std::vector<const NodeProto*> nodes = Addresses(builder.Nodes());
    const std::vector<const TensorProto*> initializers = Addresses(builder.Initializers());
    report_.nodes_visited.cleanup += nodes.size();
    CleanupResult result = pass();
    if (!result.Changed() && result.renames.empty()) return false;
    // For incremental matching: nodes edited in place.
    for (const NodeProto* node : result.redefined_nodes) changes_.nodes.insert(node);
    for (const ValueRename& rename : result.renames) changes_.renames.emplace_back(rename.from, rename.to);
    LocalRewriting record = OperationRecord(result.pass, nodes, initializers, result.redefined_nodes);
    for (ValueRename& rename : result.renames)
      record.value_renames.emplace_back(std::move(rename.from), std::move(rename.to));
    record.removed_functions = result.removed_functions;
    CleanupStats& stats = report_.Cleanup(result.pass);
    ++stats.runs;
    stats.removed_nodes += result.removed_nodes;
    stats.removed_initializers += result.removed_initializers;
    stats.removed_functions += result.removed_functions.size();
    stats.renames += result.renames.size();
    records_.push_back(std::move(record));
    g_.index_stale_ = true;
    return true;
  }

  // The report's entry of g_.patterns_[p]. Found by name once: each nested graph has its
  // driver, and a search by name per pattern and round added up to more than optimizing a
  // small branch. Entries are only ever appended, so positions stay valid.
  PatternStats& StatsOf(std::size_t p) {
    if (stats_position_.empty()) stats_position_.assign(g_.patterns_.size(), SIZE_MAX);
    if (stats_position_[p] == SIZE_MAX) {
      const PatternOptimization& pattern = *g_.patterns_[p];
      const PatternStats& stats = report_.Pattern(pattern.Name(), pattern.priority);
      stats_position_[p] = static_cast<std::size_t>(&stats - report_.patterns.data());
    }
    return report_.patterns[stats_position_[p]];
  }

  GraphGraph& g_;
  OptimizationReport& report_;
  std::vector<LocalRewriting>& records_;
  std::size_t& batch_;
  std::vector<std::size_t> stats_position_;  // StatsOf
  std::shared_ptr<const PatternClasses> classes_;
  const bool incremental_, check_incremental_;
  // What the current match/apply loop changed since the cache last looked at the graph.
  GraphChanges changes_;
  // Whether the graph may hold a plain Identity node (see RemoveIdentities).
  bool identities_possible_ = true;
  // The op types after whose addition a pass of the current stage runs again
  // (GraphPass::RunAgainAfterAdding), and those of them the stage's loop added.
  std::set<std::string> wake_on_, added_op_types_;
  // Whether the last identity pass kept a plain Identity node (or none ran yet): if not,
  // those after a batch are among its added nodes.
  bool identities_kept_ = true;
  // Whether the graph has no unused node or initializer and no two nodes to merge: true
  // after a cleanup, false after a change no cleanup followed (the graph as loaded,
  // folding everything, optimizing nested graphs).
  bool graph_clean_ = false;
  // Matches whose replacement was refused (Refuse), by candidate node: the patterns
  // refused there. An entry goes when a new node takes the address.
  std::unordered_map<const NodeProto*, std::vector<const PatternOptimization*>> refused_;
};

std::vector<LocalRewriting> GraphGraph::Optimize(int max_iter, OptimizationReport* report) {
  OptimizationReport local;
  OptimizationReport& out = report ? *report : local;
  std::vector<LocalRewriting> records;
  std::size_t batch = 0;
  Driver(*this, out, records, batch).Run(max_iter);
  // Rewrites may introduce operators of a domain the model does not import yet.
  if (builder_.IsRoot()) builder_.ImportUsedDomains();
  out.rewrites = records.size();
  out.SortNoMatches();
  return records;
}

}  // namespace onnxopt::core::builder
