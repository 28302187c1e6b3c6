#pragma once
// Reading a node's attributes with their types checked, shared by the shape-function
// and kernel contexts.

#include <string_view>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

// The attribute's type: the declared one, or the one its fields imply when the type is
// unset (very old models); UNDEFINED when neither tells (an empty list).
AttributeProto::AttributeType AttributeTypeOf(const AttributeProto& attr);

// The attribute named `name`, or null.
const AttributeProto* FindAttribute(const NodeProto& node, std::string_view name);

// The attribute `name` when it has type `expected` (the declared type, or the one its
// fields imply when `type` is unset, as in very old models); null when absent. A
// present attribute of another type is a malformed model: ModelError, so that callers
// never fall back to a default value.
const AttributeProto* TypedAttribute(const NodeProto& node, std::string_view name,
                                     AttributeProto::AttributeType expected);

}  // namespace onnxopt::core::ir
