// Control flow (If, Loop, Scan), sequences and optionals. Subgraphs run through
// KernelContext::RunSubgraph and see the values of the enclosing scopes.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/kernel_signature.h"

namespace onnxopt::onnx_kernels {
namespace {

using core::eval::Arity;
using core::eval::NoValue;
using core::eval::Sequence;

// Copies `count` elements from src[src_at] to dst[dst_at] (any element type).
void CopyElements(const Tensor& src, std::int64_t src_at, Tensor& dst, std::int64_t dst_at, std::int64_t count) {
  if (count <= 0) return;
  if (src.elem_type() == TensorProto::STRING) {
    const std::string* s = src.Data<std::string>();
    std::string* d = dst.MutableData<std::string>();
    std::copy(s + src_at, s + src_at + count, d + dst_at);
    return;
  }
  const std::size_t eb = core::eval::StorageBytes(src.elem_type());
  std::memcpy(dst.MutableRawData() + dst_at * eb, src.RawData() + src_at * eb, static_cast<std::size_t>(count) * eb);
}

// Concatenates tensors along `axis` (new_axis: stacks them along a new axis).
Tensor ConcatTensors(const std::vector<Tensor>& parts, std::int64_t axis, bool new_axis, const char* op) {
  if (parts.empty()) throw ModelError(std::string(op) + ": nothing to concatenate");
  const Tensor& first = parts[0];
  const auto rank = static_cast<std::int64_t>(first.rank()) + (new_axis ? 1 : 0);
  axis = NormalizeAxis(axis, rank);
  Shape out = first.shape();
  if (new_axis) out.insert(out.begin() + axis, 0);
  else out[axis] = 0;
  for (const Tensor& t : parts) {
    if (t.elem_type() != first.elem_type()) throw ModelError(std::string(op) + ": tensors have different element types");
    Shape s = t.shape();
    if (new_axis) s.insert(s.begin() + axis, 1);
    if (s.size() != out.size()) throw ModelError(std::string(op) + ": tensors have different ranks");
    for (std::size_t d = 0; d < s.size(); ++d)
      if (d != static_cast<std::size_t>(axis) && s[d] != out[d])
        throw ModelError(std::string(op) + ": tensor shapes differ outside the axis");
    out[axis] += s[axis];
  }
  Tensor result(first.elem_type(), out);
  const std::int64_t outer = ShapeSize(out, 0, static_cast<std::size_t>(axis));
  const std::int64_t inner = ShapeSize(out, static_cast<std::size_t>(axis) + 1, out.size());
  const std::int64_t out_row = out[axis] * inner;
  std::int64_t at = 0;
  for (const Tensor& t : parts) {
    const std::int64_t len = (new_axis ? 1 : t.shape()[axis]) * inner;
    for (std::int64_t o = 0; o < outer; ++o) CopyElements(t, o * len, result, o * out_row + at, len);
    at += len;
  }
  return result;
}

// Elements [start, start+len) along `axis`; keep_dim=false drops the axis (len 1).
Tensor SliceAxis(const Tensor& t, std::int64_t axis, std::int64_t start, std::int64_t len, bool keep_dim) {
  Shape s = t.shape();
  const std::int64_t outer = ShapeSize(s, 0, static_cast<std::size_t>(axis));
  const std::int64_t inner = ShapeSize(s, static_cast<std::size_t>(axis) + 1, s.size());
  const std::int64_t dim = s[axis];
  Shape out = s;
  out[axis] = len;
  if (!keep_dim) out.erase(out.begin() + axis);
  Tensor result(t.elem_type(), out);
  for (std::int64_t o = 0; o < outer; ++o)
    CopyElements(t, (o * dim + start) * inner, result, o * len * inner, len * inner);
  return result;
}

Tensor BoolScalar(bool v) {
  Tensor t(TensorProto::BOOL, {});
  t.MutableData<bool>()[0] = v;
  return t;
}
Tensor Int64Scalar(std::int64_t v) {
  Tensor t(TensorProto::INT64, {});
  t.MutableData<std::int64_t>()[0] = v;
  return t;
}

// A condition: a bool tensor of one element.
bool ScalarTrue(const Tensor& t, const char* what) {
  ExpectElemType(t, TensorProto::BOOL, what);
  if (t.size() != 1) throw ModelError(std::string(what) + " must have one element, found " + t.Describe());
  return t.Data<bool>()[0];
}

// ---------------------------------------------------------------------------------
// If, Loop, Scan

std::vector<Value> IfKernel(KernelContext& ctx) {
  const bool cond = ScalarTrue(ctx.TensorInput(0), "If: cond");
  auto out = ctx.RunSubgraph(cond ? "then_branch" : "else_branch", {});
  if (out.size() != ctx.OutputCount())
    throw ModelError("If: the branch returns " + std::to_string(out.size()) + " values, the node has " +
                     std::to_string(ctx.OutputCount()) + " outputs");
  return out;
}

// The scan output i of a body that ran zero times: no slice stacked, so [0] followed by the
// body output's declared dims when all are known, of its declared element type (FLOAT
// when unknown).
Tensor EmptyScanOutput(KernelContext& ctx, int i) {
  const AttributeProto* a = ctx.Attribute("body");
  int elem_type = TensorProto::FLOAT;
  Shape shape{0};
  if (a && a->has_g() && i < a->g().output_size()) {
    const auto& type = a->g().output(i).type();
    if (type.has_tensor_type()) {
      if (type.tensor_type().elem_type() != 0) elem_type = type.tensor_type().elem_type();
      const auto& dims = type.tensor_type().shape().dim();
      const bool known = type.tensor_type().has_shape() &&
                         std::all_of(dims.begin(), dims.end(), [](const auto& d) { return d.has_dim_value(); });
      if (known)
        for (const auto& d : dims) shape.push_back(d.dim_value());
    }
  }
  return Tensor(elem_type, shape);
}

std::vector<Value> LoopKernel(KernelContext& ctx) {
  const bool has_m = ctx.HasInput(0);
  if (has_m) ExpectElemType(ctx.TensorInput(0), TensorProto::INT64, InputLabel(ctx, 0));
  const std::int64_t max_trip = has_m ? InputIntScalar(ctx, 0) : 0;
  bool cond = ctx.HasInput(1) ? ScalarTrue(ctx.TensorInput(1), "Loop: cond") : true;
  const std::size_t n_carried = ctx.InputCount() >= 2 ? ctx.InputCount() - 2 : 0;
  std::vector<Value> carried;
  for (std::size_t i = 0; i < n_carried; ++i) carried.push_back(ctx.Input(2 + i));
  const std::size_t n_scan = ctx.OutputCount() >= n_carried ? ctx.OutputCount() - n_carried : 0;
  std::vector<std::vector<Tensor>> scans(n_scan);
  std::int64_t it = 0;
  while ((!has_m || it < max_trip) && cond) {
    std::vector<Value> inputs{Int64Scalar(it), BoolScalar(cond)};
    inputs.insert(inputs.end(), carried.begin(), carried.end());
    auto out = ctx.RunSubgraph("body", inputs);
    if (out.size() != 1 + n_carried + n_scan)
      throw ModelError("Loop: the body returns " + std::to_string(out.size()) + " values, expected " +
                       std::to_string(1 + n_carried + n_scan));
    cond = ScalarTrue(core::eval::AsTensor(out[0], "Loop: body cond"), "Loop: body cond");
    // The runs of the body bound the iterations (2^24), not the slices each gives: a body
    // without nodes gives one per input it passes through.
    CheckHeldTensors(static_cast<std::uint64_t>(it + 1) * n_scan, [&] {
      return "the " + std::to_string(it + 1) + " x " + std::to_string(n_scan) + " slices of the scan outputs";
    });
    for (std::size_t i = 0; i < n_carried; ++i) carried[i] = std::move(out[1 + i]);
    for (std::size_t i = 0; i < n_scan; ++i)
      scans[i].push_back(core::eval::AsTensor(out[1 + n_carried + i], "Loop: scan output"));
    ++it;
  }
  std::vector<Value> result = carried;
  for (std::size_t i = 0; i < n_scan; ++i) {
    if (scans[i].empty())
      result.push_back(EmptyScanOutput(ctx, static_cast<int>(1 + n_carried + i)));
    else
      result.push_back(ConcatTensors(scans[i], 0, true, "Loop"));
  }
  return result;
}

// One scan over `len` steps: states, then slices of each scan input along its axis.
std::vector<Value> RunScan(KernelContext& ctx, std::vector<Value> state, const std::vector<Tensor>& scan_in,
                           const Shape& in_axes, const Shape& in_dirs, const Shape& out_axes, const Shape& out_dirs,
                           std::size_t K) {
  const std::size_t N = state.size(), M = scan_in.size();
  std::int64_t len = -1;
  for (std::size_t j = 0; j < M; ++j) {
    const std::int64_t l = scan_in[j].shape()[in_axes[j]];
    if (len >= 0 && l != len) throw ModelError("Scan: scan inputs have different lengths");
    len = l;
  }
  if (len < 0) len = 0;
  CheckHeldTensors(static_cast<std::uint64_t>(len) * K, [&] {
    return "the " + std::to_string(len) + " x " + std::to_string(K) + " slices of the scan outputs";
  });
  std::vector<std::vector<Tensor>> outs(K);
  for (std::int64_t it = 0; it < len; ++it) {
    std::vector<Value> inputs = state;
    for (std::size_t j = 0; j < M; ++j) {
      const std::int64_t at = in_dirs[j] ? len - 1 - it : it;
      inputs.push_back(SliceAxis(scan_in[j], in_axes[j], at, 1, false));
    }
    auto out = ctx.RunSubgraph("body", inputs);
    if (out.size() != N + K) throw ModelError("Scan: the body returns the wrong number of values");
    for (std::size_t i = 0; i < N; ++i) state[i] = std::move(out[i]);
    for (std::size_t k = 0; k < K; ++k) outs[k].push_back(core::eval::AsTensor(out[N + k], "Scan: scan output"));
  }
  std::vector<Value> result = state;
  for (std::size_t k = 0; k < K; ++k) {
    if (outs[k].empty()) {
      result.push_back(EmptyScanOutput(ctx, static_cast<int>(N + k)));
      continue;
    }
    if (out_dirs[k]) std::reverse(outs[k].begin(), outs[k].end());
    const auto rank = static_cast<std::int64_t>(outs[k][0].rank()) + 1;
    result.push_back(ConcatTensors(outs[k], NormalizeAxis(out_axes[k], rank), true, "Scan"));
  }
  return result;
}

std::vector<Value> ScanKernel(KernelContext& ctx) {
  const bool batched = ctx.OpsetVersion() < 9;  // opset 8: sequence_lens first, batch axis 0
  const std::size_t first = batched ? 1 : 0;
  const std::int64_t m_attr = RequiredIntAttribute(ctx, "num_scan_inputs");
  if (m_attr < 1 || static_cast<std::uint64_t>(m_attr) + first > ctx.InputCount())
    Fail("attribute 'num_scan_inputs' is " + std::to_string(m_attr) + ", expected 1 to " +
         std::to_string(ctx.InputCount() - first) + " (the inputs after the states)");
  const auto M = static_cast<std::size_t>(m_attr);
  const std::size_t N = ctx.InputCount() - first - M;
  if (ctx.OutputCount() < N)
    Fail("the node has " + std::to_string(ctx.OutputCount()) + " outputs for " + std::to_string(N) + " states");
  const std::size_t K = ctx.OutputCount() - N;
  auto list = [&](const char* name, std::size_t n) {
    Shape v = ctx.IntsAttribute(name).value_or(Shape(n, 0));
    if (v.empty()) v.assign(n, 0);
    if (v.size() != n) throw ModelError(std::string("Scan: ") + name + " has the wrong length");
    return v;
  };
  Shape in_axes = list("scan_input_axes", M), in_dirs = list(batched ? "directions" : "scan_input_directions", M);
  Shape out_axes = list("scan_output_axes", K), out_dirs = list("scan_output_directions", K);
  for (const Shape* dirs : {&in_dirs, &out_dirs})
    for (auto d : *dirs)
      if (d != 0 && d != 1) Fail("a scan direction is " + std::to_string(d) + ", expected 0 or 1");
  std::vector<Value> state;
  for (std::size_t i = 0; i < N; ++i) state.push_back(ctx.Input(first + i));
  std::vector<Tensor> scan_in;
  for (std::size_t j = 0; j < M; ++j) {
    scan_in.push_back(ctx.TensorInput(first + N + j));
    in_axes[j] = NormalizeAxis(in_axes[j], static_cast<std::int64_t>(scan_in[j].rank()) - (batched ? 1 : 0));
  }
  if (!batched) return RunScan(ctx, state, scan_in, in_axes, in_dirs, out_axes, out_dirs, K);
  // Opset 8: one scan per batch entry, results stacked along axis 0.
  if (scan_in.empty()) throw ModelError("Scan: no scan input");
  const std::int64_t batch = scan_in[0].shape()[0];
  // Every state and scan input is sliced per batch entry.
  for (const Value& v : state)
    if (const Tensor& t = core::eval::AsTensor(v, "Scan: state"); t.rank() == 0 || t.shape()[0] != batch)
      Fail("state " + t.Describe() + " must have the " + std::to_string(batch) + " batch entries of the scan inputs");
  for (const Tensor& t : scan_in)
    if (t.rank() == 0 || t.shape()[0] != batch)
      Fail("scan input " + t.Describe() + " must have the " + std::to_string(batch) + " batch entries of the first");
  if (ctx.HasInput(0)) {
    const auto lens = ctx.TensorInput(0).ToInt64Vector();
    for (auto l : lens)
      if (l != scan_in[0].shape()[1]) throw ModelError("Scan: sequence_lens shorter than the input are not supported");
  }
  // No step in any batch entry: the body never runs, so its runs do not bound the batch
  // entries, which an empty scan input may have as many as the limit allows. The states
  // come out as they went in and the scan outputs empty, without a loop over the entries.
  bool steps = false;
  for (std::size_t j = 0; j < M; ++j) steps = steps || scan_in[j].shape()[static_cast<std::size_t>(in_axes[j]) + 1] > 0;
  if (!steps) {
    std::vector<Value> result = state;
    for (std::size_t k = 0; k < K; ++k) {
      const Tensor empty = EmptyScanOutput(ctx, static_cast<int>(N + k));
      Shape shape = empty.shape();
      shape.insert(shape.begin(), batch);
      result.push_back(Tensor(empty.elem_type(), shape));
    }
    return result;
  }
  CheckHeldTensors(static_cast<std::uint64_t>(batch) * (N + K), [&] {
    return "the " + std::to_string(batch) + " x " + std::to_string(N + K) + " results of the batch entries";
  });
  std::vector<std::vector<Tensor>> per_output(N + K);
  for (std::int64_t b = 0; b < batch; ++b) {
    std::vector<Value> st;
    for (const Value& v : state) st.push_back(SliceAxis(core::eval::AsTensor(v, "Scan: state"), 0, b, 1, false));
    std::vector<Tensor> in;
    for (const Tensor& t : scan_in) in.push_back(SliceAxis(t, 0, b, 1, false));
    auto r = RunScan(ctx, st, in, in_axes, in_dirs, out_axes, out_dirs, K);
    for (std::size_t i = 0; i < N + K; ++i) per_output[i].push_back(core::eval::AsTensor(r[i], "Scan: output"));
  }
  std::vector<Value> result;
  for (auto& parts : per_output) result.push_back(ConcatTensors(parts, 0, true, "Scan"));
  return result;
}

// ---------------------------------------------------------------------------------
// Sequences

const Sequence& SequenceInput(KernelContext& ctx, std::size_t i, const char* op) {
  const Value& v = ctx.Input(i);
  if (const auto* s = std::get_if<Sequence>(&v)) return *s;
  throw ModelError(std::string(op) + ": input " + std::to_string(i) + " is not a sequence");
}

// Position (input i: an int32/int64 scalar) in [-n, n-1] (or [-n, n] when inserting) to [0, n].
std::int64_t SequencePosition(const KernelContext& ctx, std::size_t i, std::int64_t n, bool insert, const char* op) {
  const std::int64_t p = InputIntScalar(ctx, i);
  const std::int64_t hi = insert ? n : n - 1;
  if (p < -n || p > hi) throw ModelError(std::string(op) + ": position " + std::to_string(p) + " out of range");
  return p < 0 ? p + n : p;
}

std::vector<Value> SequenceConstructKernel(KernelContext& ctx) {
  Sequence s;
  for (std::size_t i = 0; i < ctx.InputCount(); ++i) {
    s.push_back(ctx.TensorInput(i));
    ExpectSameElemType(s.back(), s.front(), InputLabel(ctx, i), InputLabel(ctx, 0));
  }
  return {s};
}

std::vector<Value> SequenceEmptyKernel(KernelContext&) { return {Sequence{}}; }

std::vector<Value> SequenceAtKernel(KernelContext& ctx) {
  const Sequence& s = SequenceInput(ctx, 0, "SequenceAt");
  const auto n = static_cast<std::int64_t>(s.size());
  return {s[static_cast<std::size_t>(SequencePosition(ctx, 1, n, false, "SequenceAt"))]};
}

std::vector<Value> SequenceInsertKernel(KernelContext& ctx) {
  Sequence s = SequenceInput(ctx, 0, "SequenceInsert");
  const auto n = static_cast<std::int64_t>(s.size());
  const std::int64_t p = ctx.HasInput(2) ? SequencePosition(ctx, 2, n, true, "SequenceInsert") : n;
  if (!s.empty()) ExpectSameElemType(ctx.TensorInput(1), s.front(), InputLabel(ctx, 1), "the sequence's tensors");
  s.insert(s.begin() + p, ctx.TensorInput(1));
  return {s};
}

std::vector<Value> SequenceEraseKernel(KernelContext& ctx) {
  Sequence s = SequenceInput(ctx, 0, "SequenceErase");
  const auto n = static_cast<std::int64_t>(s.size());
  const std::int64_t p = ctx.HasInput(1) ? SequencePosition(ctx, 1, n, false, "SequenceErase") : n - 1;
  if (p < 0) throw ModelError("SequenceErase: the sequence is empty");
  s.erase(s.begin() + p);
  return {s};
}

std::vector<Value> SequenceLengthKernel(KernelContext& ctx) {
  return {Int64Scalar(static_cast<std::int64_t>(SequenceInput(ctx, 0, "SequenceLength").size()))};
}

std::vector<Value> SplitToSequenceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  const std::int64_t axis = NormalizeAxis(ctx.IntAttribute("axis").value_or(0), rank);
  const bool keepdims = BoolAttribute(ctx, "keepdims", true);
  const std::int64_t dim = x.shape()[axis];
  Sequence out;
  if (!ctx.HasInput(1)) {
    CheckHeldTensors(static_cast<std::uint64_t>(dim),
                     [&] { return "a sequence of " + std::to_string(dim) + " tensors"; });
    for (std::int64_t i = 0; i < dim; ++i) out.push_back(SliceAxis(x, axis, i, 1, keepdims));
    return {out};
  }
  const Tensor& split = ctx.TensorInput(1);
  ExpectIndexType(split, InputLabel(ctx, 1));
  ExpectRank(split, 0, 1, InputLabel(ctx, 1));
  const auto sv = split.ToInt64Vector();
  Shape sizes;
  if (split.rank() == 0) {
    const std::int64_t chunk = sv[0];
    if (chunk <= 0) throw ModelError("SplitToSequence: split must be positive");
    const std::int64_t parts = dim / chunk + (dim % chunk != 0);
    CheckHeldTensors(static_cast<std::uint64_t>(parts),
                     [&] { return "a sequence of " + std::to_string(parts) + " tensors"; });
    for (std::int64_t i = 0; i < parts; ++i) sizes.push_back(std::min(chunk, dim - i * chunk));
  } else {
    sizes = sv;
    ExpectAtLeast(sizes, 0, "split");
    std::int64_t total = 0;
    for (auto v : sizes) total = CheckedAdd(total, v, "the sum of the split sizes");
    if (total != dim) throw ModelError("SplitToSequence: split sizes do not sum to the axis length");
    CheckHeldTensors(sizes.size(), [&] { return "a sequence of " + std::to_string(sizes.size()) + " tensors"; });
  }
  std::int64_t at = 0;
  for (auto len : sizes) {
    out.push_back(SliceAxis(x, axis, at, len, true));
    at += len;
  }
  return {out};
}

std::vector<Value> ConcatFromSequenceKernel(KernelContext& ctx) {
  const Sequence& s = SequenceInput(ctx, 0, "ConcatFromSequence");
  return {ConcatTensors(s, RequiredIntAttribute(ctx, "axis"), IntAttributeIn(ctx, "new_axis", 0, 0, 1) != 0,
                        "ConcatFromSequence")};
}

// ---------------------------------------------------------------------------------
// Optionals: an optional with a value is the value itself.

std::vector<Value> OptionalKernel(KernelContext& ctx) {
  if (ctx.HasInput(0)) return {ctx.Input(0)};
  return {NoValue{}};
}

std::vector<Value> OptionalHasElementKernel(KernelContext& ctx) {
  return {BoolScalar(ctx.HasInput(0) && !std::holds_alternative<NoValue>(ctx.Input(0)))};
}

std::vector<Value> OptionalGetElementKernel(KernelContext& ctx) {
  if (!ctx.HasInput(0) || std::holds_alternative<NoValue>(ctx.Input(0)))
    throw ModelError("OptionalGetElement: the optional is empty");
  return {ctx.Input(0)};
}

}  // namespace

void RegisterControlFlowKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel("", "If", Arity{1, 1, 1, Arity::kAny}, IfKernel);
  RegisterKernel("", "Loop", Arity{2, Arity::kAny, 1, Arity::kAny}, LoopKernel);
  RegisterKernel("", "Scan", Arity{1, Arity::kAny, 1, Arity::kAny}, ScanKernel);
  RegisterKernel("", "SequenceConstruct", Arity{1, Arity::kAny}, SequenceConstructKernel);
  RegisterKernel("", "SequenceEmpty", Arity{0, 0}, SequenceEmptyKernel);
  RegisterKernel("", "SequenceAt", Arity{2, 2}, SequenceAtKernel);
  RegisterKernel("", "SequenceInsert", Arity{2, 3}, SequenceInsertKernel);
  RegisterKernel("", "SequenceErase", Arity{1, 2}, SequenceEraseKernel);
  RegisterKernel("", "SequenceLength", Arity{1, 1}, SequenceLengthKernel);
  RegisterKernel("", "SplitToSequence", Arity{1, 2}, SplitToSequenceKernel);
  RegisterKernel("", "ConcatFromSequence", Arity{1, 1}, ConcatFromSequenceKernel);
  RegisterKernel("", "Optional", Arity{0, 1}, OptionalKernel);
  RegisterKernel("", "OptionalHasElement", Arity{0, 1}, OptionalHasElementKernel);
  RegisterKernel("", "OptionalGetElement", Arity{1, 1}, OptionalGetElementKernel);
}

}  // namespace onnxopt::onnx_kernels
