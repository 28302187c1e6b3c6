#pragma once
// Pattern graphs and replacement graphs of declarative rules (docs/declarative-rules.md,
// spec: shared/docs/declarative-fusion.md §7.2 and §9).
//
// A rule is written as two small graphs: the pattern (what to find) and the replacement
// (what to put instead). Both are built with the same vocabulary: values (placeholders,
// constants, absent optional inputs, node outputs) and ordinary nodes with exact input
// lists. A Pattern is validated when it is built, so that a mistake is reported with the
// offending node or value before any graph is optimized.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::fusion {

// An operator: domain and type. "" and "ai.onnx" are the same domain.
struct OpKey {
  std::string domain;
  std::string op_type;
  bool SameAs(const NodeProto& node) const;
  std::string ToString() const;  // "Add", "com.microsoft.FusedMatMul"
};

// A pattern that breaks the rules of §7.2, or a misuse of a builder: the message names
// the pattern and the offending node or value.
class PatternError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The small graph under construction, shared by PatternBuilder and ReplacementBuilder.
struct Sketch {
  enum class Kind { kPlaceholder, kConstant, kAbsent, kNodeOutput, kExisting };
  struct Value {
    Kind kind = Kind::kNodeOutput;
    int index = -1;                     // placeholder index, or producer node index
    int slot = 0;                       // output slot of the producer
    std::optional<TensorProto> tensor;  // a constant's value; none: any constant
    std::string label;                  // constants and existing values: the label
  };
  struct Node {
    OpKey key;
    std::vector<int> inputs;  // value ids
    std::vector<int> outputs;
    std::vector<AttributeProto> attributes;
    std::string label;
  };
  std::string name;
  std::vector<Value> values;
  std::vector<Node> nodes;
  int num_placeholders = 0;

  int AddValue(Value value);
  int AddNode(OpKey key, std::vector<int> inputs, std::size_t num_outputs);
  // "node 2 (Add 'y')", "placeholder 0", "constant 'zero'", for messages.
  std::string DescribeValue(int id) const;
  std::string DescribeNode(int node) const;
};

// A handle to a value of a pattern or replacement under construction.
class ValueRef {
 public:
  ValueRef() = default;
  ValueRef(std::shared_ptr<Sketch> sketch, int id) : sketch_(std::move(sketch)), id_(id) {}
  bool IsPlaceholder() const { return Kind() == Sketch::Kind::kPlaceholder; }
  bool IsConstant() const { return Kind() == Sketch::Kind::kConstant; }
  bool IsAbsent() const { return Kind() == Sketch::Kind::kAbsent; }
  std::int32_t Id() const { return id_; }
  const std::shared_ptr<Sketch>& Owner() const { return sketch_; }

 private:
  Sketch::Kind Kind() const;
  std::shared_ptr<Sketch> sketch_;
  int id_ = -1;
};

// Returned by Builder::Op; sets attributes, output count and label fluently.
class OpBuilder {
 public:
  OpBuilder(std::shared_ptr<Sketch> sketch, int node) : sketch_(std::move(sketch)), node_(node) {}
  OpBuilder& Attr(std::string name, std::int64_t value);
  OpBuilder& Attr(std::string name, int value) { return Attr(std::move(name), std::int64_t{value}); }
  OpBuilder& Attr(std::string name, float value);
  OpBuilder& Attr(std::string name, std::string value);
  OpBuilder& Attr(std::string name, std::vector<std::int64_t> values);
  OpBuilder& Attr(std::string name, std::vector<float> values);
  OpBuilder& Attr(AttributeProto attribute);  // a graph-valued attribute is refused
  OpBuilder& Outputs(std::size_t count);      // default 1
  OpBuilder& Label(std::string label);
  ValueRef Out(std::size_t i = 0) const;
  operator ValueRef() const { return Out(0); }  // NOLINT: an op reads as its first output

 private:
  std::shared_ptr<Sketch> sketch_;
  int node_;
};

// What both builders share: ops, constants, absent inputs.
class SketchBuilder {
 public:
  explicit SketchBuilder(std::string name);
  ValueRef Constant(TensorProto value, std::string label = {});
  ValueRef Absent();
  OpBuilder Op(std::string_view op_type, std::vector<ValueRef> inputs);
  OpBuilder Op(OpKey key, std::vector<ValueRef> inputs);

 protected:
  int Own(const ValueRef& value) const;  // the id, after checking it belongs to this builder
  std::shared_ptr<Sketch> sketch_;
};

class Pattern;

class PatternBuilder : public SketchBuilder {
 public:
  explicit PatternBuilder(std::string name);
  ValueRef Input();  // the placeholder with the next index
  std::vector<ValueRef> Inputs(std::size_t count);
  ValueRef AnyConstant(std::string label = {});  // any materialized constant
  Pattern Build(std::vector<ValueRef> outputs);  // throws PatternError (§7.2)
};

// The most nodes a pattern may have: the matcher walks a pattern recursively, one stack
// frame or two per node (rules are tens of nodes; a generated chain of 100 000 overflowed).
inline constexpr std::size_t kMaxPatternNodes = 4096;

// A validated pattern graph, with its captures. Cheap to copy (the graph is shared).
class Pattern {
 public:
  // The ONNX function text form: `name (x, w) => (y) { ... }` with untyped inputs, the
  // reserved op onnxopt.pattern.AnyConstant() and "" for absent inputs.
  static Pattern FromText(std::string_view text);

  std::size_t Capture(const ValueRef& value);  // returns the capture index
  std::size_t Capture(const ValueRef& value, std::string name);
  // Where the replacement goes: by default where the last matched node was (the spec's
  // rule, which lets an input be computed between the matched nodes). With this, where
  // the first matched node was when every input exists there (the engine's default for
  // hand-written patterns), else as by default.
  Pattern& PlaceAtFirstNode() {
    place_at_first_node_ = true;
    return *this;
  }
  bool PlacesAtFirstNode() const { return place_at_first_node_; }
  const std::string& Name() const { return sketch_->name; }
  std::size_t NumInputs() const { return static_cast<std::size_t>(sketch_->num_placeholders); }
  std::size_t NumOutputs() const { return outputs_.size(); }
  const OpKey& Anchor() const { return sketch_->nodes[anchor_].key; }
  std::string ToString() const;

  // For the matcher.
  struct CaptureSlot {
    int value;
    std::string name;
  };
  const Sketch& Graph() const { return *sketch_; }
  const std::vector<int>& Outputs() const { return outputs_; }  // value ids
  const std::vector<int>& TopologicalNodes() const { return order_; }
  int AnchorNode() const { return anchor_; }
  const std::vector<CaptureSlot>& Captures() const { return captures_; }
  // Nodes with attributes written while attribute matching is off: one diagnostic each.
  std::vector<std::string> IgnoredAttributeDiagnostics() const;

 private:
  friend class PatternBuilder;
  Pattern(std::shared_ptr<Sketch> sketch, std::vector<int> outputs, const Sketch* source);
  void Validate();
  std::shared_ptr<Sketch> sketch_;
  const Sketch* source_;  // the builder's graph: identifies the ValueRefs Capture accepts
  std::vector<int> outputs_;
  std::vector<int> order_;
  int anchor_ = -1;
  std::vector<CaptureSlot> captures_;
  bool place_at_first_node_ = false;
};

}  // namespace onnxopt::fusion
