#pragma once
// The float element types stored one code per byte: the float8 types E4M3FN, E4M3FNUZ,
// E5M2 and E5M2FNUZ, float8e8m0 (a power of two, no sign) and float4e2m1 (a 4-bit code,
// one per byte in a Tensor: tensor.h). Decoding them to float, and rounding floats to the
// four float8 types as Cast and QuantizeLinear define it (round to nearest even; out of
// range and infinities saturate or not per `saturate`) and to float4e2m1 (float4.md).

#include <cstdint>

namespace onnxopt::core::eval {

// The four float8 types FloatToFloat8 rounds to (not float8e8m0, whose rounding Cast
// chooses with its round_mode attribute).
bool IsFloat8(int elem_type);
// Whether the elements of `elem_type` are one-byte codes of a float format: the float8
// types, float8e8m0 and float4e2m1.
bool IsByteCodedFloat(int elem_type);
// Value of a code of the byte-coded float type `elem_type` (NaN for its NaN codes).
float ByteCodedFloatToFloat(std::uint8_t code, int elem_type);
// Code of `value` in the float8 type `elem_type`.
std::uint8_t FloatToFloat8(float value, int elem_type, bool saturate);
// Code of `value` in float4e2m1 (float4.md): round to nearest even, values beyond +-6 and
// infinities saturate to +-6, NaN gives 6; the sign of zero is kept.
std::uint8_t FloatToFloat4E2M1(float value);

// How Cast (from opset 24) rounds to float8e8m0, its round_mode attribute: to the power of
// two above, the one below, or the nearer one (ties, 1.5 * 2^k, go up).
enum class E8M0Rounding { kUp, kDown, kNearest };

// Code of `value` in float8e8m0 (float8.md; Cast): 2^k, k + 127 the code, for k the
// exponent `rounding` picks; NaN gives the NaN code 0xFF. A result beyond 2^127 or below
// 2^-127 (zero included; "up" lifts small values to 2^-127) is that bound with `saturate`
// and NaN without, as Cast's table gives it. Noted as undefined (NoteUndefinedResult):
// negative values and -0, whose result the spec leaves unspecified (computed from the
// magnitude), and infinities, zero and values below 2^-126, where the reference
// implementation, which rounds the float32 exponent field, departs from Cast's table.
std::uint8_t FloatToFloat8E8M0(float value, E8M0Rounding rounding, bool saturate);

}  // namespace onnxopt::core::eval
