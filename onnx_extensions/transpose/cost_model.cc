#include "onnx_extensions/transpose/cost_model.h"

#include <algorithm>

#include "onnx_extensions/transpose/push_rewrite.h"

namespace onnxopt::onnx_transpose {

void WalkMemo::Reserve(std::size_t value_count) {
  // resize grows the capacity geometrically: amortized O(1) per new value.
  if (values_.size() < value_count) values_.resize(value_count);
}

WalkMemo::Entry* WalkMemo::Find(Key key) {
  if (!HasEntries(key.value)) return nullptr;
  PerValue& slot = values_[static_cast<std::size_t>(key.value)];
  if (slot.perm_id == key.perm_id) return &slot.entry;
  for (auto& [perm_id, entry] : slot.more)
    if (perm_id == key.perm_id) return &entry;
  return nullptr;
}

WalkMemo::Entry& WalkMemo::Insert(Key key) {
  PerValue& slot = values_[static_cast<std::size_t>(key.value)];
  if (slot.perm_id == kNone) {
    slot.perm_id = key.perm_id;
    slot.entry = Entry{};
    return slot.entry;
  }
  slot.more.emplace_back(key.perm_id, Entry{});
  return slot.more.back().second;
}

std::int64_t WalkMemo::Erase(ValueId value) {
  if (!HasEntries(value)) return 0;
  PerValue& slot = values_[static_cast<std::size_t>(value)];
  const auto erased = static_cast<std::int64_t>(1 + slot.more.size());
  slot.perm_id = kNone;
  slot.more.clear();  // keeps its capacity
  return erased;
}

bool WalkMemo::HasEntries(ValueId value) const {
  return value >= 0 && static_cast<std::size_t>(value) < values_.size() &&
         values_[static_cast<std::size_t>(value)].perm_id != kNone;
}

void WalkMemo::Clear() {
  for (PerValue& slot : values_) {
    slot.perm_id = kNone;
    slot.more.clear();
  }
}

CostModelContext::CostModelContext(const PushGraph& graph, const HandlerTable* extended, CostModel model, CostHook hook)
    : graph_(graph), extended_(extended), model_(model), hook_(std::move(hook)) {}

const Handler* CostModelContext::HandlerOf(NodeId node) const {
  const auto index = static_cast<std::size_t>(node);
  if (handlers_.size() <= index) handlers_.resize(std::max(graph_.NodeCount(), index + 1));
  CachedHandler& cached = handlers_[index];
  if (!cached.known || cached.edits != graph_.Edits(node)) {
    cached.handler = FindHandler(graph_, node, extended_);
    cached.edits = graph_.Edits(node);
    cached.known = true;
  }
  return cached.handler;
}

void CostModelContext::ComputePrefilter() {
  prefilter_.assign(graph_.ValueCount(), false);
  const std::vector<NodeId>& nodes = graph_.Snapshot();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const NodeId node = *it;
    // Where a walk can end with the copy gone: a Transpose or a Reshape that may be one
    // (cancellation, merge), a Shape, or an op that may drop the moved axes (a
    // ReduceMean with keepdims=0 at the head of a channels-last network). The walk
    // decides with the perm at hand.
    const OpKind kind = graph_.Kind(node);
    if (kind == OpKind::kTranspose || kind == OpKind::kReshape || kind == OpKind::kShape ||
        kind == OpKind::kRankReducing) {
      if (const ValueId input = graph_.InputOf(node, 0); input != kNone)
        prefilter_[static_cast<std::size_t>(input)] = true;
      if (kind != OpKind::kRankReducing) continue;
    }
    // The bitmap first: most nodes of most graphs lead to no Transpose.
    if (!InPrefilter(node)) continue;
    const Handler* handler = HandlerOf(node);
    if (!handler || !handler->inserts_output_transposes) continue;
    handler->slots(graph_, node, slots_);
    for (int slot : slots_)
      if (const ValueId input = graph_.InputOf(node, slot); input != kNone)
        prefilter_[static_cast<std::size_t>(input)] = true;
  }
}

bool CostModelContext::InPrefilter(NodeId node) const {
  for (int k = 0; k < graph_.Node(node).output_size(); ++k) {
    const ValueId output = graph_.OutputOf(node, k);
    if (output != kNone && static_cast<std::size_t>(output) < prefilter_.size() &&
        prefilter_[static_cast<std::size_t>(output)])
      return true;
  }
  return false;
}

bool CostModelContext::CopyIsAReshape(ValueId value, const Perm& perm) const {
  const core::shapes::SymTensor* known = graph_.Shape(value);
  if (!known || !known->shape.HasRank() || known->shape.Rank() != perm.size()) return false;
  std::int64_t last = -1;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    if (known->shape[i].Constant() == 1) continue;
    if (perm[i] < last) return false;
    last = perm[i];
  }
  return true;
}

bool CostModelContext::LikelyRemovable(ValueId transposed) const {
  if (!graph_.HasCompleteConsumers(transposed)) return false;
  for (NodeId consumer : graph_.Uses(transposed))
    if (!HandlerOf(consumer)) return false;
  return true;
}

std::int64_t CostModelContext::InputCost(NodeId node, const Perm& perm, const std::vector<int>& slots,
                                         ValueId copy) const {
  std::int64_t cost = 0;
  for (std::size_t j = 0; j < slots.size(); ++j) {
    const ValueId value = graph_.InputOf(node, slots[j]);
    if (value == kNone) continue;
    // A value read twice (Concat(t, t)) is transposed, or saved, once.
    bool repeated = false;
    for (std::size_t i = 0; i < j && !repeated; ++i) repeated = graph_.InputOf(node, slots[i]) == value;
    if (repeated) continue;
    if (value == copy) {
      cost -= LikelyRemovable(value) ? graph_.Weight(value) : 0;
      continue;
    }
    if (graph_.LocalConstant(value)) continue;
    const NodeId producer = graph_.Producer(value);
    if (graph_.Is(producer, OpKind::kTranspose)) {
      if (const Perm* own = graph_.TransposePerm(producer); own && *own == perm && LikelyRemovable(value))
        cost -= graph_.Weight(value);
      continue;
    }
    if (graph_.Is(producer, OpKind::kDequantizeLinear) && graph_.IsUnshared(value)) {
      const ValueId data = graph_.InputOf(producer, 0);
      if (data != kNone && graph_.LocalConstant(data)) continue;
    }
    if (copy != kNone && IsPendingCopy(value, perm)) {
      cost -= graph_.Weight(value);
      continue;
    }
    cost += graph_.Weight(value);
  }
  return cost;
}

bool CostModelContext::IsPendingCopy(ValueId value, const Perm& perm) const {
  if (!LikelyRemovable(value)) return false;
  const NodeId producer = graph_.Producer(value);
  if (producer == kNone || graph_.IsRemoved(producer) || !graph_.IsModifiable(producer)) return false;
  const NodeProto& proto = graph_.Node(producer);
  if (proto.output_size() != 1) return false;
  const Handler* handler = HandlerOf(producer);
  if (!handler || !handler->preview || handler->broadcasting || !handler->inserts_output_transposes) return false;
  handler->slots(graph_, producer, pending_copy_slots_);
  if (pending_copy_slots_.size() != 1 || pending_copy_slots_.front() != 0) return false;
  const ValueId input = graph_.InputOf(producer, 0);
  const NodeId transpose = input == kNone ? kNone : graph_.Producer(input);
  if (!graph_.Is(transpose, OpKind::kTranspose)) return false;
  if (const Perm* own = graph_.TransposePerm(transpose); !own || *own != perm || !LikelyRemovable(input)) return false;
  return PreviewPush(graph_, producer, *handler, perm, pending_copy_plan_).empty() &&
         pending_copy_plan_.output_perms.size() == 1 && pending_copy_plan_.output_perms.front() == perm;
}

std::int64_t CostModelContext::OutputCost(NodeId node) const {
  std::int64_t cost = 0;
  for (int k = 0; k < graph_.Node(node).output_size(); ++k)
    if (const ValueId output = graph_.OutputOf(node, k); output != kNone) cost = std::max(cost, graph_.Weight(output));
  return cost;
}

bool CostModelContext::QdqGuardApplies(NodeId transpose, NodeId node) const {
  if (!graph_.Is(node, OpKind::kQuantizeLinear)) return false;
  const ValueId input = graph_.InputOf(transpose, 0);
  const NodeId producer = input == kNone ? kNone : graph_.Producer(input);
  if (!graph_.Is(producer, OpKind::kDequantizeLinear)) return false;
  const ValueId output = graph_.OutputOf(transpose, 0);
  if (!graph_.HasCompleteConsumers(output)) return false;
  for (NodeId consumer : graph_.Consumers(output))
    if (!graph_.Is(consumer, OpKind::kQuantizeLinear)) return false;
  return true;
}

int CostModelContext::Intern(const Perm& perm) {
  if (perm.empty() || IsIdentityPermutation(perm)) return kIdentityPermId;
  // try_emplace allocates only when the perm is new.
  auto [it, inserted] = perm_ids_.try_emplace(perm, static_cast<int>(perms_.size()));
  if (inserted) perms_.push_back(perm);
  return it->second;
}

bool CostModelContext::ClassifyConsumer(ValueId value, const Perm& perm, NodeId consumer, WalkFlags& flags,
                                        std::vector<int>& slots, std::vector<int>& sub_perm_ids) {
  const OpKind kind = graph_.Kind(consumer);
  if (kind == OpKind::kTranspose || kind == OpKind::kReshape) {
    // A Transpose, or a Reshape equivalent to one, cancels or merges; any other Reshape
    // strands the copy (5.2.3 rules 2-3).
    const std::optional<Perm> second = TransposeLikePerm(graph_, consumer);
    if (!second || second->size() != perm.size()) {
      flags.stranded = true;
    } else {
      flags.reaches_transpose = true;
      flags.reaches_cancel = ComposesToIdentity(perm, *second);
    }
    return false;
  }
  const Handler* handler = HandlerOf(consumer);
  // Unmodelled handlers and layout-sensitive ops end the branch (5.2.4 rule 1).
  if (!handler || !handler->preview || !graph_.IsModifiable(consumer)) {
    flags.stranded = true;
    return false;
  }
  handler->slots(graph_, consumer, slots);
  for (int i = 0; i < graph_.InputCount(consumer); ++i) {
    if (graph_.InputOf(consumer, i) != value) continue;
    if (std::find(slots.begin(), slots.end(), i) == slots.end()) {
      flags.stranded = true;
      return false;
    }
  }
  const ValueId output = graph_.OutputOf(consumer, 0);
  const std::optional<std::size_t> output_rank = output == kNone ? std::nullopt : graph_.Rank(output);
  if (handler->broadcasting && output_rank && *output_rank > perm.size()) {
    // A lower-rank copy: a pending merge if a full-rank Transpose feeds another
    // input (5.2.3 rule 4).
    for (int slot : slots) {
      const ValueId other = graph_.InputOf(consumer, slot);
      const NodeId producer = other == kNone || other == value ? kNone : graph_.Producer(other);
      if (!graph_.Is(producer, OpKind::kTranspose)) continue;
      const Perm* full = graph_.TransposePerm(producer);
      if (full && full->size() == *output_rank && graph_.Rank(other) == output_rank) {
        flags.reaches_transpose = true;
        return false;
      }
    }
    flags.stranded = true;
    return false;
  }
  const HookDecision hook = hook_ ? hook_(graph_, consumer, perm) : HookDecision::kFallThrough;
  if (hook == HookDecision::kStop) {
    flags.stranded = true;
    return false;
  }
  if (!PreviewPush(graph_, consumer, *handler, perm, walk_plan_).empty()) {
    flags.stranded = true;
    return false;
  }
  if (hook != HookDecision::kPush && InputCost(consumer, perm, slots, value) >= 0) {
    flags.stranded = true;
    return false;
  }
  if (!handler->inserts_output_transposes || walk_plan_.absorbs) {
    flags.absorbed = true;
    return false;
  }
  sub_perm_ids.clear();
  for (const Perm& output_perm : walk_plan_.output_perms) sub_perm_ids.push_back(Intern(output_perm));
  return true;
}

bool CostModelContext::AcceptWithSub(ValueId value, const Perm& perm, NodeId consumer, const std::vector<int>& slots,
                                     const WalkFlags& sub) const {
  if (hook_ && hook_(graph_, consumer, perm) == HookDecision::kPush) return true;
  const std::int64_t input_cost = InputCost(consumer, perm, slots, value);
  const bool waived = sub.Removed() && !sub.stranded && (sub.Cancelled() || graph_.IsUnshared(value));
  if (input_cost + OutputCost(consumer) >= 0 && !waived) return false;
  // The QDQ guard, as if the copy sat on `value` (5.2.4 rule 8).
  if (graph_.Is(consumer, OpKind::kQuantizeLinear)) {
    bool unit = graph_.Is(graph_.Producer(value), OpKind::kDequantizeLinear) && graph_.HasCompleteConsumers(value);
    for (NodeId other : graph_.Consumers(value)) unit = unit && graph_.Is(other, OpKind::kQuantizeLinear);
    if (unit && !sub.Cancelled()) return false;
  }
  return true;
}

WalkFlags CostModelContext::WalkOutputs(NodeId node, const std::vector<Perm>& perms) {
  if (!use_memo_) memo_.Clear();
  WalkFlags flags;
  for (std::size_t k = 0; k < perms.size(); ++k) {
    const ValueId output = graph_.OutputOf(node, static_cast<int>(k));
    if (output == kNone) continue;
    if (perms[k].empty() || IsIdentityPermutation(perms[k])) {
      flags.absorbed = true;
      continue;
    }
    flags.Merge(WalkValue(output, Intern(perms[k])));
  }
  if (!use_memo_) memo_.Clear();
  return flags;
}

WalkFlags CostModelContext::WalkValue(ValueId root, int root_perm) {
  memo_.Reserve(graph_.ValueCount());
  // frames_[0, depth) is the stack; frames above it keep their buffers for the
  // next walks.
  std::size_t depth = 0;
  // Looks (value, perm) up; true with `flags` set when known (re-entry is
  // stranded).
  auto known = [&](ValueId value, int perm_id, WalkFlags& flags) {
    const WalkMemo::Entry* entry = memo_.Find({value, perm_id});
    if (!entry) return false;
    if (entry->in_progress) {
      flags.stranded = true;
    } else {
      flags = entry->flags;
      ++counters_.memo_hits;
    }
    return true;
  };
  auto open = [&](ValueId value, int perm_id) {
    ++counters_.frames;
    memo_.Insert({value, perm_id});
    if (depth == frames_.size()) frames_.emplace_back();
    Frame& frame = frames_[depth++];
    frame.value = value;
    frame.perm_id = perm_id;
    graph_.ConsumersInto(value, frame.consumers);
    frame.next = 0;
    frame.flags = WalkFlags{};
    // An incomplete consumer list strands the copy; the consumers still count
    // (5.2.3 rule 1).
    frame.flags.stranded = !graph_.HasCompleteConsumers(value);
    if (CopyIsAReshape(value, perms_[static_cast<std::size_t>(perm_id)])) {
      // The copy may stay here as a Reshape, whoever reads it: a merge, wherever the
      // sweep then takes it.
      frame.consumers.clear();
      frame.flags.stranded = false;
      frame.flags.reaches_transpose = true;
    }
    frame.node = kNone;
    frame.sub_perm_ids.clear();
    frame.next_output = 0;
    frame.sub = WalkFlags{};
  };
  WalkFlags result;
  if (known(root, root_perm, result)) return result;
  open(root, root_perm);
  bool child_done = false;
  while (depth > 0) {
    Frame& frame = frames_[depth - 1];
    if (child_done) {
      frame.sub.Merge(result);
      ++frame.next_output;
      child_done = false;
    }
    if (frame.node != kNone) {
      bool descended = false;
      while (frame.next_output < frame.sub_perm_ids.size()) {
        const int perm_id = frame.sub_perm_ids[frame.next_output];
        const ValueId output = graph_.OutputOf(frame.node, static_cast<int>(frame.next_output));
        if (output == kNone) {
          ++frame.next_output;
          continue;
        }
        if (perm_id == kIdentityPermId) {
          frame.sub.absorbed = true;
          ++frame.next_output;
          continue;
        }
        WalkFlags flags;
        if (known(output, perm_id, flags)) {
          frame.sub.Merge(flags);
          ++frame.next_output;
          continue;
        }
        open(output, perm_id);  // may move frames_: `frame` is not used after it
        descended = true;
        break;
      }
      if (descended) continue;
      if (AcceptWithSub(frame.value, perms_[static_cast<std::size_t>(frame.perm_id)], frame.node, frame.node_slots,
                        frame.sub)) {
        frame.flags.Merge(frame.sub);
      } else {
        frame.flags.stranded = true;
      }
      frame.node = kNone;
      ++frame.next;
    }
    bool entered = false;
    while (frame.next < frame.consumers.size()) {
      WalkFlags flags;
      const NodeId consumer = frame.consumers[frame.next];
      if (ClassifyConsumer(frame.value, perms_[static_cast<std::size_t>(frame.perm_id)], consumer, flags,
                           frame.node_slots, frame.sub_perm_ids)) {
        frame.node = consumer;
        frame.next_output = 0;
        frame.sub = WalkFlags{};
        entered = true;
        break;
      }
      frame.flags.Merge(flags);
      ++frame.next;
    }
    if (entered) continue;
    WalkMemo::Entry* entry = memo_.Find({frame.value, frame.perm_id});
    entry->flags = frame.flags;
    entry->in_progress = false;
    result = frame.flags;
    --depth;
    child_done = depth > 0;
  }
  return result;
}

void CostModelContext::Invalidate(std::vector<ValueId> dirty) {
  // Erase the entries of each dirty value, then of the values upstream of it,
  // stopping at values without entries (every walk that visited a value left an
  // entry on it).
  while (!dirty.empty()) {
    const ValueId value = dirty.back();
    dirty.pop_back();
    ++counters_.memo_inspected;
    if (!memo_.HasEntries(value)) continue;
    counters_.memo_erased += memo_.Erase(value);
    const NodeId producer = graph_.Producer(value);
    if (producer == kNone) continue;
    for (int i = 0; i < graph_.InputCount(producer); ++i)
      if (const ValueId input = graph_.InputOf(producer, i); input != kNone) dirty.push_back(input);
  }
}

std::string_view CostModelContext::Decide(NodeId transpose, NodeId node, const Perm& perm, const Handler& handler,
                                          const PushPlan* plan) {
  const HookDecision hook = hook_ ? hook_(graph_, node, perm) : HookDecision::kFallThrough;
  if (hook == HookDecision::kStop) return "the cost hook refused";
  if (hook == HookDecision::kPush) return "";
  if (TransposeLikePerm(graph_, node)) return "";
  handler.slots(graph_, node, slots_);
  const std::int64_t input_cost = InputCost(node, perm, slots_, kNone);
  if (input_cost >= 0) return "pushing does not lower the input cost";
  WalkFlags walk;
  bool walked = false;
  // A shared Transpose stays for its other consumers: its −ρ in the input cost is only
  // earned once every consumer has been pushed through, so in the cancellation-aware model
  // it is pushed only toward a cancellation covering every branch (section 7), even when
  // the output cost looks covered (otherwise one Transpose of rank 5 feeding three Slices
  // becomes three copies of rank 4: PP-OCRv4 rec).
  const bool shared = !graph_.IsUnshared(graph_.OutputOf(transpose, 0));
  const bool must_walk = model_ == CostModel::kCancellationAware && shared;
  if (handler.inserts_output_transposes && (must_walk || input_cost + OutputCost(node) >= 0)) {
    if (!InPrefilter(node)) return "the output Transpose would not be removed downstream";
    if (model_ == CostModel::kCancellationAware) {
      walk = WalkOutputs(node, plan->output_perms);
      walked = true;
      if (!walk.Removed()) return "the output Transpose would not be removed downstream";
      if (walk.stranded) return "a pushed copy would be stranded on a branch";
      if (!walk.Cancelled() && shared) return "a shared Transpose would only merge downstream";
    }
  }
  if (model_ == CostModel::kCancellationAware && QdqGuardApplies(transpose, node)) {
    if (!walked) walk = WalkOutputs(node, plan->output_perms);
    if (!walk.Cancelled()) return "the Transpose is in a DQ-Transpose-Q unit and nothing cancels downstream";
  }
  return "";
}

}  // namespace onnxopt::onnx_transpose
