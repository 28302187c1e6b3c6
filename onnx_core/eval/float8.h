#pragma once
// The float8 element types (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ) as bit patterns: decoding
// to float and rounding floats to them as Cast and QuantizeLinear define it
// (round to nearest even; out of range and infinities saturate or not per `saturate`).

#include <cstdint>

namespace onnxopt::core::eval {

bool IsFloat8(int elem_type);
// Value of a code of the float8 type `elem_type` (NaN for its NaN codes).
float Float8ToFloat(std::uint8_t bits, int elem_type);
// Code of `value` in the float8 type `elem_type`.
std::uint8_t FloatToFloat8(float value, int elem_type, bool saturate);

}  // namespace onnxopt::core::eval
