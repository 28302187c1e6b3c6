#pragma once
// The per-operator handler table of the transpose optimizer
// (transpose-optimizer.md section 4): for each (domain, op type), which inputs
// a Transpose may be pushed through, and a read-only preview that turns "push
// perm P through this node" into a PushPlan. The rewrite (push_rewrite.h)
// executes a plan; it never decides anything itself, so the preview and the
// rewrite cannot disagree.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_extensions/transpose/perm.h"
#include "onnx_extensions/transpose/push_graph.h"

namespace onnxopt::onnx_transpose {

// What pushing a Transpose through a node does, decided before any edit.
struct PushPlan {
  // Input slots that get Transpose(·, P⁻¹) (the slot fed by the pushed
  // Transpose among them).
  std::vector<int> slots;
  // Broadcasting op: lower-rank inputs get leading 1-axes first (section 3.4).
  bool broadcast = false;
  // Perm of the copy inserted on each output; an identity (or empty) perm
  // inserts nothing.
  std::vector<Perm> output_perms;
  // Attribute edits of the node.
  std::vector<std::pair<std::string, std::int64_t>> set_int;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> set_ints;
  std::vector<std::string> drop_attributes;
  // Input edits: a new constant (same element type as given) or a Gather of the
  // input.
  struct InputEdit {
    int slot = 0;
    bool gather = false;  // false: a new constant holding `values`
    std::vector<std::int64_t> values;
    int elem_type = TensorProto::INT64;
  };
  std::vector<InputEdit> input_edits;
  // Shape: the node reads the untransposed input and a Gather of
  // `absorbed_indices` produces its old output (no copy).
  bool absorbs = false;
  std::vector<std::int64_t> absorbed_indices;

  // Empties the plan for the next preview (the vectors keep their memory: the walk
  // previews every node it crosses). A field added above must be emptied there too.
  void Reset();
};

// A handler's preview: fills `plan` (empty when called) and returns "", or returns
// the reason it refuses the node (a literal; `plan` is then meaningless).
using PreviewFunction = std::string_view (*)(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan);

struct Handler {
  // Sets `slots` to the transposable input slots of `node` (a buffer the caller
  // reuses: the walk asks for every node it crosses).
  void (*slots)(const PushGraph& graph, NodeId node, std::vector<int>& slots) = nullptr;
  // Null for an extended handler without a model: the sweep pushes through it
  // as through a unary op, the cancellation walk treats it as a dead end.
  PreviewFunction preview = nullptr;
  // False for Transpose and Shape, which absorb the pushed Transpose.
  bool inserts_output_transposes = true;
  // Lowest opset (of the node's domain) the handler accepts.
  std::int64_t min_opset = 1;
  // Broadcasting op: inputs of lower rank take part (rank normalization, 5.2.3
  // rule 4).
  bool broadcasting = false;
};

// Extended handlers, looked up before the default table; keyed by op type for
// the ONNX domain and by "domain.op_type" otherwise.
using HandlerTable = std::vector<std::pair<std::string, Handler>>;

// The node's handler (extended table first), or null when the op has none
// (layout- sensitive ops, unknown ops) or the opset is below the handler's.
const Handler* FindHandler(const PushGraph& graph, NodeId node, const HandlerTable* extended);

// A handler without a preview for an op whose only transposable input is the
// first (test and provider ops).
Handler UnmodelledUnaryHandler();

// The handler's preview into `plan` (emptied first), checked: every output perm
// is a valid perm whose length equals the output's known rank. Handlers without a
// preview get the unary plan. "" when the plan holds, else the refusal.
std::string_view PreviewPush(const PushGraph& graph, NodeId node, const Handler& handler, const Perm& perm,
                             PushPlan& plan);

// The perm a Reshape is equivalent to (section 4.10): constant shape input, static input
// and output shapes of the same rank, and the dims other than 1 in the same order; nullopt
// otherwise.
std::optional<Perm> ReshapeAsPerm(const PushGraph& graph, NodeId reshape);
// The perm of a Transpose-like consumer: a Transpose's valid explicit perm, or the perm of
// a Reshape equivalent to a Transpose.
std::optional<Perm> TransposeLikePerm(const PushGraph& graph, NodeId node);

}  // namespace onnxopt::onnx_transpose
