#pragma once
// Facts about tensor element types and access to a tensor's bytes, whatever field of the
// TensorProto holds them.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

// Name of an ONNX element type ("FLOAT", "BFLOAT16", ...), "UNDEFINED(n)" when unknown.
std::string ElementTypeName(int elem_type);

// Bits per element of a fixed-size element type (4 for INT4, 32 for FLOAT); nullopt for
// STRING and unknown types.
std::optional<int> ElementBits(int elem_type);

// Number of elements of a tensor of shape `dims`: 0 when a dim is 0, whatever the others;
// nullopt when a dim is negative or the product of the dims overflows int64.
std::optional<std::int64_t> ElementCount(std::span<const std::int64_t> dims);
// The same for the tensor's dims.
std::optional<std::int64_t> ElementCount(const TensorProto& tensor);

// Size in bytes of the tensor's data in the raw_data layout (sub-byte types packed, the
// last byte padded), from its type and shape; nullopt for STRING, unknown types and
// invalid shapes.
std::optional<std::uint64_t> RawDataBytes(const TensorProto& tensor);

// Whether the tensor's data lives in an external file (data_location == EXTERNAL).
bool HasExternalData(const TensorProto& tensor);

// Size in bytes that the tensor's data as stored (raw_data, else the typed field of its
// element type) takes in the raw_data layout, computed without converting anything;
// nullopt for STRING, unknown types and external data. Equal to RawDataBytes when the
// data matches the shape.
std::optional<std::uint64_t> StoredRawDataBytes(const TensorProto& tensor);

// Why the tensor's data cannot be read as its type and shape say, checked from the sizes
// alone (nothing is copied or allocated): "declares 1073741824 elements of FLOAT
// (4294967296 bytes) but holds 4 bytes of data". nullopt when the sizes match, and for
// external data (its size is checked when it is loaded).
std::optional<std::string> DataSizeMismatch(const TensorProto& tensor);

// The tensor's data in the little-endian layout of raw_data, converted from the typed
// fields (float_data, int32_data, ...) when raw_data is not used. nullopt for STRING
// tensors, external data and inconsistent tensors.
std::optional<std::string> RawBytes(const TensorProto& tensor);

// Size in bytes of the tensor's data as stored (raw_data or typed fields), without
// converting anything; 0 for external data.
std::uint64_t StoredDataBytes(const TensorProto& tensor);

// --- The limit on tensor sizes --------------------------------------------------------
// No tensor above this limit (bytes of its elements as held in memory) is allocated by
// the evaluator, constant folding or shape inference, so that a small hostile file
// (ConstantOfShape of [2e9], an initializer declaring 2^30 elements) cannot exhaust the
// memory. Default: a quarter of the physical memory, read once from the system.

// The limit in force for the calling thread (the process-wide one, or a lower one set by
// a ScopedTensorLimit).
std::uint64_t MaxTensorBytes();
// Sets the process-wide limit; 0 restores the default.
void SetMaxTensorBytes(std::uint64_t bytes);
// The default: a quarter of the physical memory.
std::uint64_t DefaultMaxTensorBytes();

// Lowers the limit for the calling thread while it lives (never raises it): constant
// folding computes no tensor above its own output limit. `name` says in messages which
// limit was hit ("constant folding's output limit"); it must outlive this object. A
// scope that would not lower the limit keeps the enclosing one's value and name.
class ScopedTensorLimit {
 public:
  ScopedTensorLimit(std::uint64_t bytes, std::string_view name);
  ~ScopedTensorLimit();
  ScopedTensorLimit(const ScopedTensorLimit&) = delete;
  ScopedTensorLimit& operator=(const ScopedTensorLimit&) = delete;
  // The size of the last tensor refused because of this limit (UINT64_MAX when its size
  // overflowed), if any: lets the caller tell this refusal from other errors.
  std::optional<std::uint64_t> refused_bytes() const { return refused_bytes_; }

 private:
  friend std::optional<std::string> TensorSizeProblem(std::optional<std::uint64_t>, std::string_view);
  friend std::uint64_t MaxTensorBytes();
  ScopedTensorLimit* enclosing_;
  std::uint64_t bytes_;
  std::string_view name_;
  std::optional<std::uint64_t> refused_bytes_;
};

// Why a tensor described as `what` ("tensor float[2000000000]") that needs `bytes` bytes
// cannot be allocated: above MaxTensorBytes(), or nullopt `bytes` (its size overflows 64
// bits). The message gives the size, the limit and how to raise it. nullopt when it fits.
std::optional<std::string> TensorSizeProblem(std::optional<std::uint64_t> bytes, std::string_view what);
// Throws ModelError with that message when there is one.
void CheckTensorBytes(std::optional<std::uint64_t> bytes, std::string_view what);

}  // namespace onnxopt::core::ir
