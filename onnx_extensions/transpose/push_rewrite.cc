#include "onnx_extensions/transpose/push_rewrite.h"

#include <cstring>

#include "onnx_core/eval/tensor.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_transpose {

namespace {

using core::shapes::SymDim;
using core::shapes::SymShape;
using core::shapes::SymTensor;

void SetIntsAttribute(NodeProto& node, const std::string& name, const std::vector<std::int64_t>& values) {
  for (int i = 0; i < node.attribute_size(); ++i) {
    if (node.attribute(i).name() != name) continue;
    node.mutable_attribute()->DeleteSubrange(i, 1);
    break;
  }
  core::builder::AddIntsAttribute(node, name, values);
}

void SetIntAttribute(NodeProto& node, const std::string& name, std::int64_t value) {
  for (int i = 0; i < node.attribute_size(); ++i) {
    if (node.attribute(i).name() != name) continue;
    node.mutable_attribute()->DeleteSubrange(i, 1);
    break;
  }
  core::builder::AddIntAttribute(node, name, value);
}

void DropAttribute(NodeProto& node, const std::string& name) {
  for (int i = 0; i < node.attribute_size(); ++i)
    if (node.attribute(i).name() == name) node.mutable_attribute()->DeleteSubrange(i--, 1);
}

ValueId NewTranspose(PushGraph& graph, ValueId input, const Perm& perm, NodeId anchor, bool after) {
  const ValueId output = graph.NewValue(input, "_transposed");
  const NodeId node = graph.AddNode("Transpose", "", {input}, {output}, anchor, after);
  SetIntsAttribute(graph.MutableNode(node), "perm", perm);
  graph.SetTransposedShape(output, input, perm);
  return output;
}

ValueId NewIntConstant(PushGraph& graph, std::string_view prefix, const std::vector<std::int64_t>& values,
                       int elem_type) {
  return graph.AddInitializer(prefix,
                              core::builder::IntTensor(values, {static_cast<std::int64_t>(values.size())}, elem_type));
}

// The Transpose (not removed, valid perm) producing `value`, or kNone.
NodeId TransposeProducer(const PushGraph& graph, ValueId value) {
  const NodeId producer = graph.Producer(value);
  if (!graph.Is(producer, OpKind::kTranspose)) return kNone;
  return graph.TransposePerm(producer) ? producer : kNone;
}

// Makes input `slot` of `node` read its value transposed by `inverse`
// (section 3.4).
void TransposeInput(PushGraph& graph, NodeId node, int slot, const Perm& inverse) {
  const ValueId value = graph.InputOf(node, slot);
  if (const TensorProto* constant = graph.LocalConstant(value)) {
    if (const ValueId known = graph.FindDerivedConstant(value, inverse.size(), inverse); known != kNone) {
      graph.SetInput(node, slot, known);
      return;
    }
    if (std::optional<TensorProto> permuted = PermuteConstant(*constant, inverse)) {
      const ValueId derived = graph.AddInitializer(graph.Name(value), std::move(*permuted));
      graph.RememberDerivedConstant(value, inverse.size(), inverse, derived);
      graph.SetInput(node, slot, derived);
      return;
    }
  }
  if (const NodeId producer = TransposeProducer(graph, value); producer != kNone) {
    const Perm& first = *graph.TransposePerm(producer);
    if (first.size() == inverse.size()) {
      const ValueId source = graph.InputOf(producer, 0);
      // Composed perm built only when it is not the identity (the usual case: the
      // pushed Transpose's inverse meets the Transpose it came through).
      const ValueId input = ComposesToIdentity(first, inverse)
                                ? source
                                : NewTranspose(graph, source, ComposePermutations(first, inverse), node, false);
      graph.SetInput(node, slot, input);
      graph.RemoveIfUnused(producer);
      return;
    }
  }
  for (NodeId consumer : graph.Consumers(value)) {
    if (!graph.Is(consumer, OpKind::kTranspose)) continue;
    if (const Perm* perm = graph.TransposePerm(consumer); !perm || *perm != inverse) continue;
    graph.SetInput(node, slot, graph.OutputOf(consumer, 0));
    return;
  }
  graph.SetInput(node, slot, NewTranspose(graph, value, inverse, node, false));
}

// Gives input `slot` (rank below `rank`) leading 1-axes.
void NormalizeRank(PushGraph& graph, NodeId node, int slot, std::size_t rank) {
  const ValueId value = graph.InputOf(node, slot);
  const std::size_t own = *graph.Rank(value);
  if (own >= rank) return;
  std::vector<std::int64_t> axes;
  for (std::size_t i = 0; i < rank - own; ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (const TensorProto* constant = graph.LocalConstant(value);
      constant && constant->data_location() != TensorProto::EXTERNAL) {
    ValueId derived = graph.FindDerivedConstant(value, rank, {});
    if (derived == kNone) {
      TensorProto reshaped = *constant;
      reshaped.clear_dims();
      for (std::size_t i = 0; i < axes.size(); ++i) reshaped.add_dims(1);
      for (std::int64_t dim : constant->dims()) reshaped.add_dims(dim);
      derived = graph.AddInitializer(graph.Name(value), std::move(reshaped));
      graph.RememberDerivedConstant(value, rank, {}, derived);
    }
    graph.SetInput(node, slot, derived);
    return;
  }
  // Unsqueeze(Transpose(w, A)) = Transpose(Unsqueeze(w), UnsqueezePerm(axes,
  // A)): the Transpose is pushed through the new Unsqueeze at once so that it
  // can compose next.
  const NodeId transpose = TransposeProducer(graph, value);
  const ValueId source = transpose != kNone ? graph.InputOf(transpose, 0) : value;
  ValueId result = graph.NewValue(source, "_unsqueezed");
  std::vector<ValueId> inputs{source};
  if (graph.Opset() >= 13) inputs.push_back(NewIntConstant(graph, "unsqueeze_axes", axes, TensorProto::INT64));
  const NodeId unsqueeze = graph.AddNode("Unsqueeze", "", inputs, {result}, node, false);
  if (graph.Opset() < 13) SetIntsAttribute(graph.MutableNode(unsqueeze), "axes", axes);
  if (const SymTensor* known = graph.Shape(source); known && known->shape.HasRank()) {
    std::vector<SymDim> dims(axes.size(), SymDim(1));
    for (const SymDim& dim : known->shape.Dims()) dims.push_back(dim);
    graph.SetShape(result, SymTensor::Tensor(known->elem_type, SymShape(std::move(dims))));
  } else {
    graph.SetShape(result, SymTensor::Unknown());
  }
  if (transpose != kNone) {
    result = NewTranspose(graph, result, UnsqueezePerm(axes, *graph.TransposePerm(transpose)), node, false);
  }
  graph.SetInput(node, slot, result);
  if (transpose != kNone) graph.RemoveIfUnused(transpose);
}

void EditInputs(PushGraph& graph, NodeId node, const PushPlan& plan) {
  for (const PushPlan::InputEdit& edit : plan.input_edits) {
    ValueId replacement = kNone;
    if (edit.gather) {
      const ValueId indices = NewIntConstant(graph, "transpose_indices", edit.values, TensorProto::INT64);
      const ValueId source = graph.InputOf(node, edit.slot);
      replacement = graph.NewValue(source, "_permuted");
      const NodeId gather = graph.AddNode("Gather", "", {source, indices}, {replacement}, node, false);
      SetIntAttribute(graph.MutableNode(gather), "axis", 0);
      if (const SymTensor* known = graph.Shape(source)) graph.SetShape(replacement, *known);
    } else {
      replacement = NewIntConstant(graph, "transpose_axes", edit.values, edit.elem_type);
    }
    if (graph.InputCount(node) <= edit.slot) graph.ResizeInputs(node, edit.slot + 1);
    graph.SetInput(node, edit.slot, replacement);
  }
}

// The Shape node reads the untransposed input: Gather(Shape(x), indices) is the
// old output.
void AbsorbIntoShape(PushGraph& graph, NodeId node, const PushPlan& plan) {
  const ValueId old = graph.OutputOf(node, 0);
  const ValueId fresh = graph.RenameOutput(node, 0, "_untransposed");
  const ValueId indices = NewIntConstant(graph, "shape_indices", plan.absorbed_indices, TensorProto::INT64);
  const NodeId gather = graph.AddNode("Gather", "", {fresh, indices}, {old}, node, true);
  SetIntAttribute(graph.MutableNode(gather), "axis", 0);
}

// Output `slot` gets a fresh name; a Transpose of perm `perm` produces the old
// one.
void AddOutputCopy(PushGraph& graph, NodeId node, int slot, const Perm& perm) {
  const ValueId old = graph.OutputOf(node, slot);
  if (old == kNone) return;
  const ValueId fresh = graph.RenameOutput(node, slot, "_untransposed");
  graph.SetTransposedShape(fresh, old, InversePermutation(perm));
  const NodeId copy = graph.AddNode("Transpose", "", {fresh}, {old}, node, true);
  SetIntsAttribute(graph.MutableNode(copy), "perm", perm);
}

}  // namespace

std::optional<TensorProto> PermuteConstant(const TensorProto& tensor, const Perm& perm) {
  if (tensor.data_type() == TensorProto::STRING || tensor.data_location() == TensorProto::EXTERNAL) return std::nullopt;
  if (static_cast<std::size_t>(tensor.dims_size()) != perm.size()) return std::nullopt;
  const core::eval::Tensor source = core::eval::Tensor::FromProto(tensor);
  std::vector<std::int64_t> dims;
  for (std::int64_t axis : perm) dims.push_back(source.shape()[static_cast<std::size_t>(axis)]);
  core::eval::Tensor result(source.elem_type(), dims);
  const std::size_t width = source.size() == 0 ? 0 : source.ByteSize() / static_cast<std::size_t>(source.size());
  // Strides of the source, read in the order of the result's axes.
  const std::size_t rank = perm.size();
  std::vector<std::int64_t> source_strides(rank, 1);
  for (std::size_t i = rank; i-- > 1;) source_strides[i - 1] = source_strides[i] * source.shape()[i];
  std::vector<std::int64_t> index(rank, 0);
  for (std::int64_t flat = 0; flat < result.size(); ++flat) {
    std::int64_t offset = 0;
    for (std::size_t i = 0; i < rank; ++i) offset += index[i] * source_strides[static_cast<std::size_t>(perm[i])];
    std::memcpy(result.MutableRawData() + static_cast<std::size_t>(flat) * width,
                source.RawData() + static_cast<std::size_t>(offset) * width, width);
    for (std::size_t i = rank; i-- > 0;) {
      if (++index[i] < dims[i]) break;
      index[i] = 0;
    }
  }
  return result.ToProto(tensor.name());
}

void ExecutePlan(PushGraph& graph, NodeId node, const Perm& perm, const PushPlan& plan) {
  if (plan.broadcast)
    for (int slot : plan.slots) NormalizeRank(graph, node, slot, perm.size());
  const Perm inverse = InversePermutation(perm);
  for (int slot : plan.slots) TransposeInput(graph, node, slot, inverse);
  NodeProto& proto = graph.MutableNode(node);
  for (const auto& [name, value] : plan.set_int) SetIntAttribute(proto, name, value);
  for (const auto& [name, values] : plan.set_ints) SetIntsAttribute(proto, name, values);
  for (const std::string& name : plan.drop_attributes) DropAttribute(proto, name);
  EditInputs(graph, node, plan);
  if (plan.absorbs) {
    AbsorbIntoShape(graph, node, plan);
    return;
  }
  for (std::size_t k = 0; k < plan.output_perms.size(); ++k)
    if (!plan.output_perms[k].empty() && !IsIdentityPermutation(plan.output_perms[k]))
      AddOutputCopy(graph, node, static_cast<int>(k), plan.output_perms[k]);
}

TransposePair FoldTransposePair(PushGraph& graph, NodeId first, NodeId second) {
  const Perm composed = ComposePermutations(*graph.TransposePerm(first), *TransposeLikePerm(graph, second));
  const ValueId source = graph.InputOf(first, 0);
  if (!IsIdentityPermutation(composed)) {
    graph.SetInput(second, 0, source);
    if (graph.Is(second, OpKind::kReshape)) {
      // A Reshape that only moved axes becomes the Transpose it is equivalent to.
      graph.SetInput(second, 1, kNone);
      graph.ResizeInputs(second, 1);
      NodeProto& proto = graph.MutableNode(second);
      proto.set_op_type("Transpose");
      proto.clear_attribute();
    }
    SetIntsAttribute(graph.MutableNode(second), "perm", composed);
    graph.RemoveIfUnused(first);
    return TransposePair::kMerged;
  }
  const ValueId output = graph.OutputOf(second, 0);
  for (NodeId reader : graph.Consumers(output)) {
    for (int i = 0; i < graph.InputCount(reader); ++i)
      if (graph.InputOf(reader, i) == output) graph.SetInput(reader, i, source);
  }
  if (!graph.HasCompleteConsumers(output)) {
    // A graph output, or a value a nested graph (If branch, Loop body) reads by its name,
    // which the readers above do not include: the name stays, moved onto the producer of
    // the source when nothing else needs the source's name or the first Transpose, else
    // defined by an Identity (the cleanup then renames it inside nested graphs).
    const NodeId producer = graph.Producer(source);
    const ValueId middle = graph.OutputOf(first, 0);
    const bool movable = producer != kNone && graph.HasCompleteConsumers(source) &&
                         graph.Consumers(source) == std::vector<NodeId>{first} && graph.HasCompleteConsumers(middle) &&
                         graph.Consumers(middle) == std::vector<NodeId>{second} && graph.IsModifiable(producer);
    graph.RenameOutput(second, 0, "_cancelled");
    if (movable) {
      graph.RemoveNode(second);
      graph.RemoveNode(first);
      int slot = 0;
      while (graph.OutputOf(producer, slot) != source) ++slot;
      graph.TakeOverOutput(producer, slot, output);
      return TransposePair::kCancelled;
    }
    graph.AddNode("Identity", "", {source}, {output}, second, true);
  }
  graph.RemoveNode(second);
  graph.RemoveIfUnused(first);
  return TransposePair::kCancelled;
}

}  // namespace onnxopt::onnx_transpose
