#pragma once
// The cost model of the transpose optimizer (transpose-optimizer.md section 5)
// and the push walk that predicts where pushed copies end (section 6): an
// explicit stack (no recursion), read-only on the graph, memoized by (value id,
// interned perm id) for the whole call, with upstream invalidation after each
// edit.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_extensions/transpose/handlers.h"
#include "onnx_extensions/transpose/perm.h"
#include "onnx_extensions/transpose/push_graph.h"

namespace onnxopt::onnx_transpose {

enum class CostModel {
  // The seed's model: the output cost is waived only for a cancellation, or a
  // merge of an
  // unshared Transpose, reached on every branch; plus the QDQ guard.
  kCancellationAware,
  // onnxruntime's: waived when any output leads to a Transpose.
  kDefault,
};

enum class HookDecision { kStop, kPush, kFallThrough };
using CostHook = std::function<HookDecision(const PushGraph& graph, NodeId node, const Perm& perm)>;

// Where the copies of one push end (section 5.2.2); OR-combined over branches.
// `absorbed`: some branch ends in an op that takes the copy in (Reduce with keepdims=0
// over the moved axes, Shape, an identity output perm). The specification counts such a
// branch as covered without a Transpose reached; here it counts like a cancellation, since
// the copy disappears there (onnxruntime's default model pushes in that case too, and a
// channels-last head Relu -> ReduceMean would otherwise keep its Transpose).
struct WalkFlags {
  bool reaches_transpose = false;
  bool reaches_cancel = false;
  bool absorbed = false;
  bool stranded = false;
  void Merge(const WalkFlags& other) {
    reaches_transpose |= other.reaches_transpose;
    reaches_cancel |= other.reaches_cancel;
    absorbed |= other.absorbed;
    stranded |= other.stranded;
  }
  // Some copy disappears downstream (cancelled, merged or absorbed).
  bool Removed() const { return reaches_transpose || absorbed; }
  // Some copy disappears without leaving a Transpose (cancelled or absorbed).
  bool Cancelled() const { return reaches_cancel || absorbed; }
};

// The memo of the push walk (6.1 items 3-5): (value id, perm id) -> flags for
// the whole run. Entries are stored per value (the first inline, further perms
// of the same value in a small vector), so the key is two integers, a lookup
// hashes nothing, and erasing one value's entries touches only them. Once
// Reserve has sized it for the graph's values, Find, Insert and Erase allocate
// nothing while each value carries at most one perm (test T26).
class WalkMemo {
 public:
  struct Key {
    ValueId value = kNone;
    int perm_id = 0;
  };
  struct Entry {
    WalkFlags flags;
    bool in_progress = true;
  };
  // Makes room for value ids below `value_count` (grows only).
  void Reserve(std::size_t value_count);
  // Null when (value, perm) has no entry.
  Entry* Find(Key key);
  // A new entry, in progress; the key must have none.
  Entry& Insert(Key key);
  // Erases every entry of `value`; returns how many there were.
  std::int64_t Erase(ValueId value);
  bool HasEntries(ValueId value) const;
  // Erases everything (the walk without memo).
  void Clear();

 private:
  struct PerValue {
    int perm_id = kNone;  // kNone: no inline entry
    Entry entry;
    std::vector<std::pair<int, Entry>> more;
  };
  std::vector<PerValue> values_;
  std::vector<ValueId> filled_;  // values that got an entry since the last Clear
};

struct WalkCounters {
  std::int64_t frames = 0;  // (value, perm) frames evaluated
  std::int64_t memo_hits = 0;
  std::int64_t memo_erased = 0;     // entries erased by invalidation
  std::int64_t memo_inspected = 0;  // values looked at during invalidation
};

class CostModelContext {
 public:
  CostModelContext(const PushGraph& graph, const HandlerTable* extended, CostModel model, CostHook hook);

  // Phase A: the values from which a chain of handled ops reaches a Transpose.
  void ComputePrefilter();

  // The decision at the root (5.2.5); "" to push, else the stop reason (a
  // literal).
  std::string_view Decide(NodeId transpose, NodeId node, const Perm& perm, const Handler& handler,
                          const PushPlan* plan);

  // Drops the memo entries made stale by the edits since the last call (6.2).
  void Invalidate(std::vector<ValueId> dirty);

  const WalkCounters& Counters() const { return counters_; }
  // FindHandler with this context's extended table, cached per node until the
  // node is edited.
  const Handler* HandlerOf(NodeId node) const;
  // The walk without the memo (debug audit and tests): the same answer or a
  // memo bug.
  void SetUseMemo(bool use) { use_memo_ = use; }

 private:
  std::int64_t InputCost(NodeId node, const Perm& perm, const std::vector<int>& slots, ValueId copy) const;
  bool LikelyRemovable(ValueId transposed) const;
  // A copy with `perm` writing `value` moves only axes of size 1 there (the other axes
  // keep their order): it is a Reshape, which moves no data (and which
  // TransposeEqualReshapePattern makes one). The walk counts it as a merge (the copy is
  // removed, a node stays): a channels-last head Transpose -> Relu -> ReduceMean(keepdims=1)
  // over H and W is pushed to the pooled [N,C,1,1] tensor instead of staying on the
  // [N,H,W,C] one; a shared Transpose still needs a cancellation (PP-OCRv4 rec's
  // LayerNorm, whose ReduceMean is one of three readers, keeps its Transpose).
  bool CopyIsAReshape(ValueId value, const Perm& perm) const;
  // In a walk, another input `value` of a multi-input node counts as a copy when it is the
  // output of a unary-like handled node fed by a Transpose of the same perm: the sweep
  // reaches that node too and (this same rule applying to its own walk) pushes the
  // Transpose through it. A refinement of 5.2.6 for parallel branches joined by Concat or
  // Add (onnxruntime's default model pushes them all); when the sibling push does not
  // happen, the copy has moved past one node at unchanged ρ.
  bool IsPendingCopy(ValueId value, const Perm& perm) const;
  std::int64_t OutputCost(NodeId node) const;
  bool InPrefilter(NodeId node) const;
  bool QdqGuardApplies(NodeId transpose, NodeId node) const;
  // Aggregated flags of copies with perms `perms` on the outputs of `node`.
  WalkFlags WalkOutputs(NodeId node, const std::vector<Perm>& perms);
  WalkFlags WalkValue(ValueId value, int perm_id);
  // The id of `perm`; kIdentityPermId for an empty or identity perm (nothing
  // inserted: the copy is absorbed).
  int Intern(const Perm& perm);
  static constexpr int kIdentityPermId = -1;

  // One terminal or accepted step of a copy with perm `perm` arriving on
  // `value` at consumer `consumer`. Returns true when the outputs, with the
  // perm ids `sub_perm_ids`, must be walked (accepted so far; `slots` holds the
  // consumer's transposable inputs); otherwise `flags` holds the branch's result.
  bool ClassifyConsumer(ValueId value, const Perm& perm, NodeId consumer, WalkFlags& flags, std::vector<int>& slots,
                        std::vector<int>& sub_perm_ids);
  // Steps 7-8 of 5.2.4 once the outputs' flags are known (`slots` from
  // ClassifyConsumer).
  bool AcceptWithSub(ValueId value, const Perm& perm, NodeId consumer, const std::vector<int>& slots,
                     const WalkFlags& sub) const;

  // A (value, perm) frame of the walk's explicit stack; frames_ keeps them
  // (and their buffers) from one walk to the next.
  struct Frame {
    ValueId value = kNone;
    int perm_id = 0;
    std::vector<NodeId> consumers;
    std::size_t next = 0;
    WalkFlags flags;
    // The consumer being crossed, once accepted by steps 1-6.
    NodeId node = kNone;
    std::vector<int> node_slots;
    std::vector<int> sub_perm_ids;
    std::size_t next_output = 0;
    WalkFlags sub;
  };

  const PushGraph& graph_;
  const HandlerTable* extended_;
  CostModel model_;
  CostHook hook_;
  std::vector<bool> prefilter_;
  bool use_memo_ = true;

  struct CachedHandler {
    bool known = false;
    std::uint32_t edits = 0;  // PushGraph::Edits when looked up
    const Handler* handler = nullptr;
  };
  mutable std::vector<CachedHandler> handlers_;
  WalkMemo memo_;
  // Handler::slots of the node at hand (the prefilter, Decide) and of the
  // producer IsPendingCopy looks at (while InputCost iterates other slots).
  std::vector<int> slots_;
  mutable std::vector<int> pending_copy_slots_;
  // The plans the walk previews into: a consumer's, and (InputCost looking at a
  // sibling input while the consumer's plan is still needed) IsPendingCopy's.
  PushPlan walk_plan_;
  mutable PushPlan pending_copy_plan_;
  std::vector<Frame> frames_;
  std::map<Perm, int> perm_ids_;
  std::deque<Perm> perms_;  // by id; a deque keeps references valid while interning
  WalkCounters counters_;
};

}  // namespace onnxopt::onnx_transpose
