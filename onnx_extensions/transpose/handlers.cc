#include "onnx_extensions/transpose/handlers.h"

#include <algorithm>
#include <unordered_map>

#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/utils/string_hash.h"

namespace onnxopt::onnx_transpose {

namespace {

using core::builder::IntAttr;
using core::builder::IntsAttr;

// A preview accepts the node with this (empty) reason.
constexpr std::string_view kAccepted;

void SamePermOnEveryOutput(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  plan.output_perms.assign(static_cast<std::size_t>(graph.OutputCount(node)), perm);
}

void FirstInput(const PushGraph&, NodeId, std::vector<int>& slots) { slots.assign(1, 0); }

void EveryInput(const PushGraph& graph, NodeId node, std::vector<int>& slots) {
  slots.clear();
  for (int i = 0; i < graph.InputCount(node); ++i)
    if (graph.InputOf(node, i) != kNone) slots.push_back(i);
}

// Broadcasting ops: scalars broadcast as they are; an unknown rank counts as
// transposable.
void NonScalarInputs(const PushGraph& graph, NodeId node, std::vector<int>& slots) {
  slots.clear();
  for (int i = 0; i < graph.InputCount(node); ++i) {
    const ValueId input = graph.InputOf(node, i);
    if (input != kNone && graph.Rank(input) != std::optional<std::size_t>(0)) slots.push_back(i);
  }
}

// --- 4.2 elementwise unary, Clip, CastLike
// ------------------------------------------
std::string_view PreviewUnary(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  plan.slots.assign(1, 0);
  SamePermOnEveryOutput(graph, node, perm, plan);
  return kAccepted;
}

// --- 4.3 broadcasting
// ------------------------------------------------------------------
std::string_view PreviewBroadcast(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  plan.broadcast = true;
  NonScalarInputs(graph, node, plan.slots);
  for (int slot : plan.slots) {
    const std::optional<std::size_t> rank = graph.Rank(graph.InputOf(node, slot));
    if (!rank) return "a broadcast input has an unknown rank";
    if (*rank > perm.size()) return "a broadcast input has a rank above the perm's";
  }
  SamePermOnEveryOutput(graph, node, perm, plan);
  return kAccepted;
}

// --- 4.4 single-axis ops
// -----------------------------------------------------------------
std::string_view PreviewConcat(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  const std::optional<std::int64_t> axis = IntAttr(graph.Node(node), "axis");
  if (!axis) return "Concat has no axis";
  const std::optional<std::int64_t> normalized = NormalizedAxis(*axis, perm.size());
  if (!normalized) return "the axis is out of range";
  EveryInput(graph, node, plan.slots);
  plan.set_int = {{"axis", perm[static_cast<std::size_t>(*normalized)]}};
  SamePermOnEveryOutput(graph, node, perm, plan);
  return kAccepted;
}

// Ops with one `axis` attribute that moves with the perm (Split; Softmax family
// >= 13).
std::string_view PreviewAxisAttribute(const PushGraph& graph, NodeId node, const Perm& perm, std::int64_t default_axis,
                                      PushPlan& plan) {
  const std::int64_t axis = IntAttr(graph.Node(node), "axis").value_or(default_axis);
  const std::optional<std::int64_t> normalized = NormalizedAxis(axis, perm.size());
  if (!normalized) return "the axis is out of range";
  plan.slots.assign(1, 0);
  plan.set_int = {{"axis", perm[static_cast<std::size_t>(*normalized)]}};
  SamePermOnEveryOutput(graph, node, perm, plan);
  return kAccepted;
}

std::string_view PreviewSplit(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  return PreviewAxisAttribute(graph, node, perm, 0, plan);
}

std::string_view PreviewSoftmax(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  if (graph.Opset() >= 13) return PreviewAxisAttribute(graph, node, perm, -1, plan);
  // Before opset 13 the input is coerced to 2-D at `axis`: the perm must keep
  // every axis on its side of that point. The axis is in [-r, r-1], as after 13: -1 is the
  // last axis (normalized against r + 1, it became r, a point every axis is before, and
  // every perm passed).
  const std::optional<std::int64_t> axis =
      NormalizedAxis(IntAttr(graph.Node(node), "axis").value_or(1), perm.size());
  if (!axis) return "the axis is out of range";
  for (std::size_t i = 0; i < perm.size(); ++i)
    if ((static_cast<std::int64_t>(i) < *axis) != (perm[i] < *axis))
      return "the perm moves an axis across the 2-D coercion point of opset < 13";
  // Softmax and LogSoftmax do not depend on the order of a row's elements; Hardmax keeps
  // the first of equal maxima in row order, which a perm of the row's axes changes.
  if (graph.Node(node).op_type() == "Hardmax")
    for (std::size_t i = static_cast<std::size_t>(*axis); i < perm.size(); ++i)
      if (perm[i] != static_cast<std::int64_t>(i))
        return "the perm reorders the row of a Hardmax before opset 13 (ties go to the first maximum)";
  return PreviewUnary(graph, node, perm, plan);
}

std::string_view PreviewArgMinMax(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  const std::string_view refused = PreviewAxisAttribute(graph, node, perm, 0, plan);
  if (!refused.empty() || IntAttr(graph.Node(node), "keepdims").value_or(1) != 0) return refused;
  const std::int64_t removed = plan.set_int.front().second;
  plan.output_perms = {SqueezePerm({removed}, perm)};
  return kAccepted;
}

// --- 4.5 reductions
// ----------------------------------------------------------------------
bool ReduceAxesAreInput(const PushGraph& graph, const NodeProto& node) {
  return graph.Opset() >= 18 || (node.op_type() == "ReduceSum" && graph.Opset() >= 13);
}

std::vector<std::int64_t> SortedMappedAxes(const std::vector<std::int64_t>& mapped) {
  std::vector<std::int64_t> sorted = mapped;
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

std::string_view PreviewReduce(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  const NodeProto& proto = graph.Node(node);
  const bool keepdims = IntAttr(proto, "keepdims").value_or(1) != 0;
  plan.slots.assign(1, 0);
  std::optional<std::vector<std::int64_t>> axes;
  if (ReduceAxesAreInput(graph, proto)) {
    const ValueId axes_input = graph.InputOf(node, 1);
    if (axes_input != kNone) {
      axes = graph.ConstantInts(axes_input);
      if (!axes) return "the axes input is not constant";
    }
    if (!axes || axes->empty()) {
      const bool noop = IntAttr(proto, "noop_with_empty_axes").value_or(0) != 0;
      plan.output_perms = {(noop || keepdims) ? perm : Perm{}};
      return kAccepted;
    }
  } else {
    axes = IntsAttr(proto, "axes");
    if (!axes) {
      plan.output_perms = {keepdims ? perm : Perm{}};
      return kAccepted;
    }
  }
  const std::optional<std::vector<std::int64_t>> mapped = MapAxes(*axes, perm);
  if (!mapped) return "the axes are invalid";
  const std::vector<std::int64_t> sorted = SortedMappedAxes(*mapped);
  if (ReduceAxesAreInput(graph, proto)) {
    const TensorProto* old = graph.LocalConstant(graph.InputOf(node, 1));
    plan.input_edits.push_back({1, false, sorted, old->data_type()});
  } else {
    plan.set_ints = {{"axes", sorted}};
  }
  plan.output_perms = {keepdims ? perm : SqueezePerm(sorted, perm)};
  return kAccepted;
}

// --- 4.6 Squeeze / Unsqueeze
// ------------------------------------------------------------- The axes of a
// Squeeze/Unsqueeze (attribute before opset 13, constant input from 13).
std::optional<std::vector<std::int64_t>> SqueezeAxes(const PushGraph& graph, NodeId node) {
  if (graph.Opset() < 13) return IntsAttr(graph.Node(node), "axes");
  const ValueId axes = graph.InputOf(node, 1);
  return axes == kNone ? std::nullopt : graph.ConstantInts(axes);
}

void WriteAxes(const PushGraph& graph, NodeId node, const std::vector<std::int64_t>& axes, PushPlan& plan) {
  if (graph.Opset() < 13) {
    plan.set_ints = {{"axes", axes}};
    return;
  }
  plan.input_edits.push_back({1, false, axes, graph.LocalConstant(graph.InputOf(node, 1))->data_type()});
}

std::string_view PreviewSqueeze(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  const std::optional<std::vector<std::int64_t>> axes = SqueezeAxes(graph, node);
  if (!axes) return "the Squeeze axes are absent or not constant";
  const std::optional<std::vector<std::int64_t>> mapped = MapAxes(*axes, perm);
  if (!mapped) return "the axes are invalid";
  const std::vector<std::int64_t> sorted = SortedMappedAxes(*mapped);
  plan.slots.assign(1, 0);
  WriteAxes(graph, node, sorted, plan);
  plan.output_perms = {SqueezePerm(sorted, perm)};
  return kAccepted;
}

std::string_view PreviewUnsqueeze(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  const std::optional<std::vector<std::int64_t>> axes = SqueezeAxes(graph, node);
  if (!axes) return "the Unsqueeze axes are absent or not constant";
  std::vector<std::int64_t> positions;
  for (std::int64_t axis : *axes) {
    const std::optional<std::int64_t> normalized = NormalizedAxis(axis, perm.size() + axes->size());
    if (!normalized || std::find(positions.begin(), positions.end(), *normalized) != positions.end())
      return "the axes are invalid";
    positions.push_back(*normalized);
  }
  std::sort(positions.begin(), positions.end());
  plan.slots.assign(1, 0);
  plan.output_perms = {UnsqueezePerm(positions, perm)};
  return kAccepted;
}

// --- 4.7 Slice, Pad, Tile
// The plan with the constant axes input at `slot` mapped through the perm, order kept
// (Slice, Pad-18 `axes`), in a new constant of the same element type.
std::string_view RemapAxesInput(const PushGraph& graph, NodeId node, int slot, const Perm& perm, PushPlan& plan) {
  const ValueId axes_input = graph.InputOf(node, slot);
  const std::optional<std::vector<std::int64_t>> axes = graph.ConstantInts(axes_input);
  if (!axes) return "the axes input is not constant";
  const std::optional<std::vector<std::int64_t>> mapped = MapAxes(*axes, perm);
  if (!mapped) return "the axes are invalid";
  plan.input_edits.push_back({slot, false, *mapped, graph.LocalConstant(axes_input)->data_type()});
  return kAccepted;
}

// ------------------------------------------------------------------
std::string_view PreviewSlice(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  const NodeProto& proto = graph.Node(node);
  plan.slots.assign(1, 0);
  plan.output_perms = {perm};
  if (graph.Opset() < 10) {
    std::optional<std::vector<std::int64_t>> axes = IntsAttr(proto, "axes");
    if (!axes) {
      const std::size_t count = IntsAttr(proto, "starts").value_or(std::vector<std::int64_t>{}).size();
      axes.emplace();
      for (std::size_t i = 0; i < count; ++i) axes->push_back(static_cast<std::int64_t>(i));
    }
    const std::optional<std::vector<std::int64_t>> mapped = MapAxes(*axes, perm);
    if (!mapped) return "the axes are invalid";
    plan.set_ints = {{"axes", *mapped}};
    return kAccepted;
  }
  if (graph.InputOf(node, 3) != kNone) return RemapAxesInput(graph, node, 3, perm, plan);
  // No axes: they are 0..n-1 with n the length of `starts`, which must be
  // static.
  const core::shapes::SymTensor* starts = graph.Shape(graph.InputOf(node, 1));
  if (!starts || !starts->shape.HasRank() || starts->shape.Rank() != 1 || !starts->shape[0].Constant())
    return "the Slice has no axes and the length of starts is unknown";
  const std::int64_t count = *starts->shape[0].Constant();
  if (count > static_cast<std::int64_t>(perm.size())) return "the axes are invalid";
  std::vector<std::int64_t> mapped(perm.begin(), perm.begin() + count);
  plan.input_edits.push_back({3, false, mapped, starts->elem_type ? starts->elem_type : TensorProto::INT64});
  return kAccepted;
}

// [P⁻¹, P⁻¹ + R]: the gather indices of a begin/end vector such as pads.
std::vector<std::int64_t> TwoHalvesIndices(const Perm& perm) {
  const Perm inverse = InversePermutation(perm);
  std::vector<std::int64_t> indices = inverse;
  for (std::int64_t axis : inverse) indices.push_back(axis + static_cast<std::int64_t>(perm.size()));
  return indices;
}

std::vector<std::int64_t> PermuteTwoHalves(const std::vector<std::int64_t>& values, const Perm& perm) {
  std::vector<std::int64_t> result;
  for (std::int64_t index : TwoHalvesIndices(perm)) result.push_back(values[static_cast<std::size_t>(index)]);
  return result;
}

std::string_view PreviewPad(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  const NodeProto& proto = graph.Node(node);
  plan.slots.assign(1, 0);
  plan.output_perms = {perm};
  const std::size_t rank = perm.size();
  if (graph.Opset() < 11) {
    const std::optional<std::vector<std::int64_t>> pads = IntsAttr(proto, "pads");
    if (!pads || pads->size() != 2 * rank) return "the pads are absent or not of length 2 * rank";
    plan.set_ints = {{"pads", PermuteTwoHalves(*pads, perm)}};
    return kAccepted;
  }
  if (graph.InputOf(node, 3) != kNone) return RemapAxesInput(graph, node, 3, perm, plan);
  const ValueId pads_input = graph.InputOf(node, 1);
  if (pads_input == kNone) return "the pads input is absent";
  if (const auto pads = graph.ConstantInts(pads_input)) {
    if (pads->size() != 2 * rank) return "the pads are absent or not of length 2 * rank";
    plan.input_edits.push_back({1, false, PermuteTwoHalves(*pads, perm), TensorProto::INT64});
  } else {
    plan.input_edits.push_back({1, true, TwoHalvesIndices(perm), TensorProto::INT64});
  }
  return kAccepted;
}

std::string_view PreviewTile(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  plan.slots.assign(1, 0);
  plan.output_perms = {perm};
  const ValueId repeats_input = graph.InputOf(node, 1);
  if (repeats_input == kNone) return "the repeats input is absent";
  if (const auto repeats = graph.ConstantInts(repeats_input)) {
    if (repeats->size() != perm.size()) return "the repeats are not of length rank";
    plan.input_edits.push_back({1, false, PermuteVector(*repeats, perm), TensorProto::INT64});
  } else {
    plan.input_edits.push_back({1, true, InversePermutation(perm), TensorProto::INT64});
  }
  return kAccepted;
}

// --- 4.8 Shape
// -----------------------------------------------------------------------------
std::string_view PreviewShape(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  const NodeProto& proto = graph.Node(node);
  const auto rank = static_cast<std::int64_t>(perm.size());
  auto clamp = [rank](std::int64_t bound) {
    return std::clamp(bound < 0 ? bound + rank : bound, std::int64_t{0}, rank);
  };
  const std::int64_t start = clamp(IntAttr(proto, "start").value_or(0));
  const std::int64_t end = clamp(IntAttr(proto, "end").value_or(rank));
  plan.slots.assign(1, 0);
  plan.absorbs = true;
  plan.drop_attributes = {"start", "end"};
  for (std::int64_t i = start; i < end; ++i) plan.absorbed_indices.push_back(perm[static_cast<std::size_t>(i)]);
  plan.output_perms = {Perm{}};
  return kAccepted;
}

// --- 4.9 QuantizeLinear / DequantizeLinear
// ---------------------------------------------------
std::string_view PreviewQuantize(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  const NodeProto& proto = graph.Node(node);
  // Before opset 13 the default domain's scale is a scalar; com.microsoft's has its axis at
  // every opset of the default domain.
  if (core::ir::IsOnnxDomain(proto.domain()) && graph.Opset() < 13) return PreviewUnary(graph, node, perm, plan);
  if (IntAttr(proto, "block_size").value_or(0) != 0) return "blocked quantization is not supported";
  const ValueId scale = graph.InputOf(node, 1);
  if (scale != kNone && graph.Rank(scale) == std::optional<std::size_t>(0)) return PreviewUnary(graph, node, perm, plan);
  return PreviewAxisAttribute(graph, node, perm, 1, plan);
}

// --- 4.10 Transpose
// ------------------------------------------------------------------------
// Cancel or merge; the optimizer does it itself (no plan execution), the
// preview only tells the walk that nothing is inserted downstream.
std::string_view PreviewTranspose(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  const std::optional<std::vector<std::int64_t>> second = IntsAttr(graph.Node(node), "perm");
  if (!second || !IsPermutation(*second) || second->size() != perm.size())
    return "the second Transpose has no valid perm of the same rank";
  plan.slots.assign(1, 0);
  plan.output_perms = {Perm{}};
  return kAccepted;
}

std::string_view PreviewReshape(const PushGraph& graph, NodeId node, const Perm& perm, PushPlan& plan) {
  const std::optional<Perm> own = ReshapeAsPerm(graph, node);
  if (!own || own->size() != perm.size()) return "the Reshape is not a Transpose of the same rank";
  plan.slots.assign(1, 0);
  plan.output_perms = {Perm{}};
  return kAccepted;
}

const Handler kUnary{FirstInput, PreviewUnary};
const Handler kBroadcast{NonScalarInputs, PreviewBroadcast, true, 1, true};

// Keyed by op type (ONNX domain) or "domain.op_type"; looked up once per node.
using DefaultHandlers = std::unordered_map<std::string, Handler, utils::StringHash, std::equal_to<>>;

const DefaultHandlers& DefaultTable() {
  static const DefaultHandlers table = [] {
    DefaultHandlers t;
    for (const char* op :
         {"Abs",         "Acos",       "Acosh",    "Asin",     "Asinh", "Atan",      "Atanh",   "Cast",
          "Ceil",        "Celu",       "Cos",      "Cosh",     "Elu",   "Erf",       "Exp",     "Floor",
          "HardSigmoid", "HardSwish",  "Identity", "IsInf",    "IsNaN", "LeakyRelu", "Log",     "Neg",
          "Not",         "Reciprocal", "Relu",     "Round",    "Selu",  "Shrink",    "Sigmoid", "Sign",
          "Sin",         "Sinh",       "Softplus", "Softsign", "Sqrt",  "Tan",       "Tanh",    "ThresholdedRelu",
          "Clip"})
      t[op] = kUnary;
    t["Gelu"] = Handler{FirstInput, PreviewUnary, true, 20};
    t["CastLike"] = Handler{FirstInput, PreviewUnary, true, 15};
    for (const char* op : {"Add",         "Sub", "Mul", "Div",   "Pow",     "Mod",   "BitShift",
                           "And",         "Or",  "Xor", "Equal", "Greater", "Less",  "GreaterOrEqual",
                           "LessOrEqual", "Max", "Min", "Mean",  "Sum",     "PRelu", "Where"})
      t[op] = kBroadcast;
    t["Concat"] = Handler{EveryInput, PreviewConcat};
    t["Split"] = Handler{FirstInput, PreviewSplit};
    for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) t[op] = Handler{FirstInput, PreviewSoftmax};
    for (const char* op : {"ArgMin", "ArgMax"}) t[op] = Handler{FirstInput, PreviewArgMinMax};
    for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                           "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare"})
      t[op] = Handler{FirstInput, PreviewReduce};
    t["Squeeze"] = Handler{FirstInput, PreviewSqueeze};
    t["Unsqueeze"] = Handler{FirstInput, PreviewUnsqueeze};
    t["Slice"] = Handler{FirstInput, PreviewSlice};
    t["Pad"] = Handler{FirstInput, PreviewPad};
    t["Tile"] = Handler{FirstInput, PreviewTile};
    t["Shape"] = Handler{FirstInput, PreviewShape, false};
    t["QuantizeLinear"] = Handler{FirstInput, PreviewQuantize, true, 10};
    t["DequantizeLinear"] = Handler{FirstInput, PreviewQuantize, true, 10};
    t["com.microsoft.QuantizeLinear"] = Handler{FirstInput, PreviewQuantize};
    t["com.microsoft.DequantizeLinear"] = Handler{FirstInput, PreviewQuantize};
    t["Transpose"] = Handler{FirstInput, PreviewTranspose, false};
    t["Reshape"] = Handler{FirstInput, PreviewReshape, false, 5};
    return t;
  }();
  return table;
}

std::string HandlerKey(const NodeProto& node) {
  if (node.domain().empty() || node.domain() == "ai.onnx") return node.op_type();
  return node.domain() + "." + node.op_type();
}

}  // namespace

std::optional<Perm> ReshapeAsPerm(const PushGraph& graph, NodeId reshape) {
  if (!graph.Is(reshape, OpKind::kReshape)) return std::nullopt;
  const ValueId shape = graph.InputOf(reshape, 1);
  if (shape == kNone || !graph.ConstantInts(shape)) return std::nullopt;
  const core::shapes::SymTensor* in = graph.Shape(graph.InputOf(reshape, 0));
  const ValueId output = graph.OutputOf(reshape, 0);
  const core::shapes::SymTensor* out = output == kNone ? nullptr : graph.Shape(output);
  if (!in || !out || !in->shape.HasRank() || !out->shape.HasRank() || !in->shape.IsStatic() || !out->shape.IsStatic())
    return std::nullopt;
  const std::size_t rank = in->shape.Rank();
  if (out->shape.Rank() != rank) return std::nullopt;
  std::vector<std::int64_t> big_axes, one_axes;
  for (std::size_t i = 0; i < rank; ++i)
    (*in->shape[i].Constant() == 1 ? one_axes : big_axes).push_back(static_cast<std::int64_t>(i));
  Perm perm(rank);
  std::size_t next_big = 0, next_one = 0;
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t dim = *out->shape[i].Constant();
    if (dim == 1) {
      if (next_one >= one_axes.size()) return std::nullopt;
      perm[i] = one_axes[next_one++];
      continue;
    }
    if (next_big >= big_axes.size() || *in->shape[static_cast<std::size_t>(big_axes[next_big])].Constant() != dim)
      return std::nullopt;
    perm[i] = big_axes[next_big++];
  }
  return perm;
}

std::optional<Perm> TransposeLikePerm(const PushGraph& graph, NodeId node) {
  if (graph.Is(node, OpKind::kReshape)) return ReshapeAsPerm(graph, node);
  const Perm* perm = graph.TransposePerm(node);
  if (!perm) return std::nullopt;
  return *perm;
}

void PushPlan::Reset() {
  slots.clear();
  broadcast = false;
  output_perms.clear();
  set_int.clear();
  set_ints.clear();
  drop_attributes.clear();
  input_edits.clear();
  absorbs = false;
  absorbed_indices.clear();
}

Handler UnmodelledUnaryHandler() { return Handler{FirstInput, nullptr}; }

const Handler* FindHandler(const PushGraph& graph, NodeId node, const HandlerTable* extended) {
  const NodeProto& proto = graph.Node(node);
  const bool onnx_domain = proto.domain().empty() || proto.domain() == "ai.onnx";
  if (extended && !extended->empty()) {
    const std::string key = HandlerKey(proto);
    for (const auto& [name, handler] : *extended)
      if (name == key) return &handler;
  }
  const auto& table = DefaultTable();
  // The ONNX domain's key is the op type itself: looked up without building a string.
  auto it = onnx_domain ? table.find(proto.op_type()) : table.find(HandlerKey(proto));
  if (it == table.end()) return nullptr;
  if (onnx_domain && graph.Opset() < it->second.min_opset) return nullptr;
  return &it->second;
}

std::string_view PreviewPush(const PushGraph& graph, NodeId node, const Handler& handler, const Perm& perm,
                             PushPlan& plan) {
  plan.Reset();
  const std::string_view refused =
      handler.preview ? handler.preview(graph, node, perm, plan) : PreviewUnary(graph, node, perm, plan);
  if (!refused.empty()) return refused;
  for (std::size_t k = 0; k < plan.output_perms.size(); ++k) {
    const Perm& out = plan.output_perms[k];
    if (out.empty()) continue;
    if (!IsPermutation(out)) return "the handler produced an invalid output perm";
    const ValueId output = graph.OutputOf(node, static_cast<int>(k));
    if (output == kNone) continue;
    const std::optional<std::size_t> rank = graph.Rank(output);
    if (rank && *rank != out.size()) return "an output perm does not match the output's rank";
  }
  return kAccepted;
}

}  // namespace onnxopt::onnx_transpose
