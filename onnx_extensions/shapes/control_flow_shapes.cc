// Shape functions of control flow (If, Loop, Scan, SequenceMap), sequences and optionals.
//
// A value that may come from several places (the two branches of If, the initial and the
// updated loop-carried values) gets the merge of what is known of each: a dim is kept
// only where all agree. Loop-carried values are fed to the body as the merge of their
// initial value and the body's output, repeated until nothing changes, so that the body
// is inferred with a description valid at every iteration.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"
#include "onnx_extensions/shapes/shape_rules.h"

namespace onnxopt::onnx_shapes {

namespace {

using core::shapes::RegisterShapeFunction;
using Kind = SymTensor::Kind;

constexpr int kBool = TensorProto::BOOL;
constexpr int kInt64 = TensorProto::INT64;

// Dims equal in both are kept, others become unknown; different ranks give unknown rank.
SymShape MergeShapes(const SymShape& a, const SymShape& b) {
  if (!a.HasRank() || !b.HasRank() || a.Rank() != b.Rank()) return SymShape();
  std::vector<SymDim> dims;
  for (std::size_t i = 0; i < a.Rank(); ++i) dims.push_back(a[i] == b[i] ? a[i] : SymDim::Unknown());
  return SymShape(dims);
}

// What is known of a value that is either `a` or `b`. Different element types are
// reported (when `ctx` is given) and give an unknown type.
SymTensor Merge(const SymTensor& a, const SymTensor& b, InferenceContext* ctx = nullptr, std::string_view what = "") {
  if (a.kind != b.kind) return SymTensor::Unknown();
  if (a.kind == Kind::kUnknown) return SymTensor::Unknown();
  SymTensor out;
  out.kind = a.kind;
  if (a.elem_type == b.elem_type) {
    out.elem_type = a.elem_type;
  } else if (a.elem_type != 0 && b.elem_type != 0 && ctx) {
    ctx->Diagnose(std::string(what) + " has element type " + std::to_string(a.elem_type) + " on one path and " +
                  std::to_string(b.elem_type) + " on the other");
  }
  out.shape = MergeShapes(a.shape, b.shape);
  if (a.value && b.value && a.value->size() == b.value->size() && out.shape.HasRank()) {
    bool same = true;
    for (std::size_t i = 0; i < a.value->size() && same; ++i) same = (*a.value)[i] == (*b.value)[i];
    if (same && out.shape == a.shape) out.value = a.value;
  }
  return out;
}

bool SameDescription(const SymTensor& a, const SymTensor& b) {
  if (a.kind != b.kind || a.elem_type != b.elem_type || a.shape.HasRank() != b.shape.HasRank()) return false;
  if (a.value.has_value() != b.value.has_value()) return false;
  if (a.shape.HasRank()) {
    if (a.shape.Rank() != b.shape.Rank()) return false;
    for (std::size_t i = 0; i < a.shape.Rank(); ++i) {
      if (a.shape[i].IsUnknown() != b.shape[i].IsUnknown()) return false;
      if (a.shape[i].IsKnown() && !(a.shape[i] == b.shape[i])) return false;
    }
  }
  if (a.value) {
    for (std::size_t i = 0; i < a.value->size(); ++i) {
      if ((*a.value)[i].IsUnknown() != (*b.value)[i].IsUnknown()) return false;
      if ((*a.value)[i].IsKnown() && !((*a.value)[i] == (*b.value)[i])) return false;
    }
  }
  return true;
}

// Keeps only the kind and element type.
SymTensor Generalize(const SymTensor& t) {
  if (t.kind == Kind::kUnknown) return SymTensor::Unknown();
  SymTensor out;
  out.kind = t.kind;
  out.elem_type = t.elem_type;
  return out;
}

SymTensor InputOrUnknown(const InferenceContext& ctx, std::size_t i) {
  return ctx.HasInput(i) ? ctx.Input(i) : SymTensor::Unknown();
}

SymTensor SequenceOf(const SymTensor& element) {
  if (element.kind != Kind::kTensor) return SymTensor{Kind::kSequence, element.elem_type, SymShape(), std::nullopt};
  return SymTensor{Kind::kSequence, element.elem_type, element.shape, std::nullopt};
}

SymTensor ElementOf(const SymTensor& sequence) {
  if (sequence.kind != Kind::kSequence && sequence.kind != Kind::kOptional) return SymTensor::Unknown();
  return SymTensor::Tensor(sequence.elem_type, sequence.shape);
}

// `t` with `dim` inserted at position `axis` of its shape.
SymTensor WithDimInserted(const SymTensor& t, std::size_t axis, const SymDim& dim) {
  if (t.kind != Kind::kTensor) return SymTensor::Unknown();
  if (!t.shape.HasRank() || axis > t.shape.Rank()) return UnknownTensor(t.elem_type);
  std::vector<SymDim> dims = t.shape.Dims();
  dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(axis), dim);
  return SymTensor::Tensor(t.elem_type, SymShape(dims));
}

// `t` without the dim at `axis`.
SymTensor WithDimRemoved(const SymTensor& t, std::size_t axis) {
  if (t.kind != Kind::kTensor) return SymTensor::Unknown();
  if (!t.shape.HasRank() || axis >= t.shape.Rank()) return UnknownTensor(t.elem_type);
  std::vector<SymDim> dims = t.shape.Dims();
  dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(axis));
  return SymTensor::Tensor(t.elem_type, SymShape(dims));
}

// Infers `body` with the loop-carried values (at positions [first, first + count) of the
// body inputs) generalized until they describe every iteration: each round feeds the
// merge of the previous description and the body's output. Returns the body outputs of
// the last (sound) round; `inputs` receives the descriptions used.
std::vector<SymTensor> InferWithCarriedValues(InferenceContext& ctx, std::string_view body, std::vector<SymTensor>& inputs,
                                              std::size_t first_input, std::size_t first_output, std::size_t count) {
  constexpr int kMaxRounds = 3;
  for (int round = 0;; ++round) {
    std::vector<SymTensor> outputs = ctx.InferSubgraph(body, inputs);
    bool stable = true;
    for (std::size_t i = 0; i < count; ++i) {
      const SymTensor& out = first_output + i < outputs.size() ? outputs[first_output + i] : SymTensor::Unknown();
      SymTensor merged = Merge(inputs[first_input + i], out);
      if (!SameDescription(merged, inputs[first_input + i])) {
        stable = false;
        inputs[first_input + i] = round + 1 < kMaxRounds ? merged : Generalize(merged);
      }
    }
    if (stable) return outputs;
    if (round + 1 > kMaxRounds) return outputs;  // generalized to kind and type: sound
  }
}

// Refuses the node unless its graph attribute `attribute` has `inputs` formal inputs
// and `outputs` outputs, as its operator specifies. Inputs that name an initializer of the
// graph are not formal (IR version 3 lists initializers among a graph's inputs).
void RequireGraphSignature(const InferenceContext& ctx, std::string_view attribute, std::size_t inputs,
                           std::size_t outputs, std::string_view why) {
  const AttributeProto* attr = ctx.Attribute(attribute);
  if (!attr || !attr->has_g()) return;  // the schema check refuses a missing or empty graph
  const GraphProto& graph = attr->g();
  std::size_t formal = 0;
  for (const ValueInfoProto& input : graph.input()) {
    const bool initializer = std::any_of(graph.initializer().begin(), graph.initializer().end(),
                                         [&](const TensorProto& init) { return init.name() == input.name(); });
    if (!initializer) ++formal;
  }
  if (formal == inputs && static_cast<std::size_t>(graph.output_size()) == outputs) return;
  RefuseNode(ctx,
             std::string(attribute) + " has " + std::to_string(inputs) + " inputs and " + std::to_string(outputs) +
                 " outputs (" + std::string(why) + ")",
             std::to_string(formal) + " inputs and " + std::to_string(graph.output_size()) + " outputs");
}

// ---------------------------------------------------------------------------------------
// If

std::vector<SymTensor> InferIf(InferenceContext& ctx) {
  for (std::string_view branch : {"then_branch", "else_branch"})
    RequireGraphSignature(ctx, branch, 0, ctx.OutputCount(), "one output per output of the node");
  std::vector<SymTensor> then_out = ctx.InferSubgraph("then_branch", {});
  std::vector<SymTensor> else_out = ctx.InferSubgraph("else_branch", {});
  std::optional<std::int64_t> cond = InputScalarInt(ctx, 0);
  std::vector<SymTensor> out;
  for (std::size_t i = 0; i < ctx.OutputCount(); ++i) {
    const SymTensor t = i < then_out.size() ? then_out[i] : SymTensor::Unknown();
    const SymTensor e = i < else_out.size() ? else_out[i] : SymTensor::Unknown();
    if (t.kind == e.kind && t.HasElemType() && e.HasElemType() && t.elem_type != e.elem_type) {
      RefuseNode(ctx, "branches give output " + std::to_string(i) + " one type",
                 t.ToString() + " in then_branch, " + e.ToString() + " in else_branch");
    }
    if (cond) out.push_back(*cond != 0 ? t : e);
    else out.push_back(Merge(t, e, &ctx, "output " + std::to_string(i)));
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Loop(M?, cond?, v_initial...): body(iteration_num, cond, v...) -> (cond, v..., scan...)

std::vector<SymTensor> InferLoop(InferenceContext& ctx) {
  const std::size_t carried = ctx.InputCount() >= 2 ? ctx.InputCount() - 2 : 0;
  RequireGraphSignature(ctx, "body", 2 + carried, 1 + ctx.OutputCount(),
                        "the iteration number, the condition and the carried values in; the condition and the "
                        "outputs of the node out");
  std::vector<SymTensor> inputs = {SymTensor::Tensor(kInt64, SymShape::Scalar()),
                                   SymTensor::Tensor(kBool, SymShape::Scalar())};
  for (std::size_t i = 0; i < carried; ++i) inputs.push_back(InputOrUnknown(ctx, i + 2));
  std::vector<SymTensor> body = InferWithCarriedValues(ctx, "body", inputs, 2, 1, carried);

  // Exactly M iterations when there is no condition input.
  SymDim trips;
  if (ctx.HasInput(0) && !ctx.HasInput(1)) {
    if (auto m = InputScalar(ctx, 0)) trips = *m;
  }
  std::vector<SymTensor> out;
  for (std::size_t i = 0; i < ctx.OutputCount(); ++i) {
    if (i < carried) {
      out.push_back(inputs[i + 2]);
      continue;
    }
    const std::size_t b = 1 + i;  // body outputs: cond, carried..., scan...
    out.push_back(b < body.size() ? WithDimInserted(body[b], 0, trips) : SymTensor::Unknown());
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Scan

// num_scan_inputs, between 1 and the count of state and scan inputs.
std::size_t ScanInputCount(const InferenceContext& ctx, std::size_t inputs) {
  const std::int64_t m = ctx.IntAttribute("num_scan_inputs").value_or(1);  // required: the schema check
  if (m < 1 || static_cast<std::size_t>(m) > inputs) {
    RefuseNode(ctx, "num_scan_inputs is in [1, " + std::to_string(inputs) + "] (the state and scan inputs)",
               "num_scan_inputs " + std::to_string(m));
  }
  return static_cast<std::size_t>(m);
}

// Scan-8(sequence_lens?, state..., scan...): every input has a leading batch dim and the
// scan inputs their sequence on axis 1.
std::vector<SymTensor> InferScan8(InferenceContext& ctx) {
  const std::size_t n_inputs = ctx.InputCount() >= 1 ? ctx.InputCount() - 1 : 0;
  const std::size_t m = ScanInputCount(ctx, n_inputs);
  RequireGraphSignature(ctx, "body", n_inputs, ctx.OutputCount(), "the inputs and outputs of the node");
  const std::size_t n = n_inputs - m;
  SymDim batch, seq;
  std::vector<SymTensor> inputs;
  for (std::size_t i = 0; i < n_inputs; ++i) {
    const SymTensor t = InputOrUnknown(ctx, i + 1);
    if (t.kind == Kind::kTensor && t.shape.HasRank() && t.shape.Rank() >= 1 && batch.IsUnknown()) batch = t.shape[0];
    if (i >= n && t.kind == Kind::kTensor && t.shape.HasRank() && t.shape.Rank() >= 2 && seq.IsUnknown()) {
      seq = t.shape[1];
    }
    inputs.push_back(i < n ? WithDimRemoved(t, 0) : WithDimRemoved(WithDimRemoved(t, 0), 0));
  }
  std::vector<SymTensor> body = InferWithCarriedValues(ctx, "body", inputs, 0, 0, n);
  std::vector<SymTensor> out;
  for (std::size_t i = 0; i < ctx.OutputCount(); ++i) {
    if (i < n) {
      out.push_back(WithDimInserted(inputs[i], 0, batch));
    } else {
      const SymTensor b = i < body.size() ? body[i] : SymTensor::Unknown();
      out.push_back(WithDimInserted(WithDimInserted(b, 0, seq), 0, batch));
    }
  }
  return out;
}

// Scan-9+(state..., scan...): scan inputs are sliced along scan_input_axes, scan outputs
// stacked along scan_output_axes.
std::vector<SymTensor> InferScan(InferenceContext& ctx) {
  if (ctx.OpsetVersion() < 9) return InferScan8(ctx);
  const std::size_t m = ScanInputCount(ctx, ctx.InputCount());
  RequireGraphSignature(ctx, "body", ctx.InputCount(), ctx.OutputCount(), "the inputs and outputs of the node");
  const std::size_t n = ctx.InputCount() - m;
  const std::size_t k = ctx.OutputCount() > n ? ctx.OutputCount() - n : 0;
  const auto input_axes = ctx.IntsAttribute("scan_input_axes").value_or(std::vector<std::int64_t>(m, 0));
  const auto output_axes = ctx.IntsAttribute("scan_output_axes");
  RequireCount(ctx, "scan_input_axes", input_axes.size(), m, "one per scan input");
  if (output_axes) RequireCount(ctx, "scan_output_axes", output_axes->size(), k, "one per scan output");
  std::vector<SymTensor> inputs;
  SymDim seq;
  for (std::size_t i = 0; i < ctx.InputCount(); ++i) {
    const SymTensor t = InputOrUnknown(ctx, i);
    if (i < n) {
      inputs.push_back(t);
      continue;
    }
    if (t.kind != Kind::kTensor || !t.shape.HasRank()) {
      inputs.push_back(Generalize(t));
      continue;
    }
    auto axis = NormalizeAxis(ctx, input_axes[i - n], static_cast<std::int64_t>(t.shape.Rank()), "scan_input_axes");
    if (!axis) return UnknownOutputs(ctx);
    const SymDim& len = t.shape[static_cast<std::size_t>(*axis)];
    if (seq.IsUnknown()) {
      seq = len;
    } else if (SymDim::ProvablyDifferent(seq, len)) {
      ctx.Diagnose("scan inputs have different sequence lengths " + seq.ToString() + " and " + len.ToString());
      return UnknownOutputs(ctx);
    }
    inputs.push_back(WithDimRemoved(t, static_cast<std::size_t>(*axis)));
  }
  std::vector<SymTensor> body = InferWithCarriedValues(ctx, "body", inputs, 0, 0, n);
  std::vector<SymTensor> out;
  for (std::size_t i = 0; i < ctx.OutputCount(); ++i) {
    if (i < n) {
      out.push_back(inputs[i]);
      continue;
    }
    const SymTensor b = i < body.size() ? body[i] : SymTensor::Unknown();
    if (b.kind != Kind::kTensor || !b.shape.HasRank()) {
      out.push_back(Generalize(b));
      continue;
    }
    const std::int64_t axis = output_axes ? (*output_axes)[i - n] : 0;
    auto normalized = NormalizeAxis(ctx, axis, static_cast<std::int64_t>(b.shape.Rank()) + 1, "scan_output_axes");
    if (!normalized) {
      out.push_back(UnknownTensor(b.elem_type));
      continue;
    }
    out.push_back(WithDimInserted(b, static_cast<std::size_t>(*normalized), seq));
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Sequences

std::vector<SymTensor> InferSequenceEmpty(InferenceContext& ctx) {
  const int type = static_cast<int>(ctx.IntAttribute("dtype").value_or(TensorProto::FLOAT));
  return Outputs(ctx, SymTensor{Kind::kSequence, type, SymShape(), std::nullopt});
}

std::vector<SymTensor> InferSequenceConstruct(InferenceContext& ctx) {
  if (ctx.InputCount() == 0) return UnknownOutputs(ctx);
  SymTensor element = TypeAndShape(ctx.Input(0));
  for (std::size_t i = 1; i < ctx.InputCount(); ++i) element = Merge(element, ctx.Input(i), &ctx, "input");
  return Outputs(ctx, SequenceOf(element));
}

std::vector<SymTensor> InferSequenceInsert(InferenceContext& ctx) {
  const SymTensor& seq = ctx.Input(0);
  if (seq.kind != Kind::kSequence) return Outputs(ctx, SequenceOf(Generalize(ctx.Input(1))));
  return Outputs(ctx, SequenceOf(Merge(ElementOf(seq), TypeAndShape(ctx.Input(1)), &ctx, "the inserted tensor")));
}

std::vector<SymTensor> InferSequenceAt(InferenceContext& ctx) {
  const SymTensor& seq = ctx.Input(0);
  if (seq.kind != Kind::kSequence) return UnknownOutputs(ctx);
  return Outputs(ctx, ElementOf(seq));
}

std::vector<SymTensor> InferSequenceErase(InferenceContext& ctx) {
  const SymTensor& seq = ctx.Input(0);
  if (seq.kind != Kind::kSequence) return UnknownOutputs(ctx);
  return Outputs(ctx, TypeAndShape(seq));
}

std::vector<SymTensor> InferSequenceLength(InferenceContext& ctx) {
  return Outputs(ctx, SymTensor::Tensor(kInt64, SymShape::Scalar()));
}

// SplitToSequence(input, split?): parts along `axis`; without split, parts of 1 (axis
// removed when keepdims=0).
std::vector<SymTensor> InferSplitToSequence(InferenceContext& ctx) {
  const SymTensor& x = ctx.Input(0);
  const bool keepdims = FlagAttribute(ctx, "keepdims", true);
  if (x.kind != Kind::kTensor || !x.shape.HasRank()) {
    return Outputs(ctx, SymTensor{Kind::kSequence, x.elem_type, SymShape(), std::nullopt});
  }
  auto axis = NormalizeAxis(ctx, ctx.IntAttribute("axis").value_or(0), static_cast<std::int64_t>(x.shape.Rank()));
  if (!axis) return UnknownOutputs(ctx);
  const auto a = static_cast<std::size_t>(*axis);
  std::vector<SymDim> dims = x.shape.Dims();
  if (!ctx.HasInput(1)) {
    if (!keepdims) dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(a));
    else dims[a] = SymDim(1);
    return Outputs(ctx, SymTensor{Kind::kSequence, x.elem_type, SymShape(dims), std::nullopt});
  }
  SymDim part;
  const SymShape split_shape = ctx.Input(1).shape;
  auto split = InputValues(ctx, 1);
  if (split && split_shape.HasRank() && split_shape.Rank() == 0) {
    // Parts of `split`, the last one shorter when it does not divide the dim.
    const SymDim& s = (*split)[0];
    auto cs = s.Constant();
    if (cs && *cs <= 0) RefuseNode(ctx, "scalar split > 0", "split " + std::to_string(*cs));
    auto cd = dims[a].Constant();
    if (cs && cd && *cd % *cs == 0) part = s;
    else if (s == dims[a]) part = s;
  } else if (split && !split->empty()) {
    RequireSplitSizes(ctx, *split, dims[a]);
    part = (*split)[0];
    for (const SymDim& s : *split) {
      if (!(s == part)) part = SymDim::Unknown();
    }
  }
  dims[a] = part;
  return Outputs(ctx, SymTensor{Kind::kSequence, x.elem_type, SymShape(dims), std::nullopt});
}

// ConcatFromSequence: the element shape, with an unknown length along `axis` (a new axis
// of unknown length with new_axis=1).
std::vector<SymTensor> InferConcatFromSequence(InferenceContext& ctx) {
  const SymTensor& seq = ctx.Input(0);
  if (seq.kind != Kind::kSequence) return UnknownOutputs(ctx);
  if (!seq.shape.HasRank()) return Outputs(ctx, UnknownTensor(seq.elem_type));
  const bool new_axis = FlagAttribute(ctx, "new_axis", false);
  const std::int64_t rank = static_cast<std::int64_t>(seq.shape.Rank()) + (new_axis ? 1 : 0);
  auto axis = NormalizeAxis(ctx, ctx.IntAttribute("axis").value_or(0), rank);
  if (!axis) return UnknownOutputs(ctx);
  const SymTensor element = ElementOf(seq);
  if (new_axis) return Outputs(ctx, WithDimInserted(element, static_cast<std::size_t>(*axis), SymDim::Unknown()));
  std::vector<SymDim> dims = seq.shape.Dims();
  dims[static_cast<std::size_t>(*axis)] = SymDim::Unknown();
  return Outputs(ctx, SymTensor::Tensor(seq.elem_type, SymShape(dims)));
}

// SequenceMap(input_sequence, additional...): the body maps elements (sequence inputs)
// and whole tensors (tensor inputs) to elements of the output sequences.
std::vector<SymTensor> InferSequenceMap(InferenceContext& ctx) {
  RequireGraphSignature(ctx, "body", ctx.InputCount(), ctx.OutputCount(), "the inputs and outputs of the node");
  std::vector<SymTensor> inputs;
  for (std::size_t i = 0; i < ctx.InputCount(); ++i) {
    const SymTensor& t = ctx.Input(i);
    inputs.push_back(t.kind == Kind::kSequence ? ElementOf(t) : t);
  }
  std::vector<SymTensor> body = ctx.InferSubgraph("body", inputs);
  std::vector<SymTensor> out;
  for (std::size_t i = 0; i < ctx.OutputCount(); ++i) {
    out.push_back(i < body.size() && body[i].kind == Kind::kTensor ? SequenceOf(body[i]) : SymTensor::Unknown());
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Optionals

std::vector<SymTensor> InferOptional(InferenceContext& ctx) {
  SymTensor element;
  if (ctx.HasInput(0)) {
    element = ctx.Input(0);
  } else if (const AttributeProto* type = ctx.Attribute("type"); type && type->has_tp()) {
    element = SymTensor::FromType(type->tp());
  } else {
    return UnknownOutputs(ctx);
  }
  if (element.kind != Kind::kTensor) return UnknownOutputs(ctx);  // optional(sequence) is not described
  return Outputs(ctx, SymTensor{Kind::kOptional, element.elem_type, element.shape, std::nullopt});
}

std::vector<SymTensor> InferOptionalGetElement(InferenceContext& ctx) {
  const SymTensor& in = ctx.Input(0);
  if (in.kind == Kind::kOptional) return Outputs(ctx, ElementOf(in));
  // Since opset 18 a plain tensor or sequence passes through.
  if (in.kind == Kind::kTensor || in.kind == Kind::kSequence) return Outputs(ctx, TypeAndShape(in));
  return UnknownOutputs(ctx);
}

std::vector<SymTensor> InferOptionalHasElement(InferenceContext& ctx) {
  return Outputs(ctx, SymTensor::Tensor(kBool, SymShape::Scalar()));
}

}  // namespace

void RegisterControlFlowShapes() {
  auto reg = [](std::string_view op, ShapeFunction fn) { RegisterShapeFunction("", op, std::move(fn)); };
  reg("If", InferIf);
  reg("Loop", InferLoop);
  reg("Scan", InferScan);
  reg("SequenceMap", InferSequenceMap);
  reg("SequenceEmpty", InferSequenceEmpty);
  reg("SequenceConstruct", InferSequenceConstruct);
  reg("SequenceInsert", InferSequenceInsert);
  reg("SequenceAt", InferSequenceAt);
  reg("SequenceErase", InferSequenceErase);
  reg("SequenceLength", InferSequenceLength);
  reg("SplitToSequence", InferSplitToSequence);
  reg("ConcatFromSequence", InferConcatFromSequence);
  reg("Optional", InferOptional);
  reg("OptionalGetElement", InferOptionalGetElement);
  reg("OptionalHasElement", InferOptionalHasElement);
}

}  // namespace onnxopt::onnx_shapes
