#include "onnx_extensions/patterns/reshape/reshape_reshape_pattern.h"

#include <algorithm>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddIntAttribute;
using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IntTensor;
using core::builder::KnownShape;
using core::builder::RankOf;
using core::shapes::SymDim;

namespace {

// The shape s' of the merged Reshape(x, s').
struct MergedShape {
  enum class Kind {
    kSecond,    // s2 itself
    kConstant,  // the constant `values`: s2 with its zeros resolved against a constant s1
    kGathered,  // Concat of s1[k] where `values`[k] = 0, else of the constant `values`[k] (s2)
  };
  Kind kind = Kind::kSecond;
  std::vector<std::int64_t> values;
};

bool Contains(const std::vector<std::int64_t>& values, std::int64_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// What the computed forms need to know, as upstream requires it: the ranks of x, t and y
// and the shapes of x and y. Empty when known.
std::string_view WhyShapesUnknown(GraphGraph& graph, const NodeProto& first, const NodeProto& second) {
  if (!RankOf(graph, first.input(0)) || !RankOf(graph, first.output(0)) || !RankOf(graph, second.output(0)))
    return "the rank of the input, the intermediate tensor or the output is not known";
  if (!KnownShape(graph, first.input(0))) return "the shape of the input is not known";
  if (!KnownShape(graph, second.output(0))) return "the shape of the output is not known";
  return {};
}

// s2 constant with zeros, s1 constant: each zero of s2 takes the entry of s1 it copies.
std::optional<MergedShape> ResolveZeros(const std::vector<std::int64_t>& s1, const std::vector<std::int64_t>& s2,
                                        std::string_view* why) {
  std::vector<std::int64_t> merged = s2;
  for (std::size_t j = 0; j < s2.size(); ++j) {
    if (s2[j] != 0) continue;
    if (j >= s1.size()) {
      *why = "a 0 of the second shape has no entry of the first shape at its index";
      return std::nullopt;
    }
    if (s1[j] < 0) {
      *why = "a 0 of the second shape faces a -1 of the first shape";
      return std::nullopt;
    }
    merged[j] = s1[j];  // a 0 of s1 copies x[j], which is t[j]
  }
  if (merged == s2) return MergedShape{MergedShape::Kind::kSecond, {}};
  return MergedShape{MergedShape::Kind::kConstant, std::move(merged)};
}

// s2 constant with zeros, s1 computed: the zeros gather s1 at run time.
std::optional<MergedShape> GatherZeros(GraphGraph& graph, const NodeProto& first, const NodeProto& second,
                                       const std::vector<std::int64_t>& s2, std::string_view* why) {
  if (*why = WhyShapesUnknown(graph, first, second); !why->empty()) return std::nullopt;
  const std::size_t rank_t = *RankOf(graph, first.output(0));
  const std::optional<std::vector<SymDim>> s1 = core::builder::ShapeValue(graph, first.input(1));
  for (std::size_t k = 0; k < s2.size(); ++k) {
    if (s2[k] != 0) continue;
    if (k >= rank_t) {
      *why = "a 0 of the second shape has no dimension of the intermediate tensor at its index";
      return std::nullopt;
    }
    // s1[k] = -1 would be inferred again, which needs s2 to hold no -1 of its own.
    if (Contains(s2, -1) && (!s1 || k >= s1->size() || (*s1)[k].IsUnknown() || (*s1)[k] == SymDim(-1))) {
      *why = "the first shape may hold a -1 where the second shape, which has a -1, holds a 0";
      return std::nullopt;
    }
  }
  return MergedShape{MergedShape::Kind::kGathered, s2};
}

// s2 computed: reused as it is, which holds when its value has no 0; upstream's other
// conditions are kept.
std::optional<MergedShape> ReuseComputed(GraphGraph& graph, const NodeProto& first, const NodeProto& second,
                                         std::string_view* why) {
  const std::optional<std::vector<std::int64_t>> s1_constant = ConstantInts(graph, first.input(1));
  if (s1_constant && Contains(*s1_constant, -1)) {
    *why = "the first shape is a constant holding -1 and the second shape is computed";
    return std::nullopt;
  }
  const std::optional<std::vector<SymDim>> s2 = core::builder::ShapeValue(graph, second.input(1));
  if (!s2 || std::any_of(s2->begin(), s2->end(), [](const SymDim& d) { return d.IsUnknown(); })) {
    *why = "the value of the computed second shape is not known";
    return std::nullopt;
  }
  if (std::any_of(s2->begin(), s2->end(), [](const SymDim& d) { return d == SymDim(0); })) {
    *why = "the computed second shape holds a 0";
    return std::nullopt;
  }
  const std::optional<std::vector<SymDim>> s1 = core::builder::ShapeValue(graph, first.input(1));
  const auto is_minus_one = [](const SymDim& d) { return d == SymDim(-1); };
  if (std::any_of(s2->begin(), s2->end(), is_minus_one) &&
      (!s1 || std::any_of(s1->begin(), s1->end(), [&](const SymDim& d) { return d.IsUnknown() || is_minus_one(d); }))) {
    *why = "the computed second shape holds a -1 and the value of the first one is not known without -1";
    return std::nullopt;
  }
  if (*why = WhyShapesUnknown(graph, first, second); !why->empty()) return std::nullopt;
  // A symbolic entry may be 0 at run time: it then copies t's dim in the original and x's
  // after the rewrite, the same only where the two are known equal.
  const core::shapes::SymShape* x = KnownShape(graph, first.input(0));
  const core::shapes::SymShape* t = KnownShape(graph, first.output(0));
  for (std::size_t k = 0; k < s2->size(); ++k) {
    if ((*s2)[k].Constant()) continue;
    if (!x || !t || k >= x->Rank() || k >= t->Rank() || !((*x)[k] == (*t)[k])) {
      *why = "a symbolic entry of the computed second shape may be 0, which copies another dim of x than of t";
      return std::nullopt;
    }
  }
  return MergedShape{MergedShape::Kind::kSecond, {}};
}

// The rules of the spec, in order: the first that applies decides.
std::optional<MergedShape> MergeShapes(GraphGraph& graph, const NodeProto& first, const NodeProto& second,
                                       std::string_view* why) {
  const std::optional<std::vector<std::int64_t>> s2 = ConstantInts(graph, second.input(1));
  if (!s2) return ReuseComputed(graph, first, second, why);
  if (!Contains(*s2, 0)) return MergedShape{MergedShape::Kind::kSecond, {}};
  if (const auto s1 = ConstantInts(graph, first.input(1))) return ResolveZeros(*s1, *s2, why);
  return GatherZeros(graph, first, second, *s2, why);
}

// The nodes computing the gathered s' (MergedShape::Kind::kGathered); returns its name.
std::string AddGatheredShape(GraphGraph& graph, std::string_view pattern, const NodeProto& first,
                             const std::vector<std::int64_t>& s2, utils::RepeatedProtoField<NodeProto>& nodes) {
  NodeProto concat;
  concat.set_op_type("Concat");
  concat.set_name(DerivedNodeName(graph, pattern, first));
  AddIntAttribute(concat, "axis", 0);
  for (std::size_t k = 0; k < s2.size(); ++k) {
    if (s2[k] != 0) {
      concat.add_input(graph.MakeInitializer(pattern, IntTensor({s2[k]})));
      continue;
    }
    NodeProto& gather = *nodes.Add();
    gather.set_op_type("Gather");
    gather.set_name(DerivedNodeName(graph, pattern, first));
    AddIntAttribute(gather, "axis", 0);
    gather.add_input(first.input(1));
    gather.add_input(graph.MakeInitializer(pattern, IntTensor({static_cast<std::int64_t>(k)})));
    gather.add_output(graph.Builder().UniqueName(pattern));
    concat.add_input(gather.output(0));
  }
  concat.add_output(graph.Builder().UniqueName(pattern));
  *nodes.Add() = std::move(concat);
  return nodes.Get(nodes.size() - 1).output(0);
}

}  // namespace

MatchResult ReshapeReshapePattern::Match(GraphGraph& graph, const NodeProto& first) const {
  if (const std::string_view why = reshape::WhyNotPlainReshape(first); !why.empty()) return NoMatch(first, why);
  const std::string& t = first.output(0);
  if (!HasOneUse(graph, t)) return NoMatch(first, "the output of the first Reshape does not have exactly one reader");
  const NodeProto& second = *graph.NextNodes(t).front();
  if (!reshape::IsPlainReshape(second))
    return NoMatch(first, "the reader of the first Reshape is not a plain Reshape (default domain, allowzero=0)");
  if (second.input(0) != t || second.input(1) == t)
    return NoMatch(first, "the second Reshape does not read the first one's output as its data only");
  std::string_view why;
  if (!MergeShapes(graph, first, second, &why)) return NoMatch(first, why);
  return Matched({&first, &second}, &second);
}

utils::RepeatedProtoField<NodeProto> ReshapeReshapePattern::Apply(GraphGraph& graph,
                                                                  const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Reshape", "Reshape"});
  const NodeProto& first = *nodes[0];
  const NodeProto& second = *nodes[1];
  std::string_view why;
  const std::optional<MergedShape> merged = MergeShapes(graph, first, second, &why);
  if (!merged)
    throw BuilderError(std::string(kName) + "::Apply called with shapes that do not merge: " + std::string(why));
  utils::RepeatedProtoField<NodeProto> replacement;
  std::string shape = second.input(1);
  if (merged->kind == MergedShape::Kind::kConstant) shape = graph.MakeInitializer(kName, IntTensor(merged->values));
  if (merged->kind == MergedShape::Kind::kGathered)
    shape = AddGatheredShape(graph, kName, first, merged->values, replacement);
  NodeProto& node = *replacement.Add() = second;
  node.set_name(DerivedNodeName(graph, kName, second));
  node.set_input(0, first.input(0));
  node.set_input(1, shape);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
