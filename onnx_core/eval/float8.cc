#include "onnx_core/eval/float8.h"

#include <cmath>
#include <limits>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/eval/undefined_results.h"

namespace onnxopt::core::eval {

namespace {

struct Float8Format {
  int exponent_bits, mantissa_bits, bias;
  bool fnuz;          // one NaN (0x80), no negative zero, no infinity
  bool has_infinity;  // E5M2
};

Float8Format FormatOf(int elem_type) {
  switch (elem_type) {
    case kFloat8E4M3FN: return {4, 3, 7, false, false};
    case kFloat8E4M3FNUZ: return {4, 3, 8, true, false};
    case kFloat8E5M2: return {5, 2, 15, false, true};
    case kFloat8E5M2FNUZ: return {5, 2, 16, true, false};
    default: throw BuilderError("element type " + std::to_string(elem_type) + " is not a float8 type");
  }
}

float Decode(std::uint8_t bits, const Float8Format& f) {
  if (f.fnuz && bits == 0x80) return std::numeric_limits<float>::quiet_NaN();
  const bool negative = bits & 0x80;
  const int e = (bits >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
  const int m = bits & ((1 << f.mantissa_bits) - 1);
  const int max_e = (1 << f.exponent_bits) - 1;
  float v;
  if (!f.fnuz && !f.has_infinity && e == max_e && m == (1 << f.mantissa_bits) - 1) {
    v = std::numeric_limits<float>::quiet_NaN();
  } else if (f.has_infinity && e == max_e) {
    v = m == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  } else if (e == 0) {
    v = std::ldexp(static_cast<float>(m), 1 - f.bias - f.mantissa_bits);
  } else {
    v = std::ldexp(1.0f + static_cast<float>(m) / static_cast<float>(1 << f.mantissa_bits), e - f.bias);
  }
  return negative ? -v : v;
}

// The code among 0..max_code nearest to the magnitude `a` (at most value(max_code)), where
// `value` gives the magnitude of a positive code and grows with it; ties go to the even
// code (round to nearest even).
template <class Value>
std::uint8_t NearestCode(float a, int max_code, Value value) {
  int lo = 0, hi = max_code;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (value(mid) <= a) lo = mid;
    else hi = mid;
  }
  const float below = a - value(lo), above = value(hi) - a;
  if (below < above) return static_cast<std::uint8_t>(lo);
  if (below > above) return static_cast<std::uint8_t>(hi);
  return static_cast<std::uint8_t>((lo & 1) == 0 ? lo : hi);
}

// float4e2m1 (float4.md): S.EE.M with bias 1, no infinity, no NaN. Magnitude of the code
// without its sign bit (0 to 7: 0, 0.5, 1, 1.5, 2, 3, 4, 6).
float Float4Magnitude(int code) {
  const int e = (code >> 1) & 0x3;
  const float m = static_cast<float>(code & 0x1);
  return e == 0 ? 0.5f * m : std::ldexp(1.0f + 0.5f * m, e - 1);
}

}  // namespace

bool IsFloat8(int t) {
  return t == kFloat8E4M3FN || t == kFloat8E4M3FNUZ || t == kFloat8E5M2 || t == kFloat8E5M2FNUZ;
}

bool IsByteCodedFloat(int t) { return IsFloat8(t) || t == kFloat8E8M0 || t == kFloat4E2M1; }

float ByteCodedFloatToFloat(std::uint8_t code, int elem_type) {
  if (elem_type == kFloat8E8M0)  // 2^(code - 127); 0xFF is NaN (float8.md)
    return code == 0xFF ? std::numeric_limits<float>::quiet_NaN() : std::ldexp(1.0f, code - 127);
  if (elem_type == kFloat4E2M1) return (code & 0x8) ? -Float4Magnitude(code) : Float4Magnitude(code);
  return Decode(code, FormatOf(elem_type));
}

std::uint8_t FloatToFloat4E2M1(float x) {
  if (std::isnan(x)) return 0x7;  // 6
  const std::uint8_t sign = std::signbit(x) ? 0x8 : 0;
  const float a = std::fabs(x);
  // From 6 on (infinity too) the code saturates at 6, code 7.
  const std::uint8_t code = a >= Float4Magnitude(7) ? 7 : NearestCode(a, 7, Float4Magnitude);
  return code | sign;
}

std::uint8_t FloatToFloat8E8M0(float x, E8M0Rounding rounding, bool saturate) {
  constexpr std::uint8_t kNaN = 0xFF, kMaxCode = 0xFE, kMinCode = 0;
  if (std::isnan(x)) return kNaN;
  if (std::signbit(x)) NoteUndefinedResult("a negative value or -0 cast to float8e8m0");
  const float a = std::fabs(x);
  if (std::isinf(a) || a < std::numeric_limits<float>::min())
    NoteUndefinedResult("an infinity, zero or a value below 2^-126 cast to float8e8m0");
  if (std::isinf(a)) return saturate ? kMaxCode : kNaN;
  if (a == 0) return rounding == E8M0Rounding::kUp || saturate ? kMinCode : kNaN;
  int e = 0;
  const float fraction = std::frexp(a, &e);  // a = fraction * 2^e, fraction in [0.5, 1)
  const int below = e - 1;                   // 2^below <= a < 2^(below + 1)
  const bool power = fraction == 0.5f;
  int k = below;
  if (rounding == E8M0Rounding::kUp && !power) k = below + 1;
  if (rounding == E8M0Rounding::kNearest && fraction >= 0.75f) k = below + 1;  // a >= 1.5 * 2^below
  const int code = k + 127;
  if (code > kMaxCode) return saturate ? kMaxCode : kNaN;
  if (code < kMinCode) return rounding == E8M0Rounding::kUp || saturate ? kMinCode : kNaN;
  return static_cast<std::uint8_t>(code);
}

std::uint8_t FloatToFloat8(float x, int elem_type, bool saturate) {
  const Float8Format f = FormatOf(elem_type);
  const std::uint8_t nan = f.fnuz ? 0x80 : 0x7F;
  if (std::isnan(x)) return nan;
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0;
  // Largest finite positive code.
  const std::uint8_t max_code = f.fnuz ? 0x7F : (f.has_infinity ? 0x7B : 0x7E);
  auto overflow = [&]() -> std::uint8_t {
    if (saturate) return max_code | sign;
    if (f.has_infinity) return 0x7C | sign;
    return f.fnuz ? nan : (0x7F | sign);
  };
  const float a = std::fabs(x);
  if (std::isinf(a)) return overflow();
  const float max_v = Decode(max_code, f);
  const float beyond = 2 * max_v - Decode(max_code - 1, f);  // max + one ulp
  std::uint8_t code;
  if (a >= max_v) {
    const float mid = (max_v + beyond) / 2;
    // The code after max_code is odd in every format: ties go to max_code... unless max_code is odd.
    if (a < mid || (a == mid && (max_code & 1) == 0)) code = max_code;
    else return overflow();
  } else {
    code = NearestCode(a, max_code, [&](int c) { return Decode(static_cast<std::uint8_t>(c), f); });
  }
  if (code == 0 && f.fnuz) return 0;
  return code | sign;
}

}  // namespace onnxopt::core::eval
