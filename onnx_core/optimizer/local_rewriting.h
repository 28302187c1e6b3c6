#pragma once
// Rewrites as data.
//
// Optimize returns what it did as a sequence of LocalRewriting records, grouped in
// ordered batches (records with the same `iteration` and `graph_path`). A record owns
// everything it adds and refers to the graph by position only, so it outlives the
// optimizer and can be saved (rewrite_file.h) and applied to a fresh copy of the model:
//
//   matched_nodes, removed_initializers  positions in the graph at the start of the batch
//   added_nodes_positions,               positions in the graph after the batch
//   added_initializer_positions
//   value_renames                        applied after the batch to every use, in this
//                                        graph and in graphs nested in it
//
// Cleanup passes and constant folding are records too (their `pattern` is a
// NamedOperation), so the sequence alone reconstructs the optimized graph: Replay never
// matches and never cleans up.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/pattern.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::core::builder {

struct LocalRewriting {
  // The pattern or operation that produced the record; its Name() is the stable name.
  std::shared_ptr<const PatternOptimization> pattern;
  // Positions in the graph at the start of this batch. They cannot be positions in the
  // original model because prior batches may add or remove nodes.
  std::vector<std::size_t> matched_nodes;
  utils::RepeatedProtoField<NodeProto> added_nodes;  // replacement nodes
  std::vector<std::size_t> added_nodes_positions;    // one per added node, after the batch
  utils::RepeatedProtoField<TensorProto> added_initializers;
  std::vector<std::size_t> added_initializer_positions;  // after the batch
  std::vector<std::size_t> removed_initializers;         // at the start of the batch
  std::vector<std::pair<std::string, std::string>> value_renames;  // (from, to)
  std::size_t iteration = 0;  // the ordered batch this record belongs to
  // The nested graph the batch applies to (empty: the main graph).
  std::vector<SubgraphKey> graph_path;
  // Time spent matching (the successful Match call) and applying (Apply, folding).
  std::int64_t match_time_ns = 0;
  std::int64_t apply_time_ns = 0;

  std::string Name() const;  // pattern->Name()
  std::string ToString() const;
};

// Replays `rewrites` on a copy of `model`'s main graph and returns it.
GraphProto Replay(const ModelProto& model, const std::vector<LocalRewriting>& rewrites);
// Replays `rewrites` in place (no copy of the weights). Throws BuilderError naming the
// record when a record does not fit the graph (positions out of range or repeated).
void Replay(GraphBuilder& builder, const std::vector<LocalRewriting>& rewrites);

// One rewrite batch on one graph: what leaves the node and initializer fields (positions
// before the batch) and what enters them (owned elements with their positions after the
// batch). Optimize and Replay both change a graph through ApplyBatch, which moves
// pointers and never copies a NodeProto or TensorProto.
struct BatchEdit {
  std::vector<std::size_t> removed_nodes;
  std::vector<std::pair<std::size_t, NodeProto*>> added_nodes;  // owned until applied
  std::vector<std::size_t> removed_initializers;
  std::vector<std::pair<std::size_t, TensorProto*>> added_initializers;  // owned until applied
  // Label for errors ("batch 3 (CastCastPattern, ...)").
  std::string label;

  ~BatchEdit();  // deletes elements not handed over
};
void ApplyBatch(GraphBuilder& builder, BatchEdit& edit);

}  // namespace onnxopt::core::builder
