#include "onnx_extensions/transpose/transpose_optimizer.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/optimizer/pattern_registry.h"
#include "onnx_extensions/transpose/push_graph.h"
#include "onnx_extensions/transpose/push_rewrite.h"

namespace onnxopt::onnx_transpose {

namespace {

using core::builder::PassResult;

// The Transpose (valid explicit perm) producing input `slot` of `node`, or
// kNone.
NodeId IncomingTranspose(const PushGraph& graph, NodeId node, int slot) {
  const ValueId input = graph.InputOf(node, slot);
  const NodeId producer = input == kNone ? kNone : graph.Producer(input);
  if (!graph.Is(producer, OpKind::kTranspose)) return kNone;
  return graph.TransposePerm(producer) ? producer : kNone;
}

// Counters of the sweep ("pushes", "stop: <reason>", ...), gathered by name (a few
// distinct literals) and added to the result's map once.
class SweepCounts {
 public:
  void Add(std::string_view reason) {
    for (auto& [known, count] : counts_) {
      if (known == reason) {
        ++count;
        return;
      }
    }
    counts_.emplace_back(reason, 1);
  }
  // Each name is prefixed with `prefix` in the result.
  void AddTo(PassResult& result, std::string_view prefix) const {
    for (const auto& [name, count] : counts_) result.counters[std::string(prefix) + std::string(name)] += count;
  }

 private:
  std::vector<std::pair<std::string_view, std::int64_t>> counts_;
};

// try_push (section 3.3): true when the graph changed.
// `plan` is a buffer the sweep reuses.
bool TryPush(PushGraph& graph, CostModelContext& cost, NodeId transpose, NodeId node, int slot, PushPlan& plan,
             SweepCounts& stops, SweepCounts& done) {
  const Handler* handler = cost.HandlerOf(node);
  if (!handler) {
    stops.Add("no handler for this operator");
    return false;
  }
  std::vector<int> slots;
  handler->slots(graph, node, slots);
  if (std::find(slots.begin(), slots.end(), slot) == slots.end()) {
    stops.Add("the Transpose feeds an input the handler does not transpose");
    return false;
  }
  const Perm perm = *graph.TransposePerm(transpose);
  if (const std::string_view rejected = PreviewPush(graph, node, *handler, perm, plan); !rejected.empty()) {
    stops.Add("the handler rejected the node");
    stops.Add(rejected);
    return false;
  }
  const std::string_view refused = cost.Decide(transpose, node, perm, *handler, &plan);
  if (!refused.empty()) {
    stops.Add(refused);
    return false;
  }
  if (TransposeLikePerm(graph, node)) {
    const TransposePair pair = FoldTransposePair(graph, transpose, node);
    done.Add(pair == TransposePair::kCancelled ? "cancelled" : "merged");
  } else {
    ExecutePlan(graph, node, perm, plan);
    done.Add("pushes");
  }
  cost.Invalidate(graph.TakeDirtyValues());
  return true;
}

// Whether Q(DQ(x)) = x for every x, DQ and Q sharing their parameters
// (core::builder::QuantizationRoundTripsExactly).
bool RoundTripsExactly(const PushGraph& graph, NodeId dq) {
  const core::shapes::SymTensor* data = graph.Shape(graph.InputOf(dq, 0));
  if (!data || graph.InputCount(dq) < 2) return false;
  const TensorProto* scale = graph.LocalConstant(graph.InputOf(dq, 1));
  return scale && core::builder::QuantizationRoundTripsExactly(data->elem_type, *scale);
}

// Phase C: DequantizeLinear -> QuantizeLinear with the same parameters is the
// identity on the quantized data when RoundTripsExactly; the pushes leave such pairs
// where a Transpose was between them.
bool SameQuantization(const PushGraph& graph, NodeId dq, NodeId q) {
  const NodeProto& a = graph.Node(dq);
  const NodeProto& b = graph.Node(q);
  const int inputs = graph.InputCount(dq);
  if (a.domain() != b.domain() || inputs != graph.InputCount(q)) return false;
  for (int i = 1; i < inputs; ++i)
    if (graph.InputOf(dq, i) != graph.InputOf(q, i)) return false;
  if (a.attribute_size() != b.attribute_size()) return false;
  for (int i = 0; i < a.attribute_size(); ++i)
    if (a.attribute(i).SerializeAsString() != b.attribute(i).SerializeAsString()) return false;
  // Without a zero point the Q produces uint8: the DQ's input must be uint8 as
  // well.
  const int quantized = graph.Shape(graph.InputOf(dq, 0)) ? graph.Shape(graph.InputOf(dq, 0))->elem_type : 0;
  return (inputs > 2 || quantized == TensorProto::UINT8) && RoundTripsExactly(graph, dq);
}

void RemoveEmptyQdqPairs(PushGraph& graph, PassResult& result) {
  const std::size_t count = graph.NodeCount();
  for (NodeId dq = 0; dq < static_cast<NodeId>(count); ++dq) {
    if (!graph.Is(dq, OpKind::kDequantizeLinear) || !graph.IsModifiable(dq)) continue;
    const ValueId middle = graph.OutputOf(dq, 0);
    if (!graph.IsUnshared(middle)) continue;
    const NodeId q = graph.Uses(middle).front();
    if (!graph.Is(q, OpKind::kQuantizeLinear) || !graph.IsModifiable(q) || !SameQuantization(graph, dq, q)) continue;
    const ValueId source = graph.InputOf(dq, 0);
    const ValueId output = graph.OutputOf(q, 0);
    if (graph.IsGraphOutput(output)) {
      const NodeId producer = graph.Producer(source);
      if (producer == kNone || !graph.IsUnshared(source) || !graph.IsModifiable(producer)) continue;
      graph.RenameOutput(q, 0, "_removed");
      graph.RemoveNode(q);
      graph.RemoveNode(dq);
      int slot = 0;
      while (graph.OutputOf(producer, slot) != source) ++slot;
      graph.TakeOverOutput(producer, slot, output);
    } else {
      if (!graph.HasCompleteConsumers(output)) continue;
      for (NodeId reader : graph.Consumers(output))
        for (int i = 0; i < graph.InputCount(reader); ++i)
          if (graph.InputOf(reader, i) == output) graph.SetInput(reader, i, source);
      graph.RemoveNode(q);
      graph.RemoveNode(dq);
    }
    ++result.counters["qdq_pairs_removed"];
  }
}

}  // namespace

void TransposeOptimizer::Run(core::builder::GraphGraph& graph, PassResult& result) const {
  PushGraph push_graph(graph, options_.locked);
  const std::int64_t opset = push_graph.Opset();
  if (opset < kMinTransposeOpset || opset > kMaxTransposeOpset) {
    ++result.counters["stop: the model's opset is outside the supported range"];
    return;
  }
  CostModelContext cost(push_graph, &options_.extended_handlers, options_.cost_model, options_.cost_hook);
  cost.SetUseMemo(options_.use_memo);
  cost.ComputePrefilter();
  SweepCounts stops;
  SweepCounts done;
  PushPlan plan;
  for (NodeId node : push_graph.Snapshot()) {
    if (push_graph.IsRemoved(node)) continue;
    for (int slot = 0; slot < push_graph.InputCount(node); ++slot) {
      const NodeId transpose = IncomingTranspose(push_graph, node, slot);
      if (transpose == kNone) continue;
      if (!push_graph.IsModifiable(node)) {
        stops.Add("the node may not be modified");
        break;
      }
      if (TryPush(push_graph, cost, transpose, node, slot, plan, stops, done)) break;
    }
  }
  stops.AddTo(result, "stop: ");
  done.AddTo(result, "");
  if (push_graph.Changed()) RemoveEmptyQdqPairs(push_graph, result);
  const WalkCounters& walk = cost.Counters();
  result.counters["walk_frames"] += walk.frames;
  result.counters["memo_hits"] += walk.memo_hits;
  result.counters["memo_erased"] += walk.memo_erased;
  result.counters["memo_inspected"] += walk.memo_inspected;
  push_graph.Finish(result.modified_nodes);
}

void RegisterTransposeOptimizer() { core::builder::RegisterPattern<TransposeOptimizer>("transpose"); }

}  // namespace onnxopt::onnx_transpose
