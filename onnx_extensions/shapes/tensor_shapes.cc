// Shape functions of the tensor-manipulation operators: Shape/Size, Reshape family,
// Concat/Split/Slice/Pad/Gather family, Expand/Tile, Range/ConstantOfShape, TopK/ArgMax,
// Reduce*, data-dependent ops (NonZero, Compress, Unique) and a few layout ops.
//
// For small integer tensors (shape arithmetic) the values travel with the shapes: a
// Gather on a Shape output, a Concat of such values, a Slice of them... so that the
// Reshape at the end of the chain gets an exact shape.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/utils/range_count.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"
#include "onnx_extensions/shapes/shape_rules.h"

namespace onnxopt::onnx_shapes {

namespace {

using core::shapes::RegisterShapeFunction;

constexpr int kInt64 = TensorProto::INT64;
// Slice bounds at or beyond this magnitude mean "to the end": no tensor dim reaches 2^31
// (exporters write INT64_MAX, INT32_MAX or similar).
constexpr std::int64_t kHuge = std::numeric_limits<std::int32_t>::max();

SymDim Clamp(const SymDim& v, const SymDim& lo, const SymDim& hi) { return DecidableMin(DecidableMax(v, lo), hi); }

SymShape ShapeOf(const std::vector<std::int64_t>& dims) {
  std::vector<SymDim> out(dims.begin(), dims.end());
  return SymShape(std::move(out));
}

int TypeOf(const InferenceContext& ctx, std::size_t i) { return ctx.Input(i).elem_type; }

// ---------------------------------------------------------------------------------------
// Values of small static tensors, row-major.

struct StaticValue {
  std::vector<std::int64_t> dims;
  std::vector<SymDim> values;
};

std::optional<StaticValue> ValueOf(const InferenceContext& ctx, std::size_t i) {
  auto dims = StaticDims(ctx.Input(i).shape);
  if (!dims) return std::nullopt;
  auto values = InputValues(ctx, i);
  if (!values) return std::nullopt;
  std::size_t count = 1;
  for (auto d : *dims) count *= static_cast<std::size_t>(d);
  if (values->size() != count) return std::nullopt;
  return StaticValue{std::move(*dims), std::move(*values)};
}

std::size_t Product(const std::vector<std::int64_t>& dims, std::size_t begin, std::size_t end) {
  std::size_t p = 1;
  for (std::size_t k = begin; k < end && k < dims.size(); ++k) p *= static_cast<std::size_t>(dims[k]);
  return p;
}

// Elements at positions `indices` (each in [0, dims[axis])) along `axis`.
StaticValue TakeAlong(const StaticValue& v, std::size_t axis, const std::vector<std::int64_t>& indices) {
  const std::size_t outer = Product(v.dims, 0, axis);
  const std::size_t inner = Product(v.dims, axis + 1, v.dims.size());
  const auto d = static_cast<std::size_t>(v.dims[axis]);
  StaticValue out{v.dims, {}};
  out.dims[axis] = static_cast<std::int64_t>(indices.size());
  out.values.reserve(outer * indices.size() * inner);
  for (std::size_t o = 0; o < outer; ++o)
    for (std::int64_t idx : indices)
      for (std::size_t in = 0; in < inner; ++in)
        out.values.push_back(v.values[(o * d + static_cast<std::size_t>(idx)) * inner + in]);
  return out;
}

SymTensor ToTensor(int elem_type, const StaticValue& v) { return WithValues(elem_type, ShapeOf(v.dims), v.values); }

// Attaches `values` to `t` when its shape is static and small.
SymTensor AttachValues(SymTensor t, std::vector<SymDim> values) {
  return WithValues(t.elem_type, t.shape, std::move(values));
}

// ---------------------------------------------------------------------------------------
// Shape, Size

std::vector<SymTensor> InferShape(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  if (!in.HasRank()) return Outputs(ctx, SymTensor::Tensor(kInt64, SymShape::OfRank(1)));
  const auto r = static_cast<std::int64_t>(in.Rank());
  std::int64_t start = 0;
  std::int64_t end = r;
  if (ctx.OpsetVersion() >= 15) {
    auto clamp = [r](std::int64_t a) { return std::clamp<std::int64_t>(a < 0 ? a + r : a, 0, r); };
    start = clamp(ctx.IntAttribute("start").value_or(0));
    end = clamp(ctx.IntAttribute("end").value_or(r));
  }
  std::vector<SymDim> dims;
  for (std::int64_t k = start; k < end; ++k) dims.push_back(in[static_cast<std::size_t>(k)]);
  SymTensor out = SymTensor::Tensor(kInt64, SymShape({SymDim(static_cast<std::int64_t>(dims.size()))}));
  return Outputs(ctx, AttachValues(std::move(out), std::move(dims)));
}

std::vector<SymTensor> InferSize(InferenceContext& ctx) {
  SymTensor out = SymTensor::Tensor(kInt64, SymShape::Scalar());
  return Outputs(ctx, AttachValues(std::move(out), {ctx.Input(0).shape.NumElements()}));
}

// ---------------------------------------------------------------------------------------
// Reshape, Flatten, Squeeze, Unsqueeze (values survive: row-major order is unchanged)

SymTensor KeepValues(const InferenceContext& ctx, SymShape shape) {
  SymTensor out = SymTensor::Tensor(TypeOf(ctx, 0), std::move(shape));
  if (auto values = InputValues(ctx, 0)) out = AttachValues(std::move(out), *values);
  return out;
}

// Whether the symbolic entry `target[k]` of a Reshape (allowzero = 0) of `in` is the output
// dim even where it is 0 and copies in[k] instead: for each of its symbols, that symbol 0
// and every other 2 (the empty dimensions `optimize --check` tries, one at a time), the
// entry is not 0, or the copy gives 0 too, or the Reshape is invalid there (the element
// counts differ). [batch, seq, 64] of [batch*seq, 64] passes (seq = 0 leaves 0 elements
// for [2, 64, 64]); [-1, d] of [d, 1] does not: d = 0 gives [0, 1], not [1, 0]. Dims or
// entries that cannot be evaluated so (unknown ones, products beyond int64, entries below
// -1) make the answer no.
bool ZeroEntryGivesTheSameDim(const SymShape& in, const std::vector<SymDim>& target, std::size_t k) {
  if (!in.HasRank()) return false;
  if (k >= in.Rank()) return true;  // a 0 there is invalid
  std::map<std::string, std::int64_t, std::less<>> values;
  for (const std::vector<SymDim>* dims : {&in.Dims(), &target})
    for (const SymDim& d : *dims)
      for (const std::string& symbol : d.Symbols()) values.emplace(symbol, 2);
  // Whether, with `values`, target[k] may be 0 and copy another dim into a valid shape
  // (yes when something cannot be evaluated).
  auto copies_another_dim = [&]() {
    std::int64_t elements = 1;
    for (const SymDim& d : in.Dims()) {
      const std::optional<std::int64_t> v = d.Evaluate(values);
      if (!v || *v < 0 || __builtin_mul_overflow(elements, *v, &elements)) return true;
    }
    std::vector<std::int64_t> out;
    std::optional<std::size_t> infer;
    for (std::size_t j = 0; j < target.size(); ++j) {
      std::optional<std::int64_t> v = target[j].Evaluate(values);
      if (v == 0) v = j < in.Rank() ? in[j].Evaluate(values) : std::nullopt;
      if (!v || *v < -1 || (*v == -1 && infer)) return true;
      if (*v == -1) infer = j;
      out.push_back(*v);
    }
    if (out[k] == 0 || target[k].Evaluate(values) != 0) return false;  // no copy, or a copy of 0
    std::int64_t others = 1;
    for (std::size_t j = 0; j < out.size(); ++j)
      if (j != infer && __builtin_mul_overflow(others, out[j], &others)) return true;
    return infer ? others != 0 && elements % others == 0 : others == elements;
  };
  for (const std::string& zero : target[k].Symbols()) {
    values[zero] = 0;
    if (copies_another_dim()) return false;
    values[zero] = 2;
  }
  return true;
}

// The new shape of Reshape. `target` elements: 0 copies the input dim (unless
// allowzero), -1 is inferred from the element count, others are taken as they are. A
// symbolic element that may be 0 at run time copies the input dim then: it is the dim
// with allowzero, when it is the input dim at its position, or when ZeroEntryGivesTheSameDim;
// otherwise the dim is unknown (and so is a -1 beside it).
SymShape ReshapeTarget(InferenceContext& ctx, const SymShape& in, const std::vector<SymDim>& target, bool allowzero) {
  std::vector<SymDim> dims;
  std::optional<std::size_t> infer;
  bool has_unknown = false;
  for (std::size_t k = 0; k < target.size(); ++k) {
    const SymDim& e = target[k];
    auto c = e.Constant();
    if (e.IsUnknown()) {
      has_unknown = true;
      dims.push_back(SymDim::Unknown());
    } else if (c && *c == -1) {
      if (infer) RefuseNode(ctx, "shape has at most one -1", "shape " + DescribeDims(target));
      infer = k;
      dims.push_back(SymDim::Unknown());
    } else if (c && *c == 0 && !allowzero) {
      if (in.HasRank() && k < in.Rank()) {
        dims.push_back(in[k]);
      } else if (in.HasRank()) {
        RefuseNode(ctx, "shape has a 0 (copy the input dim) only at an axis of the input",
                   "shape " + DescribeDims(target) + " for an input of rank " + std::to_string(in.Rank()));
      } else {
        dims.push_back(SymDim::Unknown());
      }
    } else if (c && *c < -1) {
      RefuseNode(ctx, "shape values >= -1", "shape " + DescribeDims(target));
    } else if (c || allowzero || (in.HasRank() && k < in.Rank() && e == in[k]) ||
               ZeroEntryGivesTheSameDim(in, target, k)) {
      dims.push_back(e);
    } else {
      has_unknown = true;
      dims.push_back(SymDim::Unknown());
    }
  }
  if (infer && !has_unknown) {
    SymDim others(1);
    for (std::size_t k = 0; k < dims.size(); ++k)
      if (k != *infer) others = others * dims[k];
    const SymDim total = in.NumElements();
    if (total.IsKnown() && others.IsKnown() && !(others.Constant() == std::optional<std::int64_t>(0))) {
      if (auto t = total.Constant(); t && others.Constant() && *t % *others.Constant() != 0) {
        ctx.Diagnose("cannot reshape " + std::to_string(*t) + " elements into a shape of " +
                     std::to_string(*others.Constant()) + " elements and one inferred dim");
      } else {
        // The division is exact in a valid model.
        dims[*infer] = SymDim::ExactDiv(total, others);
      }
    }
  }
  return SymShape(std::move(dims));
}

std::vector<SymTensor> InferReshape(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  std::optional<std::vector<SymDim>> target;
  if (ctx.OpsetVersion() < 5) {
    if (auto shape = ctx.IntsAttribute("shape")) target.emplace(shape->begin(), shape->end());
  } else {
    RequireVectorInput(ctx, 1, "shape");
    target = InputValues(ctx, 1);
    if (!target) {
      // The target's length gives the rank.
      if (const std::optional<std::size_t> rank = RankFromLength(ctx, 1))
        return Outputs(ctx, SymTensor::Tensor(TypeOf(ctx, 0), SymShape::OfRank(*rank)));
      return Outputs(ctx, UnknownTensor(TypeOf(ctx, 0)));
    }
  }
  if (!target) return Outputs(ctx, UnknownTensor(TypeOf(ctx, 0)));
  const bool allowzero = ctx.OpsetVersion() >= 14 && FlagAttribute(ctx, "allowzero", false);
  if (allowzero && std::any_of(target->begin(), target->end(), [](const SymDim& d) { return d == SymDim(0); }) &&
      std::any_of(target->begin(), target->end(), [](const SymDim& d) { return d == SymDim(-1); }))
    RefuseNode(ctx, "with allowzero = 1, shape has no 0 beside a -1", "shape " + DescribeDims(*target));
  return Outputs(ctx, KeepValues(ctx, ReshapeTarget(ctx, in, *target, allowzero)));
}

std::vector<SymTensor> InferFlatten(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  if (!in.HasRank()) return Outputs(ctx, SymTensor::Tensor(TypeOf(ctx, 0), SymShape::OfRank(2)));
  const auto r = static_cast<std::int64_t>(in.Rank());
  const std::int64_t given = ctx.IntAttribute("axis").value_or(1);
  const std::int64_t axis = given < 0 ? given + r : given;
  if (axis < 0 || axis > r)
    RefuseNode(ctx, "axis is in [-r, r] for r = " + std::to_string(r), "axis " + std::to_string(given));
  const auto a = static_cast<std::size_t>(axis);
  return Outputs(ctx, KeepValues(ctx, SymShape({DimProduct(in.Dims(), 0, a), DimProduct(in.Dims(), a, in.Rank())})));
}

std::vector<SymTensor> InferSqueeze(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  if (ctx.OpsetVersion() >= 13) RequireVectorInput(ctx, 1, "axes", /*scalar_ok=*/true);
  IntListArg axes = IntsAttributeOrInput(ctx, "axes", 1, 13);
  if (axes.present && !axes.values) {
    // The number of axes gives the rank.
    if (ctx.OpsetVersion() >= 13 && in.HasRank()) {
      const std::optional<std::size_t> count = RankFromLength(ctx, 1);
      if (count && *count <= in.Rank()) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(in.Rank() - *count)));
    }
    return Outputs(ctx, UnknownTensor(type));
  }
  if (!in.HasRank()) return Outputs(ctx, UnknownTensor(type));
  std::vector<SymDim> dims;
  if (!axes.present || axes.values->empty()) {
    // Every dim of size 1 goes: the result is known only when every dim is a constant.
    for (const auto& d : in.Dims()) {
      auto c = d.Constant();
      if (!c) return Outputs(ctx, UnknownTensor(type));
      if (*c != 1) dims.push_back(d);
    }
    return Outputs(ctx, KeepValues(ctx, SymShape(std::move(dims))));
  }
  auto normalized = NormalizeAxes(ctx, *axes.values, static_cast<std::int64_t>(in.Rank()));
  if (!normalized) return Outputs(ctx, UnknownTensor(type));
  for (std::size_t k = 0; k < in.Rank(); ++k) {
    if (std::find(normalized->begin(), normalized->end(), static_cast<std::int64_t>(k)) == normalized->end()) {
      dims.push_back(in[k]);
    } else if (auto c = in[k].Constant(); c && *c != 1) {
      RefuseNode(ctx, "axes select dims of size 1",
                 "axis " + std::to_string(k) + " of size " + std::to_string(*c) + " in shape " + in.ToString());
    }
  }
  return Outputs(ctx, KeepValues(ctx, SymShape(std::move(dims))));
}

std::vector<SymTensor> InferUnsqueeze(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  if (ctx.OpsetVersion() >= 13) RequireVectorInput(ctx, 1, "axes", /*scalar_ok=*/true);
  IntListArg axes = IntsAttributeOrInput(ctx, "axes", 1, 13);
  if (!axes.Known()) {
    if (axes.present && in.HasRank())
      if (const std::optional<std::size_t> count = RankFromLength(ctx, 1))
        return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(in.Rank() + *count)));
    return Outputs(ctx, UnknownTensor(type));
  }
  if (!in.HasRank()) return Outputs(ctx, UnknownTensor(type));
  const std::size_t out_rank = in.Rank() + axes.values->size();
  RequireDistinctAxes(ctx, *axes.values, static_cast<std::int64_t>(out_rank));
  auto normalized = NormalizeAxes(ctx, *axes.values, static_cast<std::int64_t>(out_rank));
  if (!normalized) return Outputs(ctx, UnknownTensor(type));
  std::vector<SymDim> dims;
  std::size_t next = 0;
  for (std::size_t k = 0; k < out_rank; ++k) {
    if (std::find(normalized->begin(), normalized->end(), static_cast<std::int64_t>(k)) != normalized->end())
      dims.emplace_back(1);
    else
      dims.push_back(in[next++]);
  }
  return Outputs(ctx, KeepValues(ctx, SymShape(std::move(dims))));
}

// ---------------------------------------------------------------------------------------
// Transpose

std::vector<SymTensor> InferTranspose(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  if (!in.HasRank()) return Outputs(ctx, UnknownTensor(type));
  const std::size_t r = in.Rank();
  std::vector<std::int64_t> perm(r);
  if (auto p = ctx.IntsAttribute("perm")) {
    RequirePermutation(ctx, "perm", *p, r);
    perm = *p;
  } else {
    for (std::size_t k = 0; k < r; ++k) perm[k] = static_cast<std::int64_t>(r - 1 - k);
  }
  std::vector<SymDim> dims;
  for (auto p : perm) dims.push_back(in[static_cast<std::size_t>(p)]);
  SymTensor out = SymTensor::Tensor(type, SymShape(dims));
  if (auto v = ValueOf(ctx, 0)) {
    std::vector<std::int64_t> out_dims;
    for (auto p : perm) out_dims.push_back(v->dims[static_cast<std::size_t>(p)]);
    std::vector<std::size_t> in_strides(r, 1);
    for (std::size_t k = r; k-- > 1;) in_strides[k - 1] = in_strides[k] * static_cast<std::size_t>(v->dims[k]);
    std::vector<SymDim> values;
    std::vector<std::int64_t> index(r, 0);
    const std::size_t total = v->values.size();
    for (std::size_t flat = 0; flat < total; ++flat) {
      std::size_t source = 0;
      for (std::size_t k = 0; k < r; ++k) source += static_cast<std::size_t>(index[k]) * in_strides[static_cast<std::size_t>(perm[k])];
      values.push_back(v->values[source]);
      for (std::size_t k = r; k-- > 0;) {
        if (++index[k] < out_dims[k]) break;
        index[k] = 0;
      }
    }
    out = AttachValues(std::move(out), std::move(values));
  }
  return Outputs(ctx, std::move(out));
}

// ---------------------------------------------------------------------------------------
// Concat, Split

// Merges dims that a valid model requires to be equal: a constant wins over a symbol
// (the symbol must equal it), a symbol over an unknown.
SymDim MergeEqualDims(InferenceContext& ctx, const SymDim& a, const SymDim& b, std::size_t axis) {
  if (a.IsUnknown()) return b;
  if (b.IsUnknown()) return a;
  if (a == b) return a;
  if (a.IsConstant() && b.IsConstant()) {
    ctx.Diagnose("inputs differ on axis " + std::to_string(axis) + ": " + a.ToString() + " vs " + b.ToString());
    return SymDim::Unknown();
  }
  return a.IsConstant() ? a : b.IsConstant() ? b : a;
}

std::vector<SymTensor> InferConcat(InferenceContext& ctx) {
  int type = 0;
  std::optional<std::size_t> rank;
  for (std::size_t i = 0; i < ctx.InputCount(); ++i) {
    if (!type) type = TypeOf(ctx, i);
    if (!rank && ctx.Input(i).shape.HasRank()) rank = ctx.Input(i).shape.Rank();
  }
  auto axis_attr = ctx.IntAttribute("axis");
  if (!axis_attr && ctx.OpsetVersion() < 4) axis_attr = 1;
  if (!rank || !axis_attr) return Outputs(ctx, UnknownTensor(type));
  auto axis = NormalizeAxis(ctx, *axis_attr, static_cast<std::int64_t>(*rank));
  if (!axis) return Outputs(ctx, UnknownTensor(type));
  const auto a = static_cast<std::size_t>(*axis);
  std::vector<SymDim> dims(*rank, SymDim::Unknown());
  SymDim sum(0);
  for (std::size_t i = 0; i < ctx.InputCount(); ++i) {
    const SymShape& s = ctx.Input(i).shape;
    if (!s.HasRank()) {
      sum = SymDim::Unknown();
      continue;
    }
    if (s.Rank() != *rank) {
      RefuseNode(ctx, "inputs have one rank",
                 "ranks " + std::to_string(*rank) + " and " + std::to_string(s.Rank()) + " (input " + std::to_string(i) +
                     ")");
    }
    for (std::size_t k = 0; k < *rank; ++k)
      if (k != a) dims[k] = MergeEqualDims(ctx, dims[k], s[k], k);
    sum = sum + s[a];
  }
  dims[a] = sum;
  SymTensor out = SymTensor::Tensor(type, SymShape(std::move(dims)));
  // Values: blocks of each input, outer index by outer index. Inputs that differ on
  // another axis were only diagnosed above: their blocks do not line up (and reading them
  // by the first input's dims would run past the shorter ones), so no values.
  std::vector<StaticValue> parts;
  for (std::size_t i = 0; i < ctx.InputCount(); ++i) {
    auto v = ValueOf(ctx, i);
    if (!v) return Outputs(ctx, std::move(out));
    for (std::size_t k = 0; k < *rank && !parts.empty(); ++k)
      if (k != a && v->dims[k] != parts[0].dims[k]) return Outputs(ctx, std::move(out));
    parts.push_back(std::move(*v));
  }
  if (!parts.empty()) {
    const std::size_t outer = Product(parts[0].dims, 0, a);
    std::vector<SymDim> values;
    for (std::size_t o = 0; o < outer; ++o) {
      for (const auto& p : parts) {
        const std::size_t block = Product(p.dims, a, p.dims.size());
        for (std::size_t e = 0; e < block; ++e) values.push_back(p.values[o * block + e]);
      }
    }
    out = AttachValues(std::move(out), std::move(values));
  }
  return Outputs(ctx, std::move(out));
}

// The split sizes the node gives: one per output, none negative, adding up to the dim
// split when it is a constant.
void CheckSplitSizes(const InferenceContext& ctx, const std::vector<SymDim>& sizes, const SymDim& dim,
                     std::size_t outputs) {
  RequireCount(ctx, "split", sizes.size(), outputs, "one per output");
  RequireSplitSizes(ctx, sizes, dim);
}

std::vector<SymTensor> InferSplit(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  const std::size_t n = ctx.OutputCount();
  std::vector<SymTensor> unknown(n, UnknownTensor(type));
  if (!in.HasRank()) return unknown;
  const auto r = static_cast<std::int64_t>(in.Rank());
  auto axis = NormalizeAxis(ctx, ctx.IntAttribute("axis").value_or(0), r);
  if (!axis) return unknown;
  const auto a = static_cast<std::size_t>(*axis);
  for (auto& t : unknown) {
    std::vector<SymDim> dims = in.Dims();
    dims[a] = SymDim::Unknown();
    t = SymTensor::Tensor(type, SymShape(std::move(dims)));
  }
  // The sizes: attribute `split` (before 13; Split-1 also accepts an input), input 1
  // (from 13), else equal parts (num_outputs from 18, the output count before).
  std::optional<std::vector<SymDim>> sizes;
  bool given = false;
  if (ctx.OpsetVersion() < 13) {
    if (auto s = ctx.IntsAttribute("split")) {
      given = true;
      sizes.emplace(s->begin(), s->end());
    } else if (ctx.OpsetVersion() < 2 && ctx.HasInput(1)) {
      given = true;
      sizes = InputValues(ctx, 1);
    }
  } else if (ctx.HasInput(1)) {
    given = true;
    sizes = InputValues(ctx, 1);
    if (ctx.OpsetVersion() >= 18 && ctx.Attribute("num_outputs"))
      RefuseNode(ctx, "takes the split input or the num_outputs attribute, not both", "both");
  }
  const SymDim d = in[a];
  if (!given) {
    std::size_t parts = n;
    if (ctx.OpsetVersion() >= 18) {
      if (auto num = ctx.IntAttribute("num_outputs")) {
        // onnxruntime accepts a node with fewer outputs than num_outputs; the specification
        // gives the node num_outputs outputs.
        if (*num <= 0 || static_cast<std::size_t>(*num) != n)
          RefuseNode(ctx, "has num_outputs outputs", "num_outputs " + std::to_string(*num) + " and " +
                                                         std::to_string(n) + " outputs");
        parts = static_cast<std::size_t>(*num);
        // Uneven: chunks of ceil(d / n), the last one smaller.
        const SymDim chunk = SymDim::CeilDiv(d, SymDim(static_cast<std::int64_t>(parts)));
        sizes.emplace(parts, chunk);
        sizes->back() = d - chunk * SymDim(static_cast<std::int64_t>(parts - 1));
      }
    }
    if (!sizes && parts > 0) {
      auto c = d.Constant();
      if (c && *c % static_cast<std::int64_t>(parts) != 0) {
        RefuseNode(ctx, "without split sizes, splits the dim into equal parts (one per output)",
                   "a dim of " + std::to_string(*c) + " for " + std::to_string(parts) + " outputs");
      }
      sizes.emplace(parts, SymDim::ExactDiv(d, SymDim(static_cast<std::int64_t>(parts))));
    }
  }
  if (!sizes) return unknown;
  if (given) CheckSplitSizes(ctx, *sizes, d, n);
  std::vector<SymTensor> out;
  auto v = ValueOf(ctx, 0);
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<SymDim> dims = in.Dims();
    dims[a] = (*sizes)[k];
    SymTensor t = SymTensor::Tensor(type, SymShape(std::move(dims)));
    auto size = (*sizes)[k].Constant();
    if (v && size && *size >= 0 && offset + *size <= v->dims[a]) {
      std::vector<std::int64_t> idx(static_cast<std::size_t>(*size));
      std::iota(idx.begin(), idx.end(), offset);
      t = ToTensor(type, TakeAlong(*v, a, idx));
      offset += *size;
    } else {
      v.reset();
    }
    out.push_back(std::move(t));
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Slice

// Length of a slice of a dim `d` with step `t` (a non-zero constant); also the selected
// indices when everything is constant and `with_indices` (the input's value is known).
struct SliceResult {
  SymDim length;
  std::optional<std::vector<std::int64_t>> indices;
};

SliceResult SliceDim(const SymDim& d, const SymDim& start, const SymDim& end, std::int64_t t, bool with_indices) {
  auto cd = d.Constant();
  auto cs = start.Constant();
  auto ce = end.Constant();
  if (cd && cs && ce) {
    const std::int64_t dim = *cd;
    std::int64_t s = *cs < 0 ? *cs + dim : *cs;
    std::int64_t e = *ce < 0 ? *ce + dim : *ce;
    // The count of k = s, s + t, ... before e, worked out rather than listed: a dim of
    // 2^40 is a shape, not a list (unsigned: |t| may be 2^63).
    std::uint64_t span = 0;
    if (t > 0) {
      s = std::clamp<std::int64_t>(s, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
      span = e > s ? static_cast<std::uint64_t>(e - s) : 0;
    } else {
      s = std::clamp<std::int64_t>(s, 0, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
      span = s > e ? static_cast<std::uint64_t>(s - e) : 0;
    }
    const std::uint64_t stride = t > 0 ? static_cast<std::uint64_t>(t) : 0 - static_cast<std::uint64_t>(t);
    const auto length = static_cast<std::int64_t>(span == 0 ? 0 : (span - 1) / stride + 1);
    if (!with_indices) return {SymDim(length), std::nullopt};
    std::vector<std::int64_t> idx;
    idx.reserve(static_cast<std::size_t>(length));
    for (std::int64_t i = 0; i < length; ++i) idx.push_back(s + i * t);
    return {SymDim(length), std::move(idx)};
  }
  if (d.IsUnknown() || start.IsUnknown() || end.IsUnknown()) return {SymDim::Unknown(), std::nullopt};
  // A bound: a negative constant counts from the end; a symbolic bound must be provably
  // non-negative; huge constants mean "before the start" / "past the end" (dims stay
  // below 2^31). Bounds are clamped to [0, d] (forward) or [-1, d-1] (backward).
  const SymDim lo = t > 0 ? SymDim(0) : SymDim(-1);
  const SymDim hi = t > 0 ? d : d - SymDim(1);
  auto bound = [&](const SymDim& b, const SymDim& lower) -> SymDim {
    if (auto c = b.Constant()) {
      if (*c >= kHuge) return hi;
      if (*c <= -kHuge) return lower;
      return Clamp(*c < 0 ? d + b : b, lower, hi);
    }
    return ProvablyNonNegative(b) ? Clamp(b, lower, hi) : SymDim::Unknown();
  };
  // The start is clamped to [0, d] or [0, d-1]; the end to [0, d] or [-1, d-1].
  const SymDim s = bound(start, SymDim(0));
  const SymDim e = bound(end, lo);
  const SymDim diff = t > 0 ? e - s : s - e;
  const std::int64_t step = t > 0 ? t : -t;
  SymDim length = step == 1 ? diff : SymDim::CeilDiv(diff, SymDim(step));
  return {DecidableMax(length, SymDim(0)), std::nullopt};
}

std::vector<SymTensor> InferSlice(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  if (!in.HasRank()) return Outputs(ctx, UnknownTensor(type));
  const auto r = static_cast<std::int64_t>(in.Rank());
  SymTensor unknown_dims = SymTensor::Tensor(type, SymShape::OfRank(in.Rank()));
  std::optional<std::vector<SymDim>> starts;
  std::optional<std::vector<SymDim>> ends;
  IntListArg axes;
  IntListArg steps;
  if (ctx.OpsetVersion() < 10) {
    if (auto s = ctx.IntsAttribute("starts")) starts.emplace(s->begin(), s->end());
    if (auto e = ctx.IntsAttribute("ends")) ends.emplace(e->begin(), e->end());
    axes = IntsAttributeOrInput(ctx, "axes", 3, 10);
  } else {
    constexpr std::array<std::string_view, 4> kVectorInputs = {"starts", "ends", "axes", "steps"};
    for (std::size_t i = 0; i < kVectorInputs.size(); ++i) RequireVectorInput(ctx, i + 1, kVectorInputs[i]);
    starts = InputValues(ctx, 1);
    ends = InputValues(ctx, 2);
    axes = IntsAttributeOrInput(ctx, "axes", 3, 10);
    steps = IntsAttributeOrInput(ctx, "steps", 4, 10);
  }
  if ((axes.present && !axes.values) || (steps.present && !steps.values)) return Outputs(ctx, unknown_dims);
  std::vector<std::int64_t> axis_list;
  if (axes.present) {
    auto normalized = NormalizeAxes(ctx, *axes.values, r);
    if (!normalized) return Outputs(ctx, unknown_dims);
    axis_list = *normalized;
  }
  if (!starts || !ends) {
    // Only the sliced axes change.
    if (!axes.present) return Outputs(ctx, unknown_dims);
    std::vector<SymDim> dims = in.Dims();
    for (auto a : axis_list) dims[static_cast<std::size_t>(a)] = SymDim::Unknown();
    return Outputs(ctx, SymTensor::Tensor(type, SymShape(std::move(dims))));
  }
  if (!axes.present)
    for (std::size_t k = 0; k < starts->size(); ++k) axis_list.push_back(static_cast<std::int64_t>(k));
  if (starts->size() != axis_list.size() || ends->size() != axis_list.size() ||
      (steps.present && steps.values->size() != axis_list.size())) {
    RefuseNode(ctx, "starts, ends, axes and steps have one length",
               "lengths " + std::to_string(starts->size()) + ", " + std::to_string(ends->size()) + ", " +
                   (axes.present ? std::to_string(axis_list.size()) : "-") + ", " +
                   (steps.present ? std::to_string(steps.values->size()) : "-"));
  }
  if (axis_list.size() > in.Rank()) {
    RefuseNode(ctx, "starts has at most one value per input axis",
               std::to_string(axis_list.size()) + " values for rank " + std::to_string(in.Rank()));
  }
  std::vector<SymDim> dims = in.Dims();
  auto v = ValueOf(ctx, 0);
  for (std::size_t k = 0; k < axis_list.size(); ++k) {
    const auto a = static_cast<std::size_t>(axis_list[k]);
    const std::int64_t t = steps.present ? (*steps.values)[k] : 1;
    if (t == 0) RefuseNode(ctx, "steps are not 0", "steps " + FormatInts(*steps.values));
    SliceResult res = SliceDim(in[a], (*starts)[k], (*ends)[k], t, v.has_value());
    dims[a] = res.length;
    if (v && res.indices)
      *v = TakeAlong(*v, a, *res.indices);
    else
      v.reset();
  }
  if (v) return Outputs(ctx, ToTensor(type, *v));
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(std::move(dims))));
}

// ---------------------------------------------------------------------------------------
// Pad

std::vector<SymTensor> InferPad(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  if (!in.HasRank()) return Outputs(ctx, UnknownTensor(type));
  const std::size_t r = in.Rank();
  if (ctx.OpsetVersion() >= 19)
    RequireOneOf(ctx, "mode", {"constant", "reflect", "edge", "wrap"});
  else
    RequireOneOf(ctx, "mode", {"constant", "reflect", "edge"});
  std::optional<std::vector<SymDim>> pads;
  if (ctx.OpsetVersion() < 11) {
    auto p = ctx.IntsAttribute(ctx.OpsetVersion() < 2 ? "paddings" : "pads");
    if (p) pads.emplace(p->begin(), p->end());
  } else {
    pads = InputValues(ctx, 1);
  }
  std::vector<std::int64_t> axes(r);
  std::iota(axes.begin(), axes.end(), 0);
  if (ctx.OpsetVersion() >= 18 && ctx.HasInput(3)) {
    auto given = InputInts(ctx, 3);
    if (!given) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(r)));
    auto normalized = NormalizeAxes(ctx, *given, static_cast<std::int64_t>(r));
    if (!normalized) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(r)));
    axes = *normalized;
  }
  if (!pads) {
    std::vector<SymDim> dims = in.Dims();
    for (auto a : axes) dims[static_cast<std::size_t>(a)] = SymDim::Unknown();
    return Outputs(ctx, SymTensor::Tensor(type, SymShape(std::move(dims))));
  }
  RequireCount(ctx, "pads", pads->size(), 2 * axes.size(), "a begin and an end per axis padded");
  std::vector<SymDim> dims = in.Dims();
  for (std::size_t k = 0; k < axes.size(); ++k) {
    auto& d = dims[static_cast<std::size_t>(axes[k])];
    d = d + (*pads)[k] + (*pads)[k + axes.size()];
  }
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(std::move(dims))));
}

// ---------------------------------------------------------------------------------------
// Gather family, Scatter family

std::vector<SymTensor> InferGather(InferenceContext& ctx) {
  const SymShape& data = ctx.Input(0).shape;
  const SymShape& indices = ctx.Input(1).shape;
  const int type = TypeOf(ctx, 0);
  if (!data.HasRank() || !indices.HasRank()) return Outputs(ctx, UnknownTensor(type));
  const auto r = static_cast<std::int64_t>(data.Rank());
  auto axis = NormalizeAxis(ctx, ctx.IntAttribute("axis").value_or(0), r);
  if (!axis) return Outputs(ctx, UnknownTensor(type));
  const auto a = static_cast<std::size_t>(*axis);
  std::vector<SymDim> dims(data.Dims().begin(), data.Dims().begin() + static_cast<std::ptrdiff_t>(a));
  dims.insert(dims.end(), indices.Dims().begin(), indices.Dims().end());
  dims.insert(dims.end(), data.Dims().begin() + static_cast<std::ptrdiff_t>(a) + 1, data.Dims().end());
  SymTensor out = SymTensor::Tensor(type, SymShape(std::move(dims)));
  auto v = ValueOf(ctx, 0);
  auto idx = InputInts(ctx, 1);
  if (v && idx) {
    const std::int64_t d = v->dims[a];
    for (auto& i : *idx) {
      if (i < -d || i >= d) {
        ctx.Diagnose("index " + std::to_string(i) + " is out of range for a dim of " + std::to_string(d));
        return Outputs(ctx, std::move(out));
      }
      if (i < 0) i += d;
    }
    out = AttachValues(std::move(out), TakeAlong(*v, a, *idx).values);
  }
  return Outputs(ctx, std::move(out));
}

std::vector<SymTensor> InferGatherElements(InferenceContext& ctx) {
  return Outputs(ctx, SymTensor::Tensor(TypeOf(ctx, 0), ctx.Input(1).shape));
}

std::vector<SymTensor> InferGatherND(InferenceContext& ctx) {
  const SymShape& data = ctx.Input(0).shape;
  const SymShape& indices = ctx.Input(1).shape;
  const int type = TypeOf(ctx, 0);
  const auto b = static_cast<std::size_t>(ctx.OpsetVersion() >= 12 ? ctx.IntAttribute("batch_dims").value_or(0) : 0);
  if (!data.HasRank() || !indices.HasRank() || indices.Rank() == 0) return Outputs(ctx, UnknownTensor(type));
  auto last = indices.Dims().back().Constant();
  if (!last) return Outputs(ctx, UnknownTensor(type));
  if (b >= indices.Rank() || b + static_cast<std::size_t>(*last) > data.Rank()) {
    ctx.Diagnose("indices of last dim " + std::to_string(*last) + " with batch_dims " + std::to_string(b) +
                 " do not fit data of rank " + std::to_string(data.Rank()));
    return Outputs(ctx, UnknownTensor(type));
  }
  std::vector<SymDim> dims(indices.Dims().begin(), indices.Dims().end() - 1);
  for (std::size_t k = b + static_cast<std::size_t>(*last); k < data.Rank(); ++k) dims.push_back(data[k]);
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(std::move(dims))));
}

// TensorScatter (opset 24): present_cache has past_cache's type and shape; a dim of the
// cache left unknown outside `axis` is the update's (the two agree there), two different
// constants there are diagnosed.
std::vector<SymTensor> InferTensorScatter(InferenceContext& ctx) {
  RequireOneOf(ctx, "mode", {"linear", "circular"});
  const SymShape& cache = ctx.Input(0).shape;
  const SymShape& update = ctx.Input(1).shape;
  const int type = TypeOf(ctx, 0) ? TypeOf(ctx, 0) : TypeOf(ctx, 1);
  if (!cache.HasRank()) return Outputs(ctx, UnknownTensor(type));
  const std::int64_t axis_attr = ctx.IntAttribute("axis").value_or(-2);
  auto axis = NormalizeAxis(ctx, axis_attr, static_cast<std::int64_t>(cache.Rank()));
  if (!axis) return Outputs(ctx, UnknownTensor(type));
  if (*axis == 0) RefuseNode(ctx, "axis is not the batch dim 0", "axis " + std::to_string(axis_attr));
  std::vector<SymDim> dims = cache.Dims();
  if (update.HasRank()) {
    if (update.Rank() != cache.Rank())
      RefuseNode(ctx, "update has the rank of past_cache",
                 "ranks " + std::to_string(update.Rank()) + " and " + std::to_string(cache.Rank()));
    const auto a = static_cast<std::size_t>(*axis);
    // The cache's symbols stay (a constant of the update does not replace them).
    for (std::size_t k = 0; k < dims.size(); ++k)
      if (k != a && (dims[k].IsUnknown() || (dims[k].IsConstant() && update[k].IsConstant())))
        dims[k] = MergeEqualDims(ctx, dims[k], update[k], k);
    auto length = update[a].Constant(), max_length = cache[a].Constant();
    if (length && max_length && *length > *max_length)
      RefuseNode(ctx, "update is no longer than past_cache along axis",
                 "lengths " + std::to_string(*length) + " and " + std::to_string(*max_length));
  }
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(std::move(dims))));
}

// ---------------------------------------------------------------------------------------
// Expand, Tile

std::vector<SymTensor> InferExpand(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  RequireVectorInput(ctx, 1, "shape");
  auto shape = InputValues(ctx, 1);
  if (!shape) {
    const std::optional<std::size_t> length = RankFromLength(ctx, 1);
    if (in.HasRank() && length) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(std::max(in.Rank(), *length))));
    return Outputs(ctx, UnknownTensor(type));
  }
  SymShape out_shape = BroadcastShapes(ctx, {in, SymShape(*shape)});
  SymTensor out = SymTensor::Tensor(type, out_shape);
  auto v = ValueOf(ctx, 0);
  auto out_dims = StaticDims(out_shape);
  if (v && out_dims) {
    if (auto idx = BroadcastIndices(v->dims, *out_dims); idx && idx->size() <= SymTensor::kMaxValueElements) {
      std::vector<SymDim> values;
      for (auto i : *idx) values.push_back(v->values[i]);
      out = AttachValues(std::move(out), std::move(values));
    }
  }
  return Outputs(ctx, std::move(out));
}

std::vector<SymTensor> InferTile(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  if (!in.HasRank()) return Outputs(ctx, UnknownTensor(type));
  std::vector<SymDim> dims = in.Dims();
  if (ctx.OpsetVersion() < 6) {
    // Tile-1: scalar inputs `tiles` and `axis`, of the input's type (T: floating point).
    auto whole = [&](std::size_t i) -> std::optional<std::int64_t> {
      auto value = InputConstantDoubles(ctx, i);
      if (!value || value->size() != 1 || (*value)[0] != std::floor((*value)[0]) || std::abs((*value)[0]) > 1e15)
        return std::nullopt;
      return static_cast<std::int64_t>((*value)[0]);
    };
    std::optional<SymDim> tiles = InputScalar(ctx, 1);
    if (!tiles)
      if (auto count = whole(1)) tiles = SymDim(*count);
    std::optional<std::int64_t> axis = InputScalarInt(ctx, 2);
    if (!axis) axis = whole(2);
    if (!axis) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(in.Rank())));
    auto a = NormalizeAxis(ctx, *axis, static_cast<std::int64_t>(in.Rank()));
    if (!a) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(in.Rank())));
    dims[static_cast<std::size_t>(*a)] = tiles ? dims[static_cast<std::size_t>(*a)] * *tiles : SymDim::Unknown();
    return Outputs(ctx, SymTensor::Tensor(type, SymShape(std::move(dims))));
  }
  RequireVectorInput(ctx, 1, "repeats");
  auto repeats = InputValues(ctx, 1);
  if (!repeats) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(in.Rank())));
  RequireCount(ctx, "repeats", repeats->size(), in.Rank(), "one per input axis");
  for (const SymDim& repeat : *repeats)
    if (auto c = repeat.Constant(); c && *c < 0) RefuseNode(ctx, "repeats >= 0", "repeats " + DescribeDims(*repeats));
  for (std::size_t k = 0; k < dims.size(); ++k) dims[k] = dims[k] * (*repeats)[k];
  SymTensor out = SymTensor::Tensor(type, SymShape(dims));
  auto v = ValueOf(ctx, 0);
  auto out_dims = StaticDims(out.shape);
  if (v && out_dims) {
    auto count = StaticElementCount(out.shape);
    if (count && static_cast<std::size_t>(*count) <= SymTensor::kMaxValueElements) {
      const std::size_t r = out_dims->size();
      std::vector<SymDim> values;
      std::vector<std::int64_t> index(r, 0);
      for (std::int64_t flat = 0; flat < *count; ++flat) {
        std::size_t source = 0;
        for (std::size_t k = 0; k < r; ++k)
          source = source * static_cast<std::size_t>(v->dims[k]) + static_cast<std::size_t>(index[k] % v->dims[k]);
        values.push_back(v->values[source]);
        for (std::size_t k = r; k-- > 0;) {
          if (++index[k] < (*out_dims)[k]) break;
          index[k] = 0;
        }
      }
      out = AttachValues(std::move(out), std::move(values));
    }
  }
  return Outputs(ctx, std::move(out));
}

// ---------------------------------------------------------------------------------------
// Range, ConstantOfShape, EyeLike

// Number of elements of Range(start, limit, delta): max(ceil((limit - start) / delta), 0).
// For symbolic bounds (Range(0, seq, 1) from exporters), only with a constant delta and
// a difference provably non-negative (or a decidable max with 0).
std::vector<SymTensor> InferRange(InferenceContext& ctx) {
  int type = TypeOf(ctx, 0);
  auto start = InputScalar(ctx, 0);
  auto limit = InputScalar(ctx, 1);
  auto delta = InputScalar(ctx, 2);
  SymDim n;
  std::optional<std::int64_t> cdelta;
  if (delta) cdelta = delta->Constant();
  if (start && limit && cdelta && *cdelta != 0) {
    auto cs = start->Constant();
    auto cl = limit->Constant();
    if (cs && cl) {
      // A count beyond int64 stays unknown (the kernel refuses it).
      const __int128 count = utils::RangeCount(*cs, *cl, *cdelta);
      if (count <= INT64_MAX) n = SymDim(static_cast<std::int64_t>(count));
    } else {
      const SymDim diff = *cdelta > 0 ? *limit - *start : *start - *limit;
      const std::int64_t step = *cdelta > 0 ? *cdelta : -*cdelta;
      SymDim q = step == 1 ? diff : SymDim::CeilDiv(diff, SymDim(step));
      n = DecidableMax(q, SymDim(0));
    }
  } else if (cdelta && *cdelta == 0) {
    RefuseNode(ctx, "delta is not 0", "delta 0");
  } else if (!start && !limit && !delta) {
    // Floating-point constants.
    auto s = InputConstantDoubles(ctx, 0);
    auto l = InputConstantDoubles(ctx, 1);
    auto d = InputConstantDoubles(ctx, 2);
    if (s && l && d && s->size() == 1 && l->size() == 1 && d->size() == 1 && (*d)[0] != 0) {
      const double count = std::ceil(((*l)[0] - (*s)[0]) / (*d)[0]);
      // A negative count (down to -1e30 and beyond) is an empty range: not converted.
      if (std::isfinite(count) && count < 1e15) n = SymDim(count > 0 ? static_cast<std::int64_t>(count) : 0);
    }
  }
  SymTensor out = SymTensor::Tensor(type, SymShape({n}));
  if (auto count = n.Constant(); count && start && cdelta && IsIntegerType(type)) {
    std::vector<SymDim> values;
    // k * delta may overflow int64 where start + k * delta does not (start = INT64_MIN,
    // delta = 2^62): the offsets are checked in 128 bits, and values are kept only when
    // every one fits.
    bool fits = true;
    for (std::int64_t k = 0; k < *count && values.size() <= SymTensor::kMaxValueElements && fits; ++k) {
      const __int128 offset = static_cast<__int128>(k) * *cdelta;
      fits = offset >= INT64_MIN && offset <= INT64_MAX;
      if (fits) values.push_back(*start + SymDim(static_cast<std::int64_t>(offset)));
    }
    if (fits) out = AttachValues(std::move(out), std::move(values));
  }
  return Outputs(ctx, std::move(out));
}

std::vector<SymTensor> InferConstantOfShape(InferenceContext& ctx) {
  int type = TensorProto::FLOAT;
  std::optional<SymDim> fill = SymDim(0);
  if (const AttributeProto* value = ctx.Attribute("value"); value && value->has_t()) {
    SymTensor t = SymTensor::FromTensor(value->t());
    type = t.elem_type;
    fill = t.value && t.value->size() == 1 ? std::optional<SymDim>((*t.value)[0]) : std::nullopt;
  }
  auto shape = InputValues(ctx, 0);
  if (!shape) {
    if (const std::optional<std::size_t> rank = RankFromLength(ctx, 0))
      return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(*rank)));
    return Outputs(ctx, UnknownTensor(type));
  }
  SymTensor out = SymTensor::Tensor(type, SymShape(*shape));
  if (fill && IsValueType(type)) {
    auto count = StaticElementCount(out.shape);
    if (count && static_cast<std::size_t>(*count) <= SymTensor::kMaxValueElements)
      out = AttachValues(std::move(out), std::vector<SymDim>(static_cast<std::size_t>(*count), *fill));
  }
  return Outputs(ctx, std::move(out));
}

std::vector<SymTensor> InferEyeLike(InferenceContext& ctx) {
  auto dtype = ctx.IntAttribute("dtype");
  return Outputs(ctx, SymTensor::Tensor(dtype ? static_cast<int>(*dtype) : TypeOf(ctx, 0), ctx.Input(0).shape));
}

// ---------------------------------------------------------------------------------------
// OneHot, TopK, ArgMax/ArgMin, Reduce*

std::vector<SymTensor> InferOneHot(InferenceContext& ctx) {
  const SymShape& indices = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 2);
  if (!indices.HasRank()) return Outputs(ctx, UnknownTensor(type));
  const std::size_t r = indices.Rank() + 1;
  auto axis = NormalizeAxis(ctx, ctx.IntAttribute("axis").value_or(-1), static_cast<std::int64_t>(r));
  if (!axis) return Outputs(ctx, UnknownTensor(type));
  SymDim depth;
  if (auto d = InputScalar(ctx, 1)) {
    depth = *d;
  } else if (auto f = InputConstantDoubles(ctx, 1); f && f->size() == 1 && std::isfinite((*f)[0]) &&
                                                     std::abs((*f)[0]) < 1e15) {
    depth = SymDim(static_cast<std::int64_t>((*f)[0]));  // float depths are cast to int64
  }
  std::vector<SymDim> dims = indices.Dims();
  dims.insert(dims.begin() + *axis, depth);
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(std::move(dims))));
}

std::vector<SymTensor> InferTopK(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  if (!in.HasRank()) return Outputs(ctx, {UnknownTensor(type), UnknownTensor(kInt64)});
  auto axis = NormalizeAxis(ctx, ctx.IntAttribute("axis").value_or(-1), static_cast<std::int64_t>(in.Rank()));
  if (!axis) return Outputs(ctx, {UnknownTensor(type), UnknownTensor(kInt64)});
  SymDim k;
  if (ctx.OpsetVersion() < 10) {
    if (auto attr = ctx.IntAttribute("k")) k = SymDim(*attr);
  } else if (auto v = InputScalar(ctx, 1)) {
    k = *v;
  }
  if (auto c = k.Constant(); c && *c < 0) RefuseNode(ctx, "k >= 0", "k " + std::to_string(*c));
  std::vector<SymDim> dims = in.Dims();
  dims[static_cast<std::size_t>(*axis)] = k;
  return Outputs(ctx, {SymTensor::Tensor(type, SymShape(dims)), SymTensor::Tensor(kInt64, SymShape(dims))});
}

std::vector<SymTensor> InferArgMinMax(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const bool keepdims = FlagAttribute(ctx, "keepdims", true);
  FlagAttribute(ctx, "select_last_index", false);  // refused unless 0 or 1, though no dim depends on it
  if (!in.HasRank()) return Outputs(ctx, UnknownTensor(kInt64));
  auto axis = NormalizeAxis(ctx, ctx.IntAttribute("axis").value_or(0), static_cast<std::int64_t>(in.Rank()));
  if (!axis) return Outputs(ctx, UnknownTensor(kInt64));
  std::vector<SymDim> dims = in.Dims();
  if (keepdims)
    dims[static_cast<std::size_t>(*axis)] = SymDim(1);
  else
    dims.erase(dims.begin() + *axis);
  return Outputs(ctx, SymTensor::Tensor(kInt64, SymShape(std::move(dims))));
}

enum class ReduceKind { kOther, kSum, kProd, kMax, kMin };

// Reduce*: `axes` is an attribute before `axes_input_since` (13 for ReduceSum, 18 for the
// others), an optional input after, with noop_with_empty_axes.
std::vector<SymTensor> InferReduce(InferenceContext& ctx, std::int64_t axes_input_since, ReduceKind kind) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  const bool keepdims = FlagAttribute(ctx, "keepdims", true);
  IntListArg axes = IntsAttributeOrInput(ctx, "axes", 1, axes_input_since);
  const bool noop = ctx.OpsetVersion() >= axes_input_since && FlagAttribute(ctx, "noop_with_empty_axes", false);
  if (!in.HasRank()) return Outputs(ctx, UnknownTensor(type));
  const std::size_t r = in.Rank();
  if (axes.present && !axes.values) {
    if (keepdims) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(r)));
    const std::optional<std::size_t> count = RankFromLength(ctx, 1);
    if (count && *count > 0 && *count <= r) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(r - *count)));
    return Outputs(ctx, UnknownTensor(type));
  }
  std::vector<std::int64_t> reduced;
  if (!axes.present || axes.values->empty()) {
    if (noop) return Outputs(ctx, ctx.Input(0));
    reduced.resize(r);
    std::iota(reduced.begin(), reduced.end(), 0);
  } else {
    auto normalized = NormalizeAxes(ctx, *axes.values, static_cast<std::int64_t>(r));
    if (!normalized) return Outputs(ctx, UnknownTensor(type));
    reduced = *normalized;
  }
  std::vector<bool> is_reduced(r, false);
  for (auto a : reduced) is_reduced[static_cast<std::size_t>(a)] = true;
  std::vector<SymDim> dims;
  for (std::size_t k = 0; k < r; ++k) {
    if (!is_reduced[k])
      dims.push_back(in[k]);
    else if (keepdims)
      dims.emplace_back(1);
  }
  SymTensor out = SymTensor::Tensor(type, SymShape(std::move(dims)));
  if (kind == ReduceKind::kOther) return Outputs(ctx, std::move(out));
  auto v = ValueOf(ctx, 0);
  if (!v) return Outputs(ctx, std::move(out));
  // Each input element folds into the output element of its kept coordinates.
  std::vector<std::optional<SymDim>> acc;
  std::size_t out_count = 1;
  for (std::size_t k = 0; k < r; ++k)
    if (!is_reduced[k]) out_count *= static_cast<std::size_t>(v->dims[k]);
  if (out_count > SymTensor::kMaxValueElements) return Outputs(ctx, std::move(out));
  acc.resize(out_count);
  std::vector<std::int64_t> index(r, 0);
  for (const auto& element : v->values) {
    std::size_t target = 0;
    for (std::size_t k = 0; k < r; ++k)
      if (!is_reduced[k]) target = target * static_cast<std::size_t>(v->dims[k]) + static_cast<std::size_t>(index[k]);
    auto& a = acc[target];
    if (!a) {
      a = element;
    } else {
      switch (kind) {
        case ReduceKind::kSum: a = *a + element; break;
        case ReduceKind::kProd: a = *a * element; break;
        case ReduceKind::kMax: a = DecidableMax(*a, element); break;
        case ReduceKind::kMin: a = DecidableMin(*a, element); break;
        case ReduceKind::kOther: break;
      }
    }
    for (std::size_t k = r; k-- > 0;) {
      if (++index[k] < v->dims[k]) break;
      index[k] = 0;
    }
  }
  std::vector<SymDim> values;
  for (auto& a : acc) {
    if (!a) {
      // Reducing an empty axis: the identity of the sum and product only.
      if (kind == ReduceKind::kSum) a = SymDim(0);
      else if (kind == ReduceKind::kProd) a = SymDim(1);
      else return Outputs(ctx, std::move(out));
    }
    values.push_back(*a);
  }
  return Outputs(ctx, AttachValues(std::move(out), std::move(values)));
}

// ---------------------------------------------------------------------------------------
// Data-dependent sizes: NonZero, Compress, Unique

std::vector<SymTensor> InferNonZero(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  SymDim rank = in.HasRank() ? SymDim(static_cast<std::int64_t>(in.Rank())) : SymDim::Unknown();
  return Outputs(ctx, SymTensor::Tensor(kInt64, SymShape({rank, ctx.FreshSymbol()})));
}

std::vector<SymTensor> InferCompress(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  // The count of true conditions when they are constants, else a fresh symbol.
  SymDim selected;
  if (auto cond = InputValues(ctx, 1)) {
    std::int64_t count = 0;
    for (const auto& c : *cond) {
      auto b = c.Constant();
      if (!b) {
        count = -1;
        break;
      }
      count += *b != 0 ? 1 : 0;
    }
    if (count >= 0) selected = SymDim(count);
  }
  if (selected.IsUnknown()) selected = ctx.FreshSymbol();
  auto axis = ctx.IntAttribute("axis");
  if (!axis) return Outputs(ctx, SymTensor::Tensor(type, SymShape({selected})));
  if (!in.HasRank()) return Outputs(ctx, UnknownTensor(type));
  auto a = NormalizeAxis(ctx, *axis, static_cast<std::int64_t>(in.Rank()));
  if (!a) return Outputs(ctx, UnknownTensor(type));
  std::vector<SymDim> dims = in.Dims();
  dims[static_cast<std::size_t>(*a)] = selected;
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(std::move(dims))));
}

std::vector<SymTensor> InferUnique(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  const SymDim unique = ctx.FreshSymbol();
  const SymTensor indices = SymTensor::Tensor(kInt64, SymShape({unique}));
  auto axis = ctx.IntAttribute("axis");
  if (!axis)
    return Outputs(ctx, {SymTensor::Tensor(type, SymShape({unique})), indices,
                         SymTensor::Tensor(kInt64, SymShape({in.HasRank() ? in.NumElements() : SymDim::Unknown()})),
                         indices});
  if (!in.HasRank()) return Outputs(ctx, {UnknownTensor(type), indices, SymTensor::Tensor(kInt64, SymShape::OfRank(1)), indices});
  auto a = NormalizeAxis(ctx, *axis, static_cast<std::int64_t>(in.Rank()));
  if (!a) return Outputs(ctx, {UnknownTensor(type), indices, SymTensor::Tensor(kInt64, SymShape::OfRank(1)), indices});
  std::vector<SymDim> dims = in.Dims();
  const SymDim along = dims[static_cast<std::size_t>(*a)];
  dims[static_cast<std::size_t>(*a)] = unique;
  return Outputs(ctx, {SymTensor::Tensor(type, SymShape(std::move(dims))), indices,
                       SymTensor::Tensor(kInt64, SymShape({along})), indices});
}

// ---------------------------------------------------------------------------------------
// Layout: DepthToSpace, SpaceToDepth, Det

std::vector<SymTensor> InferDepthSpace(InferenceContext& ctx, bool to_space) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  auto blocksize = ctx.IntAttribute("blocksize");
  if (blocksize) RequireAtLeast(ctx, "blocksize", {*blocksize}, 1);
  RequireOneOf(ctx, "mode", {"DCR", "CRD"});
  if (!in.HasRank()) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(4)));
  if (in.Rank() != 4 || !blocksize || *blocksize <= 0) {
    ctx.Diagnose("expects a 4-D input and a positive blocksize");
    return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(4)));
  }
  const SymDim b(*blocksize);
  const SymDim bb = b * b;
  // The divisions are exact in a valid model.
  if (to_space)
    return Outputs(ctx, SymTensor::Tensor(type, SymShape({in[0], SymDim::ExactDiv(in[1], bb), in[2] * b, in[3] * b})));
  return Outputs(ctx, SymTensor::Tensor(type, SymShape({in[0], in[1] * bb, SymDim::ExactDiv(in[2], b), SymDim::ExactDiv(in[3], b)})));
}

std::vector<SymTensor> InferDet(InferenceContext& ctx) {
  const SymShape& in = ctx.Input(0).shape;
  const int type = TypeOf(ctx, 0);
  if (!in.HasRank()) return Outputs(ctx, UnknownTensor(type));
  if (in.Rank() < 2) {
    ctx.Diagnose("expects an input of rank 2 or more");
    return Outputs(ctx, UnknownTensor(type));
  }
  std::vector<SymDim> dims(in.Dims().begin(), in.Dims().end() - 2);
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(std::move(dims))));
}

void Register(std::string_view name, ShapeFunction fn) { RegisterShapeFunction("", name, std::move(fn)); }

}  // namespace

void RegisterTensorShapes() {
  Register("Shape", InferShape);
  Register("Size", InferSize);
  Register("Reshape", InferReshape);
  Register("Flatten", InferFlatten);
  Register("Squeeze", InferSqueeze);
  Register("Unsqueeze", InferUnsqueeze);
  Register("Transpose", InferTranspose);
  Register("Concat", InferConcat);
  Register("Split", InferSplit);
  Register("Slice", InferSlice);
  Register("Pad", InferPad);
  Register("Gather", InferGather);
  Register("GatherElements", InferGatherElements);
  Register("GatherND", InferGatherND);
  for (const char* name : {"ScatterND", "ScatterElements", "Scatter", "Trilu", "CumSum", "CumProd", "ReverseSequence"})
    Register(name, SameAsInput(0));
  Register("TensorScatter", InferTensorScatter);
  Register("Expand", InferExpand);
  Register("Tile", InferTile);
  Register("Range", InferRange);
  Register("ConstantOfShape", InferConstantOfShape);
  Register("EyeLike", InferEyeLike);
  Register("OneHot", InferOneHot);
  Register("TopK", InferTopK);
  Register("ArgMax", InferArgMinMax);
  Register("ArgMin", InferArgMinMax);
  Register("ReduceSum", [](InferenceContext& ctx) { return InferReduce(ctx, 13, ReduceKind::kSum); });
  Register("ReduceProd", [](InferenceContext& ctx) { return InferReduce(ctx, 18, ReduceKind::kProd); });
  Register("ReduceMax", [](InferenceContext& ctx) { return InferReduce(ctx, 18, ReduceKind::kMax); });
  Register("ReduceMin", [](InferenceContext& ctx) { return InferReduce(ctx, 18, ReduceKind::kMin); });
  for (const char* name : {"ReduceMean", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
    Register(name, [](InferenceContext& ctx) { return InferReduce(ctx, 18, ReduceKind::kOther); });
  Register("NonZero", InferNonZero);
  Register("Compress", InferCompress);
  Register("Unique", InferUnique);
  Register("DepthToSpace", [](InferenceContext& ctx) { return InferDepthSpace(ctx, true); });
  Register("SpaceToDepth", [](InferenceContext& ctx) { return InferDepthSpace(ctx, false); });
  Register("Det", InferDet);
}

}  // namespace onnxopt::onnx_shapes
