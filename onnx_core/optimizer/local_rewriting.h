#pragma once
// Rewrites as data.
//
// Optimize returns what it did as a sequence of LocalRewriting records, grouped in
// ordered batches (records with the same `iteration` and `graph_path`). A record owns
// everything it adds and refers to the graph by position only, so it outlives the
// optimizer and can be saved (rewrite_file.h) and applied to a fresh copy of the model:
//
//   matched_nodes, removed_initializers  positions in the graph at the start of the batch
//   matched_node_signatures              what the nodes at matched_nodes were (optional)
//   added_nodes_positions,               positions in the graph after the batch
//   added_initializer_positions
//   value_renames                        applied after the batch to every use, in this
//                                        graph and in graphs nested in it
//   removed_functions                    positions in the model's local functions at the
//                                        start of the batch
//   added_functions                      appended to the model's local functions, in
//                                        record order, after the removals (the model's,
//                                        whichever graph the batch rewrites)
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

// What a removed node was, so that Replay can check that a recorded position still
// designates it: its operator, domain and outputs.
struct NodeSignature {
  std::string op_type;
  std::string domain;
  std::vector<std::string> outputs;

  static NodeSignature Of(const NodeProto& node);
  std::string ToString() const;  // "Cast (outputs 'b')", "com.microsoft.FusedMatMul (outputs 'y')"
  bool operator==(const NodeSignature&) const = default;
};

struct LocalRewriting {
  // The pattern or operation that produced the record; its Name() is the stable name.
  std::shared_ptr<const PatternOptimization> pattern;
  // Positions in the graph at the start of this batch. They cannot be positions in the
  // original model because prior batches may add or remove nodes.
  std::vector<std::size_t> matched_nodes;
  // One per matched_nodes entry, or empty when not known. Optimize leaves them empty;
  // DescribeRemovedNodes fills them (onnxopt optimize --record does) and the rewrite file
  // keeps them.
  std::vector<NodeSignature> matched_node_signatures;
  utils::RepeatedProtoField<NodeProto> added_nodes;  // replacement nodes
  std::vector<std::size_t> added_nodes_positions;    // one per added node, after the batch
  utils::RepeatedProtoField<TensorProto> added_initializers;
  std::vector<std::size_t> added_initializer_positions;  // after the batch
  std::vector<std::size_t> removed_initializers;         // at the start of the batch
  std::vector<std::pair<std::string, std::string>> value_renames;  // (from, to)
  // Local functions the rewrite added to the model (GraphBuilder::GetOrAddFunction, first
  // use of a (domain, name) only), with the opset imports that adding them implies.
  utils::RepeatedProtoField<FunctionProto> added_functions;
  // Positions in the model's local functions at the start of the batch
  // (RemoveUnusedFunctions).
  std::vector<std::size_t> removed_functions;
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
// Replays `rewrites` in place (no copy of the weights). Records are untrusted (a rewrite
// file may have been edited, or recorded on another model): every batch is checked, and
// a record that does not fit raises BuilderError naming the batch, the record and what
// differs, leaving the graph in an unspecified state. Checked: the nested graph exists;
// positions are in range and not repeated; each removed node has the recorded signature
// (when recorded); no tensor a record adds has its data in an external file; and, on a
// root builder, the model passes the checks of loading (ir::CheckModel: values defined
// before use, no duplicate definition...) after the batch.
void Replay(GraphBuilder& builder, const std::vector<LocalRewriting>& rewrites);

// A copy of `model` without the data of its main graph's initializers: all a replay needs
// to follow the records (positions, names), light enough to keep while the model itself
// is optimized.
ModelProto ReplaySkeleton(const ModelProto& model);
// Fills matched_node_signatures of every record by replaying `rewrites` on `skeleton`,
// the ReplaySkeleton of the model they were made on. Throws BuilderError like Replay.
void DescribeRemovedNodes(ModelProto skeleton, std::vector<LocalRewriting>& rewrites);

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
