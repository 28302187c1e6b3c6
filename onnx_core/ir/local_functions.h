#pragma once
// Local functions (ModelProto.functions): finding the function a node calls and
// instantiating its body for one call. Shared by shape inference and the evaluator.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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

// What one call of a local function costs once every call nested in it is expanded.
struct CallExpansion {
  // Nodes run: the body's (nested graphs counted once), plus those of each call it makes,
  // expanded; saturates at UINT64_MAX.
  std::uint64_t nodes = 0;
  // Calls nested in one another, this one included: 1 for a body that calls no function.
  std::uint64_t depth = 0;
  // A function reachable from this one that calls itself (directly or through others),
  // or null. Then `nodes` and `depth` are meaningless.
  const FunctionProto* recursive = nullptr;
};

// The expansions of a model's local functions, each computed once (in time linear in
// the size of the functions, whatever their expansion: 40 functions each calling the
// next twice expand to 2^40 calls). `resolve` tells which function a node calls, null
// for an operator: the evaluator and shape inference look for a kernel or a shape
// function first. `resolve` and the functions must outlive this object.
class CallExpansions {
 public:
  explicit CallExpansions(std::function<const FunctionProto*(const NodeProto&)> resolve);
  const CallExpansion& Of(const FunctionProto& function);

 private:
  struct Entry {
    enum class State { kNew, kActive, kDone };
    State state = State::kNew;
    std::vector<const FunctionProto*> calls;  // one per call node, in the body and its nested graphs
    CallExpansion expansion;                  // nodes: the body's own until kDone
  };
  Entry& Prepare(const FunctionProto& function);
  std::function<const FunctionProto*(const NodeProto&)> resolve_;
  std::unordered_map<const FunctionProto*, Entry> entries_;
};

// The body of `function` as called by `call`: attributes referring to the function's
// (ref_attr_name) take the call's value, else the function's default (IR 9
// attribute_proto), and are dropped when neither gives one, as ONNX does (nested graphs
// included); formal inputs the call leaves out become empty names (omitted optional inputs).
google::protobuf::RepeatedPtrField<NodeProto> InstantiateFunctionBody(const FunctionProto& function,
                                                                      const NodeProto& call);

}  // namespace onnxopt::core::ir
