#include "onnx_core/ir/attributes.h"

#include <string>

#include "onnx_core/common/error.h"

namespace onnxopt::core::ir {

namespace {

const char* TypeName(AttributeProto::AttributeType type) {
  const std::string& name = AttributeProto::AttributeType_Name(type);
  return name.empty() ? "UNDEFINED" : name.c_str();
}

}  // namespace

AttributeProto::AttributeType AttributeTypeOf(const AttributeProto& attr) {
  using A = AttributeProto;
  if (attr.type() != A::UNDEFINED) return attr.type();
  if (attr.has_i()) return A::INT;
  if (attr.has_f()) return A::FLOAT;
  if (attr.has_s()) return A::STRING;
  if (attr.has_t()) return A::TENSOR;
  if (attr.has_g()) return A::GRAPH;
  if (attr.ints_size() > 0) return A::INTS;
  if (attr.floats_size() > 0) return A::FLOATS;
  if (attr.strings_size() > 0) return A::STRINGS;
  return A::UNDEFINED;
}

const AttributeProto* FindAttribute(const NodeProto& node, std::string_view name) {
  for (const AttributeProto& attr : node.attribute())
    if (attr.name() == name) return &attr;
  return nullptr;
}

const AttributeProto* TypedAttribute(const NodeProto& node, std::string_view name,
                                     AttributeProto::AttributeType expected) {
  const AttributeProto* attr = FindAttribute(node, name);
  if (!attr) return nullptr;
  const AttributeProto::AttributeType actual = AttributeTypeOf(*attr);
  if (actual == expected) return attr;
  // An empty list has no field to tell its type from.
  if (attr->type() == AttributeProto::UNDEFINED && actual == AttributeProto::UNDEFINED &&
      (expected == AttributeProto::INTS || expected == AttributeProto::FLOATS || expected == AttributeProto::STRINGS))
    return attr;
  throw ModelError("attribute '" + std::string(name) + "' is " + TypeName(actual) + ", expected " +
                   TypeName(expected));
}

}  // namespace onnxopt::core::ir
