#pragma once
// Facts about tensor element types and access to a tensor's bytes, whatever field of the
// TensorProto holds them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

// Name of an ONNX element type ("FLOAT", "BFLOAT16", ...), "UNDEFINED(n)" when unknown.
std::string ElementTypeName(int elem_type);

// Bits per element of a fixed-size element type (4 for INT4, 32 for FLOAT); nullopt for
// STRING and unknown types.
std::optional<int> ElementBits(int elem_type);

// Number of elements (product of dims); nullopt when a dim is negative or the product
// overflows int64.
std::optional<std::int64_t> ElementCount(const TensorProto& tensor);

// Size in bytes of the tensor's data in the raw_data layout (sub-byte types packed, the
// last byte padded), from its type and shape; nullopt for STRING, unknown types and
// invalid shapes.
std::optional<std::uint64_t> RawDataBytes(const TensorProto& tensor);

// Whether the tensor's data lives in an external file (data_location == EXTERNAL).
bool HasExternalData(const TensorProto& tensor);

// The tensor's data in the little-endian layout of raw_data, converted from the typed
// fields (float_data, int32_data, ...) when raw_data is not used. nullopt for STRING
// tensors, external data and inconsistent tensors.
std::optional<std::string> RawBytes(const TensorProto& tensor);

// Size in bytes of the tensor's data as stored (raw_data or typed fields), without
// converting anything; 0 for external data.
std::uint64_t StoredDataBytes(const TensorProto& tensor);

}  // namespace onnxopt::core::ir
