#pragma once
// Owning containers of protobuf messages.
//
// RepeatedProtoField<T> is protobuf's RepeatedPtrField<T>: it stores pointers, so moving
// or swapping a field moves pointers and never deep-copies a NodeProto or TensorProto.

#include <google/protobuf/repeated_ptr_field.h>

namespace onnxopt::utils {

template <class T>
using RepeatedProtoField = google::protobuf::RepeatedPtrField<T>;

}  // namespace onnxopt::utils
