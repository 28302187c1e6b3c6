#pragma once
// Local functions (ModelProto.functions): finding the function a node calls and
// instantiating its body for one call. Shared by shape inference and the evaluator.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

// Version imported for `domain` by `imports` ("" and "ai.onnx" are one domain); nullopt
// when absent.
std::optional<std::int64_t> FindOpsetVersion(const google::protobuf::RepeatedPtrField<OperatorSetIdProto>& imports,
                                             std::string_view domain);

// The local functions of a model by (domain, name, overload). The functions must outlive it.
class LocalFunctions {
 public:
  explicit LocalFunctions(const google::protobuf::RepeatedPtrField<FunctionProto>& functions);
  // The function `node` calls (its domain, op_type and overload), or null.
  const FunctionProto* Find(const NodeProto& node) const;
  bool empty() const { return index_.empty(); }

 private:
  std::unordered_map<std::string, const FunctionProto*> index_;
};

// The body of `function` as called by `call`: attributes referring to the function's
// (ref_attr_name) take the call's value, else the function's default (IR 9
// attribute_proto), and are dropped when neither gives one, as ONNX does (nested graphs
// included); formal inputs the call leaves out become empty names (omitted optional inputs).
google::protobuf::RepeatedPtrField<NodeProto> InstantiateFunctionBody(const FunctionProto& function,
                                                                      const NodeProto& call);

}  // namespace onnxopt::core::ir
