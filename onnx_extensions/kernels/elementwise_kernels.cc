// Element-wise kernels: math, activations, comparison, logic, bitwise, Where, Cast.
//
// Each kernel factory takes a generic lambda computing one element, so that the inner
// loops are instantiated per element type (no per-element indirect call).

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>
#include <random>

#include "onnx_core/eval/float8.h"
#include "onnx_core/eval/random_seed.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

using core::eval::Arity;
using core::eval::Kernel;
using core::eval::RegisterKernel;

void Register(std::string_view op, Arity arity, Kernel kernel) { RegisterKernel("", op, arity, std::move(kernel)); }

constexpr Arity kUnary{1, 1}, kBinary{2, 2}, kVariadic{1, Arity::kAny};

template <class T>
constexpr bool kIsFloat = std::is_floating_point_v<T>;

// Unary -------------------------------------------------------------------------------

template <class T, class R, class Op>
Tensor UnaryLoop(const Tensor& x, int out_type, Op&& op) {
  Tensor out(out_type, x.shape());
  const T* a = x.Data<T>();
  R* b = out.MutableData<R>();
  for (std::int64_t i = 0; i < x.size(); ++i) b[i] = static_cast<R>(op(a[i]));
  return out;
}

// `make(ctx)` returns the element function; float types only (float16/bfloat16 through float).
template <class MakeOp>
Kernel FloatUnary(MakeOp make) {
  return [make](KernelContext& ctx) -> std::vector<Value> {
    const Tensor& in = ctx.TensorInput(0);
    Tensor x = ToComputeType(in);
    auto op = make(ctx);
    Tensor y = DispatchFloat(x.elem_type(), [&]<class T>(std::type_identity<T>) {
      return UnaryLoop<T, T>(x, x.elem_type(), [&](T v) { return op(v); });
    });
    return {FromComputeType(y, in.elem_type())};
  };
}

template <class Op>
Kernel SimpleFloatUnary(Op op) {
  return FloatUnary([op](KernelContext&) { return op; });
}

// Float and integer types.
template <class MakeOp>
Kernel NumericUnary(MakeOp make) {
  return [make](KernelContext& ctx) -> std::vector<Value> {
    const Tensor& in = ctx.TensorInput(0);
    Tensor x = ToComputeType(in);
    auto op = make(ctx);
    Tensor y = DispatchNumeric(x.elem_type(), [&]<class T>(std::type_identity<T>) {
      return UnaryLoop<T, T>(x, x.elem_type(), [&](T v) { return op(v); });
    });
    return {FromComputeType(y, in.elem_type())};
  };
}

// Float types to bool.
template <class MakeOp>
Kernel FloatPredicate(MakeOp make) {
  return [make](KernelContext& ctx) -> std::vector<Value> {
    Tensor x = ToComputeType(ctx.TensorInput(0));
    auto op = make(ctx);
    return {DispatchFloat(x.elem_type(), [&]<class T>(std::type_identity<T>) {
      return UnaryLoop<T, bool>(x, TensorProto::BOOL, [&](T v) { return op(v); });
    })};
  };
}

// Binary ------------------------------------------------------------------------------

template <class T, class R, class Op>
Tensor BinaryLoop(const Tensor& a, const Tensor& b, int out_type, Op&& op) {
  Shape shape = BroadcastShapes({a.shape(), b.shape()});
  Tensor out(out_type, shape);
  const T* pa = a.Data<T>();
  const T* pb = b.Data<T>();
  R* po = out.MutableData<R>();
  ForEachBroadcast<2>(shape, {&a.shape(), &b.shape()},
                      [&](std::int64_t i, const std::array<std::int64_t, 2>& off) {
                        po[i] = static_cast<R>(op(pa[off[0]], pb[off[1]]));
                      });
  return out;
}

void CheckSameType(const Tensor& a, const Tensor& b) {
  if (a.elem_type() != b.elem_type())
    Fail("inputs have different element types " + ElemTypeName(a.elem_type()) + " and " + ElemTypeName(b.elem_type()));
}

// Before opset 7, Add, Sub, Mul, Div, Pow, And, Or, Xor, Equal, Less and Greater take inputs
// of one shape unless `broadcast` is 1, and then B goes into A: as one element, or as a run of
// A's dims starting at `axis` (ending with A's last dim without it). Returns B reshaped to A's
// rank, which numpy broadcasting then reads as the legacy rule does; nullopt when B needs no
// reshaping (and from opset 7 on). A B that does not fit is refused: broadcast both ways, as
// the later opsets do, would compute what the legacy node does not.
std::optional<Tensor> LegacyOperand(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (ctx.OpsetVersion() >= 7) return std::nullopt;
  if (IntAttributeIn(ctx, "broadcast", 0, 0, 1) == 0) {
    if (a.shape() != b.shape())
      Fail("without broadcast=1 (opset " + std::to_string(ctx.OpsetVersion()) + ") the inputs have one shape; found " +
           ShapeToString(a.shape()) + " and " + ShapeToString(b.shape()));
    return std::nullopt;
  }
  const auto rank_a = static_cast<std::int64_t>(a.rank()), rank_b = static_cast<std::int64_t>(b.rank());
  if (b.size() == 1 && rank_b <= rank_a) return std::nullopt;
  const std::optional<std::int64_t> given = ctx.IntAttribute("axis");
  const std::int64_t axis = !given ? rank_a - rank_b : *given < 0 ? *given + rank_a : *given;
  bool fits = axis >= 0 && axis <= rank_a - rank_b;
  for (std::int64_t i = 0; fits && i < rank_b; ++i) fits = b.shape()[i] == a.shape()[axis + i];
  if (!fits)
    Fail("with broadcast=1, B " + ShapeToString(b.shape()) + " is not a run of the dims of A " + ShapeToString(a.shape()) +
         " at axis " + std::to_string(axis));
  Shape shape(a.rank(), 1);
  std::copy(b.shape().begin(), b.shape().end(), shape.begin() + axis);
  return b.Reshaped(shape);
}

// Same-type numeric inputs, same-type output.
template <class Op>
Tensor ArithmeticBinary(const Tensor& a_in, const Tensor& b_in, Op op) {
  CheckSameType(a_in, b_in);
  Tensor a = ToComputeType(a_in), b = ToComputeType(b_in);
  Tensor y = DispatchNumeric(a.elem_type(), [&]<class T>(std::type_identity<T>) {
    return BinaryLoop<T, T>(a, b, a.elem_type(), [&](T x, T z) { return op(x, z); });
  });
  return FromComputeType(y, a_in.elem_type());
}

template <class Op>
Kernel Arithmetic(Op op) {
  return [op](KernelContext& ctx) -> std::vector<Value> {
    const Tensor& a = ctx.TensorInput(0);
    const std::optional<Tensor> legacy_b = LegacyOperand(ctx, a, ctx.TensorInput(1));
    return {ArithmeticBinary(a, legacy_b ? *legacy_b : ctx.TensorInput(1), op)};
  };
}

// Comparison: numeric (and bool, string for Equal) to bool.
template <class Op>
Kernel Comparison(Op op, bool allow_string) {
  return [op, allow_string](KernelContext& ctx) -> std::vector<Value> {
    const Tensor& a_in = ctx.TensorInput(0);
    const std::optional<Tensor> legacy_b = LegacyOperand(ctx, a_in, ctx.TensorInput(1));
    const Tensor& b_in = legacy_b ? *legacy_b : ctx.TensorInput(1);
    CheckSameType(a_in, b_in);
    if (a_in.elem_type() == TensorProto::STRING) {
      if (!allow_string) Fail("string inputs are not supported");
      return {BinaryLoop<std::string, bool>(a_in, b_in, TensorProto::BOOL, op)};
    }
    Tensor a = ToComputeType(a_in), b = ToComputeType(b_in);
    return {DispatchNumericOrBool(a.elem_type(), [&]<class T>(std::type_identity<T>) {
      return BinaryLoop<T, bool>(a, b, TensorProto::BOOL, [&](T x, T z) { return op(x, z); });
    })};
  };
}

template <class Op>
Kernel Logical(Op op) {
  return [op](KernelContext& ctx) -> std::vector<Value> {
    const Tensor& a = ctx.TensorInput(0);
    const std::optional<Tensor> legacy_b = LegacyOperand(ctx, a, ctx.TensorInput(1));
    const Tensor& b = legacy_b ? *legacy_b : ctx.TensorInput(1);
    if (a.elem_type() != TensorProto::BOOL || b.elem_type() != TensorProto::BOOL) Fail("inputs must be bool");
    return {BinaryLoop<bool, bool>(a, b, TensorProto::BOOL, op)};
  };
}

template <class Op>
Kernel Bitwise(Op op) {
  return [op](KernelContext& ctx) -> std::vector<Value> {
    const Tensor& a = ctx.TensorInput(0);
    const Tensor& b = ctx.TensorInput(1);
    CheckSameType(a, b);
    return {DispatchInteger(a.elem_type(), [&]<class T>(std::type_identity<T>) {
      return BinaryLoop<T, T>(a, b, a.elem_type(), [&](T x, T z) { return op(x, z); });
    })};
  };
}

// Variadic Max / Min / Sum / Mean: pairwise with broadcasting.
template <class Op>
Kernel Variadic(Op op, bool mean) {
  return [op, mean](KernelContext& ctx) -> std::vector<Value> {
    if (ctx.InputCount() == 0) Fail("at least one input is required");
    const int type = ctx.TensorInput(0).elem_type();
    Tensor acc = ToComputeType(ctx.TensorInput(0));
    for (std::size_t i = 1; i < ctx.InputCount(); ++i) {
      const Tensor& in = ctx.TensorInput(i);
      CheckSameType(ctx.TensorInput(0), in);
      acc = ArithmeticBinary(acc, ToComputeType(in), op);
    }
    if (mean) {
      const double n = static_cast<double>(ctx.InputCount());
      acc = DispatchNumeric(acc.elem_type(), [&]<class T>(std::type_identity<T>) {
        return UnaryLoop<T, T>(acc, acc.elem_type(), [&](T v) { return static_cast<T>(v / n); });
      });
    }
    return {FromComputeType(acc, type)};
  };
}

// Element functions -------------------------------------------------------------------

template <class T>
T MaxOf(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return a < b ? b : a;
}

template <class T>
T MinOf(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return b < a ? b : a;
}

template <class T>
T DivOf(T a, T b) {
  if constexpr (kIsFloat<T>) {
    return a / b;
  } else {
    if (b == 0) Fail("integer division by zero");
    if constexpr (std::is_signed_v<T>) {
      // The quotient 2^(bits-1) does not fit: wrapped here; onnxruntime on x86 stops with
      // SIGFPE. (Mod of the same operands is 0, which fits.)
      if (a == std::numeric_limits<T>::min() && b == T(-1)) {
        core::eval::NoteUndefinedResult("an integer quotient beyond its type's range");
        return a;
      }
    }
    return static_cast<T>(a / b);
  }
}

template <class T>
T ModOf(T a, T b, bool fmod) {
  if constexpr (kIsFloat<T>) {
    T r = std::fmod(a, b);
    if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    if (b == 0) Fail("integer modulo by zero");
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return 0;
      T r = static_cast<T>(a % b);
      if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      return r;
    } else {
      return static_cast<T>(a % b);
    }
  }
}

template <class T>
T PowOf(T a, double b) {
  if constexpr (kIsFloat<T>) {
    return static_cast<T>(std::pow(static_cast<double>(a), b));
  } else {
    // Integer powers are exact for integer exponents (repeated squaring, wrapping).
    if (b >= 0 && b == std::floor(b)) {
      // The spec gives no value beyond T's range (onnxruntime takes the power in double and
      // converts it, which is undefined there): the wrapped one is the evaluator's choice.
      if constexpr (!std::is_same_v<T, bool>)
        if (!(std::fabs(std::pow(static_cast<double>(a), b)) < std::ldexp(1.0, std::numeric_limits<T>::digits)))
          core::eval::NoteUndefinedResult("an integer power beyond its type's range");
      using U = std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>>;
      U base = static_cast<U>(a), result = 1;
      // Every double from 2^64 on (infinity too) is a multiple of 2^64, where a^e wraps to
      // what a^(2^63) gives (0 for an even base, 1 for an odd one).
      auto e = b < 0x1p64 ? static_cast<std::uint64_t>(b) : std::uint64_t{1} << 63;
      while (e) {
        if (e & 1) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
        e >>= 1;
      }
      return static_cast<T>(result);
    }
    double r = std::pow(static_cast<double>(a), b);
    if (std::isfinite(r)) return static_cast<T>(ConvertNumber<std::int64_t>(r));
    core::eval::NoteUndefinedResult(kFloatOutOfIntegerRange);
    return T(0);
  }
}

// Pow: base T, exponent of another numeric type (opset 12+).
std::vector<Value> PowKernel(KernelContext& ctx) {
  const Tensor& base_in = ctx.TensorInput(0);
  Tensor base = ToComputeType(base_in);
  const std::optional<Tensor> legacy_expo = LegacyOperand(ctx, base_in, ctx.TensorInput(1));
  Tensor expo = ToComputeType(legacy_expo ? *legacy_expo : ctx.TensorInput(1));
  Shape shape = BroadcastShapes({base.shape(), expo.shape()});
  Tensor y = DispatchNumeric(base.elem_type(), [&]<class T>(std::type_identity<T>) {
    return DispatchNumeric(expo.elem_type(), [&]<class E>(std::type_identity<E>) {
      Tensor out(base.elem_type(), shape);
      const T* pa = base.Data<T>();
      const E* pb = expo.Data<E>();
      T* po = out.MutableData<T>();
      ForEachBroadcast<2>(shape, {&base.shape(), &expo.shape()},
                          [&](std::int64_t i, const std::array<std::int64_t, 2>& off) {
                            po[i] = PowOf<T>(pa[off[0]], static_cast<double>(pb[off[1]]));
                          });
      return out;
    });
  });
  return {FromComputeType(y, base_in.elem_type())};
}

// PRelu: the slope broadcasts to x (unidirectionally: the output has x's shape).
std::vector<Value> PReluKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& slope = ctx.TensorInput(1);
  if (BroadcastShapes({x.shape(), slope.shape()}) != x.shape())
    Fail("the slope " + slope.Describe() + " does not broadcast to the input " + x.Describe());
  return {ArithmeticBinary(x, slope,
                           [](auto x, auto s) { return x < 0 ? WrappingMul(s, x) : x; })};
}

// Clip: min/max attributes before opset 11, optional scalar inputs (of the input's type)
// since. Y = Min(max, Max(X, min)): everything is max when min > max; NaN stays NaN.
std::vector<Value> ClipKernel(KernelContext& ctx) {
  const Tensor& in = ctx.TensorInput(0);
  Tensor x = ToComputeType(in);
  const bool attrs = ctx.OpsetVersion() < 11;
  if (!attrs)
    for (std::size_t i : {1, 2})
      if (ctx.HasInput(i)) ExpectSameElemType(ctx.TensorInput(i), in, InputLabel(ctx, i), "the input");
  Tensor y = DispatchNumeric(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    // A bound input is read in the input's own type: an int64 bound beyond 2^53 passed
    // through a double lost its value, and INT64_MAX became 2^63, which no int64 holds.
    // The float attributes of opset 6 (float types only) are converted with ConvertNumber.
    auto bound = [&](std::size_t input, std::string_view attribute, float attribute_default, T absent) -> T {
      if (attrs) return ConvertNumber<T>(static_cast<double>(ctx.FloatAttribute(attribute).value_or(attribute_default)));
      if (!ctx.HasInput(input)) return absent;
      return ToComputeType(OneElementInput(ctx, input)).template Data<T>()[0];
    };
    const T l = bound(1, "min", -std::numeric_limits<float>::max(), std::numeric_limits<T>::lowest());
    const T h = bound(2, "max", std::numeric_limits<float>::max(), std::numeric_limits<T>::max());
    return UnaryLoop<T, T>(x, x.elem_type(), [&](T v) {
      if constexpr (kIsFloat<T>) {
        if (std::isnan(v)) return v;
      }
      const T raised = v < l ? l : v;
      return raised > h ? h : raised;
    });
  });
  return {FromComputeType(y, in.elem_type())};
}

std::vector<Value> WhereKernel(KernelContext& ctx) {
  const Tensor& c = ctx.TensorInput(0);
  const Tensor& a = ctx.TensorInput(1);
  const Tensor& b = ctx.TensorInput(2);
  if (c.elem_type() != TensorProto::BOOL) Fail("the condition must be bool");
  CheckSameType(a, b);
  Shape shape = BroadcastShapes({c.shape(), a.shape(), b.shape()});
  return {DispatchStorage(a.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(a.elem_type(), shape);
    const bool* pc = c.Data<bool>();
    const T* pa = a.Data<T>();
    const T* pb = b.Data<T>();
    T* po = out.MutableData<T>();
    StringCopies copies("the characters of the output strings");  // broadcasting repeats them
    ForEachBroadcast<3>(shape, {&c.shape(), &a.shape(), &b.shape()},
                        [&](std::int64_t i, const std::array<std::int64_t, 3>& off) {
                          const T& element = pc[off[0]] ? pa[off[1]] : pb[off[2]];
                          copies.Count(element);
                          po[i] = element;
                        });
    return out;
  })};
}

// BitShift: unsigned integers only; a shift by the width of the type or more gives 0.
std::vector<Value> BitShiftKernel(KernelContext& ctx) {
  if (!ctx.StringAttribute("direction")) Fail("attribute 'direction' is required");
  const bool left = StringAttributeIn(ctx, "direction", "", {"LEFT", "RIGHT"}) == "LEFT";
  const Tensor& a = ctx.TensorInput(0);
  const Tensor& b = ctx.TensorInput(1);
  CheckSameType(a, b);
  return {DispatchUnsigned(a.elem_type(), [&]<class T>(std::type_identity<T>) {
    return BinaryLoop<T, T>(a, b, a.elem_type(), [&](T x, T s) -> T {
      if (static_cast<std::uint64_t>(s) >= sizeof(T) * 8) return 0;
      return static_cast<T>(left ? x << s : x >> s);
    });
  })};
}

std::vector<Value> NotKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  if (x.elem_type() != TensorProto::BOOL) Fail("the input must be bool");
  return {UnaryLoop<bool, bool>(x, TensorProto::BOOL, [](bool v) { return !v; })};
}

std::vector<Value> BitwiseNotKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  return {DispatchInteger(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    return UnaryLoop<T, T>(x, x.elem_type(), [](T v) { return static_cast<T>(~v); });
  })};
}

std::vector<Value> IdentityKernel(KernelContext& ctx) { return {ctx.Input(0)}; }

// Uniform doubles in [0, 1) drawn like NumPy's legacy RandomState(seed).random_sample
// (MT19937, 53 bits from two draws), so that a seeded training-mode Dropout matches the
// ONNX reference.
class UniformSampler {
 public:
  explicit UniformSampler(std::uint32_t seed) : gen_(seed) {}
  double Next() {
    const double a = static_cast<double>(gen_() >> 5), b = static_cast<double>(gen_() >> 6);
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }

 private:
  std::mt19937 gen_;
};

std::vector<Value> DropoutKernel(KernelContext& ctx) {
  const Tensor& x_in = ctx.TensorInput(0);
  ExpectFloatType(x_in, InputLabel(ctx, 0));
  bool training = false;
  double ratio = ctx.FloatAttribute("ratio").value_or(0.5f);
  // Before opset 12 the mode is not part of the node (is_test of opset < 7 is ignored):
  // the evaluator runs inference.
  if (ctx.OpsetVersion() >= 12) {
    if (ctx.HasInput(1)) ratio = InputScalar(ctx, 1);
    if (ctx.HasInput(2)) {
      ExpectElemType(ctx.TensorInput(2), TensorProto::BOOL, InputLabel(ctx, 2));
      training = InputScalar(ctx, 2) != 0;
    }
  }
  Tensor mask(TensorProto::BOOL, x_in.shape());
  bool* m = mask.MutableData<bool>();
  std::fill_n(m, mask.size(), true);
  std::vector<Value> out{x_in};
  if (training && ratio != 0) {
    if (ratio < 0 || ratio >= 1) Fail("Dropout ratio must be in [0, 1)");
    UniformSampler sampler(static_cast<std::uint32_t>(core::eval::NodeRandomSeed(ctx)));
    for (std::int64_t i = 0; i < mask.size(); ++i) m[i] = sampler.Next() >= ratio;
    Tensor x = ToComputeType(x_in);
    Tensor y = DispatchFloat(x.elem_type(), [&]<class T>(std::type_identity<T>) {
      const T scale = static_cast<T>(1.0 / (1.0 - ratio));
      Tensor r(x.elem_type(), x.shape());
      const T* px = x.Data<T>();
      T* py = r.MutableData<T>();
      for (std::int64_t i = 0; i < x.size(); ++i) py[i] = static_cast<T>(px[i] * static_cast<T>(m[i])) * scale;
      return r;
    });
    out[0] = FromComputeType(y, x_in.elem_type());
  }
  if (ctx.OutputCount() > 1) out.push_back(mask);
  return out;
}

// Cast --------------------------------------------------------------------------------

// Converts every "special" type (float16, bfloat16, float8, float8e8m0, float4e2m1) to
// float; int4/uint4 are already stored as int8/uint8 values.
Tensor DecodeToFloat(const Tensor& t) {
  if (IsHalfType(t.elem_type())) return ToComputeType(t);
  if (!core::eval::IsByteCodedFloat(t.elem_type())) return t;
  Tensor out(TensorProto::FLOAT, t.shape());
  const auto* src = t.Data<std::uint8_t>();
  float* dst = out.MutableData<float>();
  for (std::int64_t i = 0; i < t.size(); ++i) dst[i] = core::eval::ByteCodedFloatToFloat(src[i], t.elem_type());
  return out;
}

// Numbers as strings: bool as its number (bool casts to {1, 0}), floats in the shortest
// form that reads back to the same value, printed like %g (exponent form only for large
// or small magnitudes), as onnxruntime does.
template <class S>
std::string FormatValue(S v) {
  if constexpr (std::is_same_v<S, bool>) {
    return v ? "1" : "0";
  } else if constexpr (kIsFloat<S>) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general);
    return std::string(buf, r.ptr);
  } else {
    return std::to_string(v);
  }
}

double ParseNumber(const std::string& s) {
  const char* begin = s.c_str();
  char* end = nullptr;
  double v = std::strtod(begin, &end);
  if (end == begin) Fail("cannot cast string \"" + s + "\" to a number");
  return v;
}

// How Cast and CastLike convert: `saturate` (float8 types), `truncate_bfloat16` (before opset
// 19 Cast truncates to bfloat16: the ONNX 1.12 reference and its backend tests keep the upper
// 16 bits; later versions round to nearest even) and `e8m0_rounding` (round_mode, from opset
// 24, for float8e8m0).
struct CastOptions {
  bool saturate = true;
  bool truncate_bfloat16 = false;
  core::eval::E8M0Rounding e8m0_rounding = core::eval::E8M0Rounding::kUp;
};

CastOptions CastOptionsOf(const KernelContext& ctx) {
  CastOptions options;
  options.saturate = ctx.IntAttribute("saturate").value_or(1) != 0;
  options.truncate_bfloat16 = ctx.OpsetVersion() < 19;
  const std::string round_mode = StringAttributeIn(ctx, "round_mode", "up", {"up", "down", "nearest"});
  options.e8m0_rounding = round_mode == "down"      ? core::eval::E8M0Rounding::kDown
                          : round_mode == "nearest" ? core::eval::E8M0Rounding::kNearest
                                                    : core::eval::E8M0Rounding::kUp;
  return options;
}

Tensor CastTensor(const Tensor& in, int to, const CastOptions& options) {
  if (in.elem_type() == to) return in;
  if (!core::eval::StorageBytes(to) && to != TensorProto::STRING) Fail("unsupported target type " + ElemTypeName(to));
  if (in.elem_type() == TensorProto::STRING) {
    Tensor d(TensorProto::DOUBLE, in.shape());
    const auto* s = in.Data<std::string>();
    double* p = d.MutableData<double>();
    for (std::int64_t i = 0; i < in.size(); ++i) p[i] = ParseNumber(s[i]);
    return CastTensor(d, to, options);
  }
  Tensor src = DecodeToFloat(in);
  if (to == TensorProto::STRING) {
    Tensor out(TensorProto::STRING, in.shape());
    auto* dst = out.MutableData<std::string>();
    const bool as_float = src.elem_type() == TensorProto::FLOAT;
    DispatchNumericOrBool(src.elem_type(), [&]<class S>(std::type_identity<S>) {
      const S* p = src.Data<S>();
      for (std::int64_t i = 0; i < src.size(); ++i)
        dst[i] = as_float ? FormatValue(static_cast<float>(p[i])) : FormatValue(p[i]);
      return 0;
    });
    return out;
  }
  if (IsHalfType(to) || core::eval::IsByteCodedFloat(to)) {
    Tensor f = CastTensor(src, TensorProto::FLOAT, options);
    Tensor out(to, in.shape());
    const float* p = f.Data<float>();
    if (IsHalfType(to)) {
      auto* q = out.MutableData<std::uint16_t>();
      for (std::int64_t i = 0; i < f.size(); ++i) {
        if (to == TensorProto::FLOAT16) {
          q[i] = core::eval::FloatToHalf(p[i]);
        } else if (options.truncate_bfloat16) {
          std::uint32_t bits;
          std::memcpy(&bits, &p[i], sizeof bits);
          q[i] = static_cast<std::uint16_t>(bits >> 16);
        } else {
          q[i] = core::eval::FloatToBFloat16(p[i]);
        }
      }
    } else if (to == core::eval::kFloat4E2M1) {
      auto* q = out.MutableData<std::uint8_t>();
      for (std::int64_t i = 0; i < f.size(); ++i) q[i] = core::eval::FloatToFloat4E2M1(p[i]);
    } else if (to == core::eval::kFloat8E8M0) {
      auto* q = out.MutableData<std::uint8_t>();
      for (std::int64_t i = 0; i < f.size(); ++i)
        q[i] = core::eval::FloatToFloat8E8M0(p[i], options.e8m0_rounding, options.saturate);
    } else {
      auto* q = out.MutableData<std::uint8_t>();
      for (std::int64_t i = 0; i < f.size(); ++i) q[i] = core::eval::FloatToFloat8(p[i], to, options.saturate);
    }
    return out;
  }
  if (const int byte_type = core::eval::ByteIntegerOf(to)) {
    // The spec (int4.md, and Cast's rule for fixed point out of range): round to the
    // nearest integer, ties to even, then keep the low 4 (2) bits, two's complement for the
    // signed types: 8 -> -8 in INT4, -1 -> 15 in UINT4, 2 -> -2 in INT2, -1 -> 3 in UINT2.
    // NaN (undefined) gives 0.
    Tensor d = CastTensor(src, TensorProto::DOUBLE, options);
    Tensor out(to, in.shape());
    const double* p = d.Data<double>();
    const int modulus = 1 << core::eval::PackedBits(to);
    auto low_bits = [&](double v) -> int {
      if (!std::isfinite(v)) return 0;
      const double r = std::nearbyint(std::fmod(v, modulus));
      return static_cast<int>(static_cast<std::int64_t>(r) & (modulus - 1));
    };
    if (byte_type == TensorProto::INT8) {
      auto* q = out.MutableData<std::int8_t>();
      for (std::int64_t i = 0; i < d.size(); ++i) {
        const int value = low_bits(p[i]);
        q[i] = static_cast<std::int8_t>(value >= modulus / 2 ? value - modulus : value);
      }
    } else {
      auto* q = out.MutableData<std::uint8_t>();
      for (std::int64_t i = 0; i < d.size(); ++i) q[i] = low_bits(p[i]);
    }
    return out;
  }
  const int src_byte_type = core::eval::ByteIntegerOf(src.elem_type());  // 2- and 4-bit integers
  const int src_type = src_byte_type ? src_byte_type : src.elem_type();
  return DispatchNumericOrBool(src_type, [&]<class S>(std::type_identity<S>) {
    return DispatchNumericOrBool(to, [&]<class D>(std::type_identity<D>) {
      Tensor out(to, in.shape());
      const S* p = src.Data<S>();
      D* q = out.MutableData<D>();
      for (std::int64_t i = 0; i < src.size(); ++i) q[i] = ConvertNumber<D>(p[i]);
      return out;
    });
  });
}

int ElemTypeFromName(const std::string& name) {
  TensorProto::DataType t;
  if (!TensorProto::DataType_Parse(name, &t)) Fail("unknown type name \"" + name + "\" in attribute to");
  return t;
}

std::vector<Value> CastKernel(KernelContext& ctx) {
  const AttributeProto* to = ctx.Attribute("to");
  if (!to) Fail("attribute to is required");
  const int type = to->type() == AttributeProto::STRING ? ElemTypeFromName(to->s()) : static_cast<int>(to->i());
  return {CastTensor(ctx.TensorInput(0), type, CastOptionsOf(ctx))};
}

std::vector<Value> CastLikeKernel(KernelContext& ctx) {
  return {CastTensor(ctx.TensorInput(0), ctx.TensorInput(1).elem_type(), CastOptionsOf(ctx))};
}

// BitCast (opset 26): the same bits read as another type of the same width. A Tensor keeps
// the 2- and 4-bit types a byte an element (the signed integers sign-extended), so their
// bits are the low ones of each byte; bool takes only the bytes 0 and 1 (another byte is
// no bool: refused, not guessed).
std::vector<Value> BitCastKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const std::int64_t to_attribute = RequiredIntAttribute(ctx, "to");
  const int to = static_cast<int>(to_attribute);
  // A Tensor holds neither strings to reinterpret nor complex numbers.
  if (to != to_attribute || to == TensorProto::STRING || core::eval::StorageBytes(to) == 0)
    Fail("BitCast cannot produce element type " + std::to_string(to_attribute));
  const std::optional<int> from_bits = core::ir::ElementBits(x.elem_type());
  const std::optional<int> to_bits = core::ir::ElementBits(to);
  if (from_bits != to_bits)
    Fail("BitCast from " + ElemTypeName(x.elem_type()) + " (" + std::to_string(from_bits.value_or(0)) + " bits) to " +
         ElemTypeName(to) + " (" + std::to_string(to_bits.value_or(0)) + " bits): the widths differ");
  Tensor out = Tensor::ForOverwrite(to, x.shape());
  if (x.ByteSize() > 0) std::memcpy(out.MutableRawData(), x.RawData(), x.ByteSize());
  auto* bytes = reinterpret_cast<std::uint8_t*>(out.MutableRawData());
  if (const int packed = core::eval::PackedBits(to)) {
    const auto mask = static_cast<std::uint8_t>((1u << packed) - 1);
    const bool sign_extend = core::eval::ByteIntegerOf(to) == TensorProto::INT8;
    for (std::int64_t i = 0; i < out.size(); ++i) {
      std::uint8_t code = bytes[i] & mask;
      if (sign_extend && (code >> (packed - 1)) != 0) code = static_cast<std::uint8_t>(code | ~mask);
      bytes[i] = code;
    }
  } else if (to == TensorProto::BOOL) {
    for (std::int64_t i = 0; i < out.size(); ++i)
      if (bytes[i] > 1)
        Fail("BitCast to bool: element " + std::to_string(i) + " has the byte " + std::to_string(bytes[i]) +
             ", which is no bool (0 or 1)");
  }
  return {std::move(out)};
}

// Float element functions -------------------------------------------------------------

template <class T>
T Sigmoid(T x) {
  return x >= 0 ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x));
}

template <class T>
T Softplus(T x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

void RegisterMath() {
  Register("Add", kBinary, Arithmetic([](auto a, auto b) { return WrappingAdd(a, b); }));
  Register("Sub", kBinary, Arithmetic([](auto a, auto b) { return WrappingSub(a, b); }));
  Register("Mul", kBinary, Arithmetic([](auto a, auto b) { return WrappingMul(a, b); }));
  Register("Div", kBinary, Arithmetic([](auto a, auto b) { return DivOf(a, b); }));
  Register("Pow", kBinary, PowKernel);
  Register("Mod", kBinary, [](KernelContext& ctx) -> std::vector<Value> {
    const bool fmod = IntAttributeIn(ctx, "fmod", 0, 0, 1) != 0;
    const int type = ctx.TensorInput(0).elem_type();
    if (!fmod && (IsHalfType(type) || type == TensorProto::FLOAT || type == TensorProto::DOUBLE))
      Fail("attribute 'fmod' must be 1 for floating-point inputs (" + ElemTypeName(type) + ")");
    return {ArithmeticBinary(ctx.TensorInput(0), ctx.TensorInput(1), [fmod](auto a, auto b) { return ModOf(a, b, fmod); })};
  });
  Register("Max", kVariadic, Variadic([](auto a, auto b) { return MaxOf(a, b); }, false));
  Register("Min", kVariadic, Variadic([](auto a, auto b) { return MinOf(a, b); }, false));
  Register("Sum", kVariadic, Variadic([](auto a, auto b) { return WrappingAdd(a, b); }, false));
  Register("Mean", kVariadic, Variadic([](auto a, auto b) { return WrappingAdd(a, b); }, true));
  Register("PRelu", kBinary, PReluKernel);
  Register("Clip", Arity{1, 3}, ClipKernel);

  Register("Neg", kUnary, NumericUnary([](KernelContext&) { return [](auto x) { return WrappingNeg(x); }; }));
  Register("Abs", kUnary, NumericUnary([](KernelContext&) {
    return []<class T>(T x) -> T {
      if constexpr (std::is_unsigned_v<T>) return x;
      else return x < 0 ? WrappingNeg(x) : x;
    };
  }));
  Register("Sign", kUnary, NumericUnary([](KernelContext&) {
    return []<class T>(T x) -> T {
      if constexpr (kIsFloat<T>) {
        if (std::isnan(x)) return x;
      }
      return x > 0 ? T(1) : (x < 0 ? static_cast<T>(-1) : T(0));
    };
  }));
  // Relu is max(0, x): NaN stays NaN.
  Register("Relu", kUnary, NumericUnary([](KernelContext&) { return []<class T>(T x) -> T { return x < 0 ? T(0) : x; }; }));
  Register("Shrink", kUnary, NumericUnary([](KernelContext& ctx) {
    const double bias = ctx.FloatAttribute("bias").value_or(0.0f);
    const double lambd = ctx.FloatAttribute("lambd").value_or(0.5f);
    return [bias, lambd]<class T>(T x) -> T {
      const double v = static_cast<double>(x);
      // Saturated in an integer type, like Cast (the attributes are any floats).
      if (v < -lambd) return ConvertNumber<T>(v + bias);
      if (v > lambd) return ConvertNumber<T>(v - bias);
      return T(0);
    };
  }));

  Register("Reciprocal", kUnary, SimpleFloatUnary([](auto x) { return decltype(x)(1) / x; }));
  Register("Sqrt", kUnary, SimpleFloatUnary([](auto x) { return std::sqrt(x); }));
  Register("Exp", kUnary, SimpleFloatUnary([](auto x) { return std::exp(x); }));
  Register("Log", kUnary, SimpleFloatUnary([](auto x) { return std::log(x); }));
  Register("Floor", kUnary, SimpleFloatUnary([](auto x) { return std::floor(x); }));
  Register("Ceil", kUnary, SimpleFloatUnary([](auto x) { return std::ceil(x); }));
  // nearbyint in the default rounding mode rounds half to even.
  Register("Round", kUnary, SimpleFloatUnary([](auto x) { return std::nearbyint(x); }));
  Register("Erf", kUnary, SimpleFloatUnary([](auto x) { return std::erf(x); }));
  Register("Sin", kUnary, SimpleFloatUnary([](auto x) { return std::sin(x); }));
  Register("Cos", kUnary, SimpleFloatUnary([](auto x) { return std::cos(x); }));
  Register("Tan", kUnary, SimpleFloatUnary([](auto x) { return std::tan(x); }));
  Register("Asin", kUnary, SimpleFloatUnary([](auto x) { return std::asin(x); }));
  Register("Acos", kUnary, SimpleFloatUnary([](auto x) { return std::acos(x); }));
  Register("Atan", kUnary, SimpleFloatUnary([](auto x) { return std::atan(x); }));
  Register("Sinh", kUnary, SimpleFloatUnary([](auto x) { return std::sinh(x); }));
  Register("Cosh", kUnary, SimpleFloatUnary([](auto x) { return std::cosh(x); }));
  Register("Asinh", kUnary, SimpleFloatUnary([](auto x) { return std::asinh(x); }));
  Register("Acosh", kUnary, SimpleFloatUnary([](auto x) { return std::acosh(x); }));
  Register("Atanh", kUnary, SimpleFloatUnary([](auto x) { return std::atanh(x); }));
  Register("Tanh", kUnary, SimpleFloatUnary([](auto x) { return std::tanh(x); }));
  Register("Sigmoid", kUnary, SimpleFloatUnary([](auto x) { return Sigmoid(x); }));
  Register("Softplus", kUnary, SimpleFloatUnary([](auto x) { return Softplus(x); }));
  Register("Softsign", kUnary, SimpleFloatUnary([](auto x) { return x / (decltype(x)(1) + std::fabs(x)); }));
  Register("Mish", kUnary, SimpleFloatUnary([](auto x) { return x * std::tanh(Softplus(x)); }));
  Register("HardSwish", kUnary, SimpleFloatUnary([]<class T>(T x) -> T {
    return x * std::max(T(0), std::min(T(1), x / T(6) + T(0.5)));
  }));

  Register("LeakyRelu", kUnary, FloatUnary([](KernelContext& ctx) {
    const double alpha = ctx.FloatAttribute("alpha").value_or(0.01f);
    return [alpha]<class T>(T x) -> T { return x < 0 ? static_cast<T>(alpha * x) : x; };
  }));
  Register("Elu", kUnary, FloatUnary([](KernelContext& ctx) {
    const double alpha = ctx.FloatAttribute("alpha").value_or(1.0f);
    return [alpha]<class T>(T x) -> T { return x < 0 ? static_cast<T>(alpha * std::expm1(static_cast<double>(x))) : x; };
  }));
  Register("Selu", kUnary, FloatUnary([](KernelContext& ctx) {
    const double alpha = ctx.FloatAttribute("alpha").value_or(1.67326319217681884765625f);
    const double gamma = ctx.FloatAttribute("gamma").value_or(1.05070102214813232421875f);
    return [alpha, gamma]<class T>(T x) -> T {
      const double v = static_cast<double>(x);
      return static_cast<T>(v <= 0 ? gamma * (alpha * std::exp(v) - alpha) : gamma * v);
    };
  }));
  Register("Celu", kUnary, FloatUnary([](KernelContext& ctx) {
    const double alpha = ctx.FloatAttribute("alpha").value_or(1.0f);
    return [alpha]<class T>(T x) -> T {
      const double v = static_cast<double>(x);
      if (std::isnan(v)) return x;
      return static_cast<T>(std::max(0.0, v) + std::min(0.0, alpha * std::expm1(v / alpha)));
    };
  }));
  // Swish (opset 24): x * sigmoid(alpha * x).
  Register("Swish", kUnary, FloatUnary([](KernelContext& ctx) {
    const double alpha = ctx.FloatAttribute("alpha").value_or(1.0f);
    return [alpha]<class T>(T x) -> T { return x * Sigmoid(static_cast<T>(alpha * x)); };
  }));
  Register("HardSigmoid", kUnary, FloatUnary([](KernelContext& ctx) {
    const double alpha = ctx.FloatAttribute("alpha").value_or(0.2f);
    const double beta = ctx.FloatAttribute("beta").value_or(0.5f);
    return [alpha, beta]<class T>(T x) -> T {
      if (std::isnan(x)) return x;
      return static_cast<T>(std::max(0.0, std::min(1.0, alpha * static_cast<double>(x) + beta)));
    };
  }));
  Register("ThresholdedRelu", kUnary, FloatUnary([](KernelContext& ctx) {
    const double alpha = ctx.FloatAttribute("alpha").value_or(1.0f);
    return [alpha]<class T>(T x) -> T { return static_cast<double>(x) > alpha ? x : T(0); };
  }));
  Register("Gelu", kUnary, FloatUnary([](KernelContext& ctx) {
    const bool tanh = StringAttributeIn(ctx, "approximate", "none", {"none", "tanh"}) == "tanh";
    return [tanh]<class T>(T x) -> T {
      const double v = static_cast<double>(x);
      if (tanh) {
        const double c = std::sqrt(2.0 / std::numbers::pi);
        return static_cast<T>(0.5 * v * (1 + std::tanh(c * (v + 0.044715 * v * v * v))));
      }
      return static_cast<T>(0.5 * v * (1 + std::erf(v / std::numbers::sqrt2)));
    };
  }));

  Register("IsNaN", kUnary, FloatPredicate([](KernelContext&) { return [](auto x) { return std::isnan(x); }; }));
  Register("IsInf", kUnary, FloatPredicate([](KernelContext& ctx) {
    const bool neg = ctx.IntAttribute("detect_negative").value_or(1) != 0;
    const bool pos = ctx.IntAttribute("detect_positive").value_or(1) != 0;
    return [neg, pos](auto x) { return std::isinf(x) && (x > 0 ? pos : neg); };
  }));
}

void RegisterLogic() {
  Register("Equal", kBinary, Comparison([](const auto& a, const auto& b) { return a == b; }, true));
  Register("Less", kBinary, Comparison([](const auto& a, const auto& b) { return a < b; }, false));
  Register("LessOrEqual", kBinary, Comparison([](const auto& a, const auto& b) { return a <= b; }, false));
  Register("Greater", kBinary, Comparison([](const auto& a, const auto& b) { return a > b; }, false));
  Register("GreaterOrEqual", kBinary, Comparison([](const auto& a, const auto& b) { return a >= b; }, false));
  Register("And", kBinary, Logical([](bool a, bool b) { return a && b; }));
  Register("Or", kBinary, Logical([](bool a, bool b) { return a || b; }));
  Register("Xor", kBinary, Logical([](bool a, bool b) { return a != b; }));
  Register("Not", kUnary, NotKernel);
  Register("BitwiseAnd", kBinary, Bitwise([](auto a, auto b) { return a & b; }));
  Register("BitwiseOr", kBinary, Bitwise([](auto a, auto b) { return a | b; }));
  Register("BitwiseXor", kBinary, Bitwise([](auto a, auto b) { return a ^ b; }));
  Register("BitwiseNot", kUnary, BitwiseNotKernel);
  Register("BitShift", kBinary, BitShiftKernel);
  Register("Where", Arity{3, 3}, WhereKernel);
  Register("Cast", kUnary, CastKernel);
  Register("CastLike", kBinary, CastLikeKernel);
  Register("BitCast", kUnary, BitCastKernel);
  Register("Identity", kUnary, IdentityKernel);
  Register("Dropout", Arity{1, 3, 1, 2}, DropoutKernel);
}

}  // namespace

void RegisterElementwiseKernels() {
  RegisterMath();
  RegisterLogic();
}

}  // namespace onnxopt::onnx_kernels
