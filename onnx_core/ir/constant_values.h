#pragma once
// The values of Constant nodes and sparse tensors as dense TensorProtos.

#include <optional>
#include <string>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

// The value of a Constant node as a tensor, whatever attribute holds it (value,
// value_float(s), value_int(s), value_string(s), sparse_value). nullopt when `node` is
// not a valid Constant. The tensor takes the node's output name.
std::optional<TensorProto> ConstantNodeValue(const NodeProto& node);

// The sparse_value of a Constant node (whose dense form may be huge: Densify applies
// the limit on tensor sizes), or null when `node` holds its value otherwise.
const SparseTensorProto* SparseConstantValue(const NodeProto& node);

// The dense form of a sparse tensor; nullopt when it is malformed (indices out of range
// or of the wrong shape, values of the wrong count), of a sub-byte element type, or when
// the dense form would be above the limit on tensor sizes (MaxTensorBytes) or not fit in
// a protobuf message (2 GiB). Then `why`, when given, receives the reason.
std::optional<TensorProto> Densify(const SparseTensorProto& sparse, std::string* why = nullptr);

}  // namespace onnxopt::core::ir
