// Shape functions of the element-wise operators: unary ops, broadcasting binary and
// variadic ops, Where, Cast/CastLike, Clip, Dropout. For small integer tensors (shape
// arithmetic) the values are propagated element by element, exactly or not at all.

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "onnx_core/ir/tensor_data.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"
#include "onnx_extensions/shapes/shape_rules.h"

namespace onnxopt::onnx_shapes {

namespace {

using core::shapes::RegisterShapeFunction;

constexpr int kBool = TensorProto::BOOL;

// ---------------------------------------------------------------------------------------
// Comparisons of symbolic values (see ProvablyNonNegative for what is decidable).

// a < b when decidable.
std::optional<bool> LessThan(const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return std::nullopt;
  if (a == b) return false;
  if (ProvablyNonNegative(a - b)) return false;
  if (ProvablyPositive(b - a)) return true;
  return std::nullopt;
}

std::optional<bool> EqualTo(const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return std::nullopt;
  if (a == b) return true;
  if (SymDim::ProvablyDifferent(a, b)) return false;
  return std::nullopt;
}

SymDim FromBool(std::optional<bool> b) { return b ? SymDim(*b ? 1 : 0) : SymDim::Unknown(); }

// A constant result that does not fit the element type would wrap: leave it unknown.
SymDim FitType(const SymDim& v, int elem_type) {
  auto c = v.Constant();
  if (!c) return v;
  std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  switch (elem_type) {
    case TensorProto::INT8: lo = -128; hi = 127; break;
    case TensorProto::UINT8: lo = 0; hi = 255; break;
    case TensorProto::INT16: lo = -32768; hi = 32767; break;
    case TensorProto::UINT16: lo = 0; hi = 65535; break;
    case TensorProto::INT32: lo = std::numeric_limits<std::int32_t>::min(); hi = std::numeric_limits<std::int32_t>::max(); break;
    case TensorProto::UINT32: lo = 0; hi = std::numeric_limits<std::uint32_t>::max(); break;
    case TensorProto::UINT64: lo = 0; break;
    case TensorProto::BOOL: lo = 0; hi = 1; break;
    default: break;
  }
  return (*c < lo || *c > hi) ? SymDim::Unknown() : v;
}

// ONNX Div on integers truncates toward zero. Exact for constants; for symbolic values
// only when the division is exact, or the numerator is provably non-negative and the
// divisor provably positive (then truncation is floor division).
SymDim TruncDiv(const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return SymDim::Unknown();
  auto ca = a.Constant();
  auto cb = b.Constant();
  if (ca && cb) {
    if (*cb == 0 || (*ca == std::numeric_limits<std::int64_t>::min() && *cb == -1)) return SymDim::Unknown();
    return SymDim(*ca / *cb);
  }
  if (cb && *cb == 0) return SymDim::Unknown();
  if (SymDim::Mod(a, b).Constant() == std::optional<std::int64_t>(0)) return SymDim::ExactDiv(a, b);
  if (ProvablyNonNegative(a) && ProvablyPositive(b)) return SymDim::FloorDiv(a, b);
  return SymDim::Unknown();
}

// ONNX Mod: fmod = 0 takes the divisor's sign (Python), fmod = 1 the dividend's (C).
SymDim OnnxMod(const SymDim& a, const SymDim& b, bool fmod) {
  if (a.IsUnknown() || b.IsUnknown()) return SymDim::Unknown();
  auto ca = a.Constant();
  auto cb = b.Constant();
  if (ca && cb) {
    if (*cb == 0 || (*ca == std::numeric_limits<std::int64_t>::min() && *cb == -1)) return SymDim::Unknown();
    std::int64_t r = *ca % *cb;
    if (!fmod && r != 0 && ((r < 0) != (*cb < 0))) r += *cb;
    return SymDim(r);
  }
  if (cb && *cb == 0) return SymDim::Unknown();
  if (!fmod || (ProvablyNonNegative(a) && ProvablyPositive(b))) return SymDim::Mod(a, b);
  return SymDim::Unknown();
}

// ---------------------------------------------------------------------------------------
// Broadcasting ops

// Combines the elements of all inputs (one per input) into the output element.
using ValueFold = std::function<SymDim(const std::vector<SymDim>&)>;

ValueFold Binary(std::function<SymDim(const SymDim&, const SymDim&)> op) {
  return [op = std::move(op)](const std::vector<SymDim>& xs) {
    SymDim acc = xs[0];
    for (std::size_t k = 1; k < xs.size(); ++k) acc = op(acc, xs[k]);
    return acc;
  };
}

// The output element type: a fixed type, or the type of the first input in `from`
// whose type is known.
struct OutType {
  int fixed = 0;
  std::vector<std::size_t> from = {0};
  int Resolve(const InferenceContext& ctx) const {
    if (fixed) return fixed;
    for (std::size_t i : from)
      if (ctx.Input(i).HasElemType()) return ctx.Input(i).elem_type;
    return 0;
  }
};

// Computes the output values when every input has a value and the shapes are static.
std::optional<std::vector<SymDim>> FoldValues(const InferenceContext& ctx, const std::vector<std::size_t>& inputs,
                                             const SymShape& out_shape, const ValueFold& fold, int out_type) {
  auto out_dims = StaticDims(out_shape);
  auto count = StaticElementCount(out_shape);
  if (!out_dims || !count || static_cast<std::size_t>(*count) > SymTensor::kMaxValueElements) return std::nullopt;
  if (out_type != 0 && !IsValueType(out_type)) return std::nullopt;
  std::vector<std::vector<SymDim>> values;
  std::vector<std::vector<std::size_t>> indices;
  for (std::size_t i : inputs) {
    auto v = InputValues(ctx, i);
    auto dims = StaticDims(ctx.Input(i).shape);
    if (!v || !dims) return std::nullopt;
    auto idx = BroadcastIndices(*dims, *out_dims);
    if (!idx) return std::nullopt;
    for (std::size_t k : *idx)
      if (k >= v->size()) return std::nullopt;
    values.push_back(std::move(*v));
    indices.push_back(std::move(*idx));
  }
  std::vector<SymDim> out;
  out.reserve(static_cast<std::size_t>(*count));
  std::vector<SymDim> args(inputs.size());
  for (std::size_t e = 0; e < static_cast<std::size_t>(*count); ++e) {
    for (std::size_t k = 0; k < inputs.size(); ++k) args[k] = values[k][indices[k][e]];
    out.push_back(FitType(fold(args), out_type));
  }
  return out;
}

// The legacy rule (before opset 7), on what is known: without `broadcast`, A and B have one
// shape; with it, B is one element or a run of A's dims starting at `axis` (ending with A's
// last dim without it). The kernel refuses what does not fit (LegacyOperand).
void CheckLegacyBroadcast(const InferenceContext& ctx, const SymShape& a, const SymShape& b) {
  if (!a.HasRank() || !b.HasRank()) return;
  const auto rank_a = static_cast<std::int64_t>(a.Rank()), rank_b = static_cast<std::int64_t>(b.Rank());
  if (!FlagAttribute(ctx, "broadcast", false)) {
    bool differ = rank_a != rank_b;
    for (std::int64_t i = 0; !differ && i < rank_a; ++i) differ = SymDim::ProvablyDifferent(a[i], b[i]);
    if (differ) RefuseNode(ctx, "takes inputs of one shape without broadcast=1", a.ToString() + " and " + b.ToString());
    return;
  }
  if (StaticElementCount(b) == std::optional<std::int64_t>(1) && rank_b <= rank_a) return;
  const std::optional<std::int64_t> given = ctx.IntAttribute("axis");
  const std::int64_t axis = !given ? rank_a - rank_b : *given < 0 ? *given + rank_a : *given;
  bool fits = axis >= 0 && axis <= rank_a - rank_b;
  for (std::int64_t i = 0; fits && i < rank_b; ++i) fits = !SymDim::ProvablyDifferent(b[i], a[axis + i]);
  if (!fits)
    RefuseNode(ctx, "with broadcast=1, takes a B whose dims are a run of A's at axis",
               "B " + b.ToString() + " and A " + a.ToString() + " at axis " + std::to_string(axis));
}

struct BroadcastOp {
  OutType type;
  ValueFold fold;             // null: no value propagation
  std::int64_t legacy_before = 0;  // opsets before this one use the `broadcast`/`axis` attributes
};

std::vector<SymTensor> InferBroadcast(InferenceContext& ctx, const BroadcastOp& op) {
  std::vector<std::size_t> inputs;
  for (std::size_t i = 0; i < ctx.InputCount(); ++i)
    if (ctx.HasInput(i)) inputs.push_back(i);
  const int out_type = op.type.Resolve(ctx);
  if (inputs.empty()) return Outputs(ctx, UnknownTensor(out_type));
  SymShape shape;
  bool numpy = true;
  if (ctx.OpsetVersion() < op.legacy_before) {
    // Legacy broadcasting: B is broadcast into A (or has A's shape), the output has A's
    // shape; B aligned at `axis` does not follow numpy rules for the values.
    shape = ctx.Input(0).shape;
    if (inputs.size() == 2) CheckLegacyBroadcast(ctx, shape, ctx.Input(1).shape);
    if (FlagAttribute(ctx, "broadcast", false) && inputs.size() == 2) {
      const SymShape& b = ctx.Input(1).shape;
      numpy = StaticElementCount(b) == std::optional<std::int64_t>(1) || (b.HasRank() && b == shape);
    }
  } else {
    std::vector<SymShape> shapes;
    for (std::size_t i : inputs) shapes.push_back(ctx.Input(i).shape);
    shape = BroadcastShapes(ctx, shapes);
  }
  SymTensor out = SymTensor::Tensor(out_type, shape);
  if (op.fold && numpy) {
    if (auto values = FoldValues(ctx, inputs, shape, op.fold, out_type)) out = WithValues(out_type, shape, *values);
  }
  return Outputs(ctx, std::move(out));
}

void RegisterBroadcast(std::string_view name, BroadcastOp op) {
  RegisterShapeFunction("", name, [op = std::move(op)](InferenceContext& ctx) { return InferBroadcast(ctx, op); });
}

// ---------------------------------------------------------------------------------------
// Unary ops

using UnaryValue = std::function<SymDim(const SymDim&)>;

// Output 0: the input's shape, the input's type (or `fixed_type`), the values mapped by
// `value` when given.
ShapeFunction Unary(int fixed_type = 0, UnaryValue value = nullptr) {
  return [fixed_type, value = std::move(value)](InferenceContext& ctx) {
    const SymTensor& in = ctx.Input(0);
    SymTensor out = TypeAndShape(in);
    if (in.kind == SymTensor::Kind::kUnknown) out = SymTensor::Tensor(0, SymShape::UnknownRank());
    if (fixed_type) out.elem_type = fixed_type;
    if (value && IsValueType(out.elem_type)) {
      if (auto values = InputValues(ctx, 0)) {
        std::vector<SymDim> mapped;
        for (const auto& v : *values) mapped.push_back(FitType(v.IsUnknown() ? v : value(v), out.elem_type));
        out = WithValues(out.elem_type, out.shape, std::move(mapped));
      }
    }
    return Outputs(ctx, std::move(out));
  };
}

SymDim AbsValue(const SymDim& a) {
  if (auto c = a.Constant()) return *c == std::numeric_limits<std::int64_t>::min() ? SymDim::Unknown() : SymDim(*c < 0 ? -*c : *c);
  if (ProvablyNonNegative(a)) return a;
  if (ProvablyNonNegative(-a)) return -a;
  return SymDim::Unknown();
}

SymDim SignValue(const SymDim& a) {
  if (auto c = a.Constant()) return SymDim(*c > 0 ? 1 : (*c < 0 ? -1 : 0));
  if (ProvablyPositive(a)) return SymDim(1);
  return SymDim::Unknown();
}

// ---------------------------------------------------------------------------------------
// Cast

std::optional<int> CastTarget(const InferenceContext& ctx) {
  if (ctx.OpsetVersion() < 6) {
    auto name = ctx.StringAttribute("to");
    if (!name) return std::nullopt;
    TensorProto::DataType type;
    if (!TensorProto::DataType_Parse(*name, &type)) return std::nullopt;
    return static_cast<int>(type);
  }
  auto to = ctx.IntAttribute("to");
  if (!to) return std::nullopt;
  return static_cast<int>(*to);
}

// The value of an element cast from an integer (or bool) type to `to`.
SymDim CastValue(const SymDim& v, int to) {
  if (v.IsUnknown()) return v;
  if (to == kBool) {
    if (auto c = v.Constant()) return SymDim(*c != 0 ? 1 : 0);
    return SymDim::ProvablyDifferent(v, SymDim(0)) ? SymDim(1) : SymDim::Unknown();
  }
  if (auto c = v.Constant()) {
    // Integer narrowing wraps (two's complement).
    switch (to) {
      case TensorProto::INT8: return SymDim(static_cast<std::int64_t>(static_cast<std::int8_t>(*c)));
      case TensorProto::UINT8: return SymDim(static_cast<std::int64_t>(static_cast<std::uint8_t>(*c)));
      case TensorProto::INT16: return SymDim(static_cast<std::int64_t>(static_cast<std::int16_t>(*c)));
      case TensorProto::UINT16: return SymDim(static_cast<std::int64_t>(static_cast<std::uint16_t>(*c)));
      case TensorProto::INT32: return SymDim(static_cast<std::int64_t>(static_cast<std::int32_t>(*c)));
      case TensorProto::UINT32: return SymDim(static_cast<std::int64_t>(static_cast<std::uint32_t>(*c)));
      case TensorProto::UINT64: return *c < 0 ? SymDim::Unknown() : v;
      default: return v;
    }
  }
  // A symbolic value stands for a size: it fits 32 bits (no tensor dim reaches 2^31
  // in a model whose shape arithmetic is done in int32), not narrower types.
  switch (to) {
    case TensorProto::INT32: case TensorProto::UINT32: case TensorProto::INT64: case TensorProto::UINT64:
      return v;
    default:
      return SymDim::Unknown();
  }
}

SymTensor CastTensor(const InferenceContext& ctx, int to) {
  const SymTensor& in = ctx.Input(0);
  SymTensor out = SymTensor::Tensor(to, in.shape);
  if (IsValueType(to) && (in.elem_type == 0 || IsValueType(in.elem_type))) {
    if (auto values = InputValues(ctx, 0)) {
      std::vector<SymDim> cast;
      for (const auto& v : *values) cast.push_back(CastValue(v, to));
      out = WithValues(to, in.shape, std::move(cast));
    }
  }
  return out;
}

std::vector<SymTensor> InferCast(InferenceContext& ctx) {
  auto to = CastTarget(ctx);
  if (!to) return Outputs(ctx, SymTensor::Tensor(0, ctx.Input(0).shape));
  return Outputs(ctx, CastTensor(ctx, *to));
}

std::vector<SymTensor> InferCastLike(InferenceContext& ctx) {
  const int to = ctx.Input(1).elem_type;
  if (to == 0) return Outputs(ctx, SymTensor::Tensor(0, ctx.Input(0).shape));
  return Outputs(ctx, CastTensor(ctx, to));
}

// BitCast (opset 26): the input's shape, the type `to`, whose element width must be the
// input's.
std::vector<SymTensor> InferBitCast(InferenceContext& ctx) {
  const SymTensor& in = ctx.Input(0);
  const std::optional<std::int64_t> to = ctx.IntAttribute("to");
  if (!to || *to <= 0 || *to > std::numeric_limits<int>::max()) return Outputs(ctx, SymTensor::Tensor(0, in.shape));
  const int target = static_cast<int>(*to);
  const std::optional<int> from_bits = core::ir::ElementBits(in.elem_type);
  const std::optional<int> to_bits = core::ir::ElementBits(target);
  if (from_bits && to_bits && *from_bits != *to_bits)
    RefuseNode(ctx, "converts between element types of the same width",
               core::ir::ElementTypeName(in.elem_type) + " (" + std::to_string(*from_bits) + " bits) to " +
                   core::ir::ElementTypeName(target) + " (" + std::to_string(*to_bits) + " bits)");
  return Outputs(ctx, SymTensor::Tensor(target, in.shape));
}

// ---------------------------------------------------------------------------------------
// Others

// Clip: bounds are attributes before 11, optional inputs 1 and 2 from 11 on.
std::vector<SymTensor> InferClip(InferenceContext& ctx) {
  const SymTensor& in = ctx.Input(0);
  SymTensor out = TypeAndShape(in);
  if (ctx.OpsetVersion() >= 11 && IsIntegerType(in.elem_type)) {
    auto values = InputValues(ctx, 0);
    std::optional<SymDim> lo = ctx.HasInput(1) ? InputScalar(ctx, 1) : std::optional<SymDim>(SymDim(std::numeric_limits<std::int64_t>::min()));
    std::optional<SymDim> hi = ctx.HasInput(2) ? InputScalar(ctx, 2) : std::optional<SymDim>(SymDim(std::numeric_limits<std::int64_t>::max()));
    if (values && lo && hi) {
      std::vector<SymDim> clipped;
      for (const auto& v : *values) {
        SymDim r = v;
        if (ctx.HasInput(1)) r = DecidableMax(r, *lo);
        if (ctx.HasInput(2)) r = DecidableMin(r, *hi);
        clipped.push_back(r);
      }
      out = WithValues(in.elem_type, in.shape, std::move(clipped));
    }
  }
  return Outputs(ctx, std::move(out));
}

// Dropout: output, and the optional mask of the input's shape (of the input's type
// before opset 10, bool from 10 on).
std::vector<SymTensor> InferDropout(InferenceContext& ctx) {
  const SymTensor& in = ctx.Input(0);
  std::vector<SymTensor> outs;
  outs.push_back(TypeAndShape(in));
  outs.push_back(SymTensor::Tensor(ctx.OpsetVersion() >= 10 ? kBool : in.elem_type, in.shape));
  return Outputs(ctx, std::move(outs));
}

// PRelu: the slope broadcasts to X (unidirectionally); the output has X's shape.
std::vector<SymTensor> InferPRelu(InferenceContext& ctx) { return Outputs(ctx, TypeAndShape(ctx.Input(0))); }

std::vector<SymTensor> InferWhere(InferenceContext& ctx) {
  BroadcastOp op;
  op.type.from = {1, 2};
  op.fold = [](const std::vector<SymDim>& xs) {
    auto c = xs[0].Constant();
    if (!c) return SymDim::Unknown();
    return *c != 0 ? xs[1] : xs[2];
  };
  return InferBroadcast(ctx, op);
}

}  // namespace

void RegisterElementwiseShapes() {
  // Same type and shape, no value.
  for (const char* name :
       {"Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Round", "Erf", "Sin", "Cos", "Tan",
        "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Softplus", "Softsign", "Elu", "Selu",
        "LeakyRelu", "ThresholdedRelu", "HardSigmoid", "HardSwish", "Mish", "Gelu", "Celu", "BitwiseNot", "Shrink",
        "Swish"})
    RegisterShapeFunction("", name, Unary());
  RegisterShapeFunction("", "Identity", [](InferenceContext& ctx) { return Outputs(ctx, ctx.Input(0)); });
  RegisterShapeFunction("", "Neg", Unary(0, [](const SymDim& a) { return -a; }));
  RegisterShapeFunction("", "Abs", Unary(0, AbsValue));
  RegisterShapeFunction("", "Sign", Unary(0, SignValue));
  RegisterShapeFunction("", "Relu", Unary(0, [](const SymDim& a) { return DecidableMax(a, SymDim(0)); }));
  RegisterShapeFunction("", "Not", Unary(kBool, [](const SymDim& a) {
                          auto c = a.Constant();
                          return c ? SymDim(*c == 0 ? 1 : 0) : SymDim::Unknown();
                        }));
  RegisterShapeFunction("", "IsNaN", Unary(kBool));
  RegisterShapeFunction("", "IsInf", Unary(kBool));
  RegisterShapeFunction("", "Clip", InferClip);
  RegisterShapeFunction("", "Dropout", InferDropout);
  RegisterShapeFunction("", "PRelu", InferPRelu);
  RegisterShapeFunction("", "Cast", InferCast);
  RegisterShapeFunction("", "CastLike", InferCastLike);
  RegisterShapeFunction("", "BitCast", InferBitCast);
  RegisterShapeFunction("", "Where", InferWhere);

  const OutType same;
  const OutType boolean{kBool, {}};
  auto add = Binary([](const SymDim& a, const SymDim& b) { return a + b; });
  RegisterBroadcast("Add", {same, add, 7});
  RegisterBroadcast("Sub", {same, Binary([](const SymDim& a, const SymDim& b) { return a - b; }), 7});
  RegisterBroadcast("Mul", {same, Binary([](const SymDim& a, const SymDim& b) { return a * b; }), 7});
  RegisterBroadcast("Div", {same, Binary(TruncDiv), 7});
  RegisterBroadcast("Pow", {same, nullptr, 7});
  RegisterShapeFunction("", "Mod", [](InferenceContext& ctx) {
    const bool fmod = FlagAttribute(ctx, "fmod", false);
    BroadcastOp op{OutType{}, Binary([fmod](const SymDim& a, const SymDim& b) { return OnnxMod(a, b, fmod); }), 0};
    return InferBroadcast(ctx, op);
  });
  RegisterBroadcast("BitShift", {same, nullptr, 0});
  for (const char* name : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) RegisterBroadcast(name, {same, nullptr, 0});
  auto logical = [](auto f) {
    return Binary([f](const SymDim& a, const SymDim& b) {
      auto ca = a.Constant();
      auto cb = b.Constant();
      if (!ca || !cb) return SymDim::Unknown();
      return SymDim(f(*ca != 0, *cb != 0) ? 1 : 0);
    });
  };
  RegisterBroadcast("And", {boolean, logical([](bool a, bool b) { return a && b; }), 7});
  RegisterBroadcast("Or", {boolean, logical([](bool a, bool b) { return a || b; }), 7});
  RegisterBroadcast("Xor", {boolean, logical([](bool a, bool b) { return a != b; }), 7});
  RegisterBroadcast("Equal", {boolean, Binary([](const SymDim& a, const SymDim& b) { return FromBool(EqualTo(a, b)); }), 7});
  RegisterBroadcast("Less", {boolean, Binary([](const SymDim& a, const SymDim& b) { return FromBool(LessThan(a, b)); }), 7});
  RegisterBroadcast("Greater", {boolean, Binary([](const SymDim& a, const SymDim& b) { return FromBool(LessThan(b, a)); }), 7});
  RegisterBroadcast("LessOrEqual", {boolean, Binary([](const SymDim& a, const SymDim& b) {
                                      auto r = LessThan(b, a);
                                      return r ? SymDim(*r ? 0 : 1) : SymDim::Unknown();
                                    }), 0});
  RegisterBroadcast("GreaterOrEqual", {boolean, Binary([](const SymDim& a, const SymDim& b) {
                                         auto r = LessThan(a, b);
                                         return r ? SymDim(*r ? 0 : 1) : SymDim::Unknown();
                                       }), 0});
  RegisterBroadcast("Max", {same, Binary(DecidableMax), 0});
  RegisterBroadcast("Min", {same, Binary(DecidableMin), 0});
  RegisterBroadcast("Sum", {same, add, 0});
  RegisterBroadcast("Mean", {same, nullptr, 0});
}

}  // namespace onnxopt::onnx_shapes
