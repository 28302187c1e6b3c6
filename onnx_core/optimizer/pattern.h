#pragma once
// The pattern API: a pattern recognizes a small subgraph around a candidate node (Match)
// and produces the nodes that replace it (Apply).
//
// Patterns are stateless: one object serves every graph and every iteration, and may be
// shared by several optimizers at once. Match is read-only and reports why it rejects a
// candidate with NoMatch; a rejection is ordinary control flow, never an exception.
// Apply is only called by the driver with the nodes a successful Match returned; calling
// it with anything else is a contract violation and throws BuilderError.
//
// Invariant every pattern keeps: a value it produces is either the output of a node it
// removes (the output keeps its name, so consumers need no change) or a new name from
// GraphBuilder::UniqueName. It never redefines a value produced by a node that stays.

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/common/source_location.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::core::builder {

class GraphGraph;
class PatternOptimization;

// How a rewrite may change the numbers a model computes. Every pattern declares its class
// (kNumerics in built-in patterns, an argument of RegisterPattern otherwise); the default
// selection leaves the approximate ones out, so that `optimize` keeps results unless a
// user asks otherwise.
enum class NumericalClass {
  // Every output compares equal to the original's (IEEE equality: NaN where NaN, the sign
  // of a zero may differ), for every input.
  kExact,
  // Same element types everywhere; float results may round differently because
  // operations are reordered or fused (a sum reassociated, a normalization fused).
  kRounding,
  // Computes something in another precision (skipping a rounding through a narrower
  // type, or computing in a wider or narrower one), or gives another result for some
  // inputs (NaN, infinities). Opt-in only.
  kApproximate,
};

// "exact", "rounding", "approximate": the names `onnxopt patterns` shows.
std::string_view NumericalClassName(NumericalClass numerics);

// When a pattern or pass runs in GraphGraph::Optimize (graph_pass.h explains the stages).
enum class OptimizationStage {
  kBeforeShapeInference,
  kMain,
  kAfterPatterns,
  kFinal,
};
// "before-shape-inference", "main", "after-patterns", "final".
std::string_view OptimizationStageName(OptimizationStage stage);

// Why a candidate was rejected: a literal reason and the C++ line that rejected it.
struct NoMatchReason {
  std::string_view reason;  // a string literal: no allocation on the matching path
  SourceLocation where;
  // Set by a rejection made outside C++ (a Python pattern's no_match names the Python line
  // that rejected), which a SourceLocation cannot hold. Static storage duration.
  const char* foreign_file = nullptr;
  unsigned foreign_line = 0;

  const char* FileName() const { return foreign_file ? foreign_file : where.file_name(); }
  unsigned Line() const { return foreign_file ? foreign_line : static_cast<unsigned>(where.line()); }
};

// The result of PatternOptimization::Match. A successful match names its pattern and the
// matched nodes; a failed one has no pattern and carries the rejection reason.
struct MatchResult {
  const PatternOptimization* pattern = nullptr;
  // The matched nodes, in the order Apply expects them. Entries may be null (a gap: an
  // optional node that is absent); they are passed to Apply as they are.
  std::vector<const NodeProto*> nodes;
  // Where the replacement goes: at this node's position (replacing it when it is matched,
  // before it otherwise). Null: at the first matched node's position.
  const NodeProto* insert_at = nullptr;
  NoMatchReason no_match{};  // set when `pattern` is null

  explicit operator bool() const { return pattern != nullptr; }
  std::string ToString() const;
};

class PatternOptimization {
 public:
  explicit PatternOptimization(int priority = 1) : priority(priority) {}
  virtual ~PatternOptimization() = default;

  // The stable name users select the pattern by and reports show: the class name.
  virtual std::string Name() const = 0;

  // Operator types this pattern can start from: the driver calls Match only on nodes of
  // these types. Empty: every node is a candidate.
  virtual std::set<std::string> FastOpType() const { return {}; }

  // The match rooted at `candidate`, or NoMatch(candidate, reason).
  virtual MatchResult Match(GraphGraph& graph, const NodeProto& candidate) const = 0;

  // The replacement of the matched nodes (a kept node is returned again, as a copy). Each
  // node must be valid at the opset the model imports (ir::CheckNodeSignature) and with the
  // shapes of its inputs (shape inference, before the batch is applied): the driver refuses
  // a replacement that is not, leaves the match as it was and names the pattern in
  // OptimizationReport::refused_rewrites. Match should reject such candidates itself
  // (NoMatch "the opset is older than 13"); the refusal is a safety net.
  virtual utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                                     const std::vector<const NodeProto*>& nodes) const = 0;

  // "CastCastPattern(priority=0, ops=Cast)".
  virtual std::string ToString() const;

  // Builders of Match results, for implementations.
  MatchResult Matched(std::vector<const NodeProto*> nodes, const NodeProto* insert_at = nullptr) const;
  MatchResult NoMatch(const NodeProto& candidate, std::string_view reason,
                      SourceLocation where = SourceLocation::current()) const;

  // The stage the pattern belongs to (graph_pass.h).
  virtual OptimizationStage Stage() const { return OptimizationStage::kMain; }

  // Lower runs first: the driver only tries patterns whose priority is at most its
  // current threshold, and raises the threshold when nothing matches.
  int priority;
};

// For Apply implementations: throws BuilderError unless `nodes` has one node per entry of
// `op_types`, each non-null and of that (default-domain) type, in that order. An empty
// entry accepts a null node (a gap).
void ExpectMatchedNodes(const PatternOptimization& pattern, const std::vector<const NodeProto*>& nodes,
                        std::initializer_list<std::string_view> op_types,
                        SourceLocation where = SourceLocation::current());

// One position of the predicate form of ExpectMatchedNodes: a node `accepts` returns true
// for, named `expected` in the error (e.g. "binary elementwise node").
struct ExpectedNode {
  std::string_view expected;
  bool (*accepts)(const NodeProto& node);
};

// The same contract for nodes a single op type does not describe: one non-null node per
// entry of `expected`, in that order, each accepted by its predicate.
void ExpectMatchedNodes(const PatternOptimization& pattern, const std::vector<const NodeProto*>& nodes,
                        std::initializer_list<ExpectedNode> expected,
                        SourceLocation where = SourceLocation::current());

// A named step of the optimizer that is not a pattern (a cleanup pass, constant folding,
// or a rewrite read back from a file): LocalRewriting records point to it. Match never
// matches; Apply throws BuilderError.
class NamedOperation final : public PatternOptimization {
 public:
  explicit NamedOperation(std::string name) : PatternOptimization(0), name_(std::move(name)) {}
  std::string Name() const override { return name_; }
  MatchResult Match(GraphGraph& graph, const NodeProto& candidate) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
  std::string ToString() const override { return name_; }

 private:
  std::string name_;
};

}  // namespace onnxopt::core::builder
