#include "onnx_core/optimizer/pattern.h"

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"

namespace onnxopt::core::builder {

std::string_view NumericalClassName(NumericalClass numerics) {
  switch (numerics) {
    case NumericalClass::kExact: return "exact";
    case NumericalClass::kRounding: return "rounding";
    case NumericalClass::kApproximate: return "approximate";
  }
  return "unknown";
}

std::string_view OptimizationStageName(OptimizationStage stage) {
  switch (stage) {
    case OptimizationStage::kBeforeShapeInference: return "before-shape-inference";
    case OptimizationStage::kMain: return "main";
    case OptimizationStage::kAfterPatterns: return "after-patterns";
    case OptimizationStage::kFinal: return "final";
  }
  return "unknown";
}

namespace {

std::string NodeLabel(const NodeProto* node) {
  if (!node) return "(none)";
  std::string label = node->op_type();
  if (!node->name().empty()) return label + " '" + node->name() + "'";
  if (node->output_size() > 0) return label + " -> '" + node->output(0) + "'";
  return label;
}

}  // namespace

std::string MatchResult::ToString() const {
  if (!pattern) {
    return "no match: " + std::string(no_match.reason) + " (" + no_match.FileName() + ":" +
           std::to_string(no_match.Line()) + ")";
  }
  std::string text = pattern->Name() + " matched [";
  for (std::size_t i = 0; i < nodes.size(); ++i) text += (i ? ", " : "") + NodeLabel(nodes[i]);
  text += "]";
  if (insert_at) text += " insert at " + NodeLabel(insert_at);
  return text;
}

std::string PatternOptimization::ToString() const {
  std::string text = Name() + "(priority=" + std::to_string(priority);
  const std::set<std::string> ops = FastOpType();
  if (!ops.empty()) {
    text += ", ops=";
    bool first = true;
    for (const std::string& op : ops) {
      text += (first ? "" : "|") + op;
      first = false;
    }
  }
  return text + ")";
}

MatchResult PatternOptimization::Matched(std::vector<const NodeProto*> nodes, const NodeProto* insert_at) const {
  MatchResult result;
  result.pattern = this;
  result.nodes = std::move(nodes);
  result.insert_at = insert_at;
  return result;
}

MatchResult PatternOptimization::NoMatch(const NodeProto&, std::string_view reason, SourceLocation where) const {
  MatchResult result;
  result.no_match = NoMatchReason{reason, where};
  return result;
}

namespace {

[[noreturn]] void FailContract(const PatternOptimization& pattern, const std::string& detail, SourceLocation where) {
  throw BuilderError(pattern.Name() + "::Apply called with nodes no match returned: " + detail, where);
}

std::string_view Describe(std::string_view op_type) { return op_type; }
std::string_view Describe(const ExpectedNode& position) { return position.expected; }

// The checks both forms of ExpectMatchedNodes share: the node count, then for each
// position that is not a gap, a non-null node that `accepts(position, node)`.
template <class Position, class IsGap, class Accepts>
void ExpectNodes(const PatternOptimization& pattern, const std::vector<const NodeProto*>& nodes,
                 std::initializer_list<Position> positions, IsGap is_gap, Accepts accepts, SourceLocation where) {
  if (nodes.size() != positions.size()) {
    const std::string got = std::to_string(nodes.size());
    FailContract(pattern, "expected " + std::to_string(positions.size()) + " nodes, got " + got, where);
  }
  std::size_t i = 0;
  for (const Position& position : positions) {
    const NodeProto* node = nodes[i++];
    if (is_gap(position)) continue;
    const std::string expected = ", expected " + std::string(Describe(position));
    if (!node) FailContract(pattern, "node " + std::to_string(i - 1) + " is null" + expected, where);
    if (!accepts(position, *node))
      FailContract(pattern, "node " + std::to_string(i - 1) + " is " + NodeLabel(node) + expected, where);
  }
}

}  // namespace

void ExpectMatchedNodes(const PatternOptimization& pattern, const std::vector<const NodeProto*>& nodes,
                        std::initializer_list<std::string_view> op_types, SourceLocation where) {
  ExpectNodes(
      pattern, nodes, op_types, [](std::string_view op_type) { return op_type.empty(); },
      [](std::string_view op_type, const NodeProto& node) {
        return node.op_type() == op_type && IsOnnxDomain(node.domain());
      },
      where);
}

void ExpectMatchedNodes(const PatternOptimization& pattern, const std::vector<const NodeProto*>& nodes,
                        std::initializer_list<ExpectedNode> expected, SourceLocation where) {
  ExpectNodes(
      pattern, nodes, expected, [](const ExpectedNode&) { return false; },
      [](const ExpectedNode& position, const NodeProto& node) { return position.accepts(node); }, where);
}

MatchResult NamedOperation::Match(GraphGraph&, const NodeProto& candidate) const {
  return NoMatch(candidate, "a named operation is not a pattern");
}

utils::RepeatedProtoField<NodeProto> NamedOperation::Apply(GraphGraph&, const std::vector<const NodeProto*>&) const {
  throw BuilderError("'" + name_ + "' is a recorded operation, not a pattern: it cannot be applied");
}

}  // namespace onnxopt::core::builder
