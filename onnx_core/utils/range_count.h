#pragma once
// RangeCount: the number of elements of ONNX Range(start, limit, delta) over integers,
// max(ceil((limit - start) / delta), 0), in 128 bits: limit - start may overflow the
// integer type. The Range kernel and Range's shape function both use it, so that they
// agree on every input.

namespace onnxopt::utils {

// `delta` must not be 0. The count may exceed int64 (INT64_MIN to INT64_MAX by 1): the
// caller decides what that means (the kernel refuses it, shape inference leaves it unknown).
inline __int128 RangeCount(__int128 start, __int128 limit, __int128 delta) {
  const __int128 span = limit - start;
  const __int128 count = span / delta + (span % delta != 0 && (span > 0) == (delta > 0) ? 1 : 0);
  return count > 0 ? count : 0;
}

}  // namespace onnxopt::utils
