#pragma once
// Operator memory traits: which outputs of a node share an input's buffer
// (views, in-place writers), which inputs a node writes in place or clobbers as
// scratch, and which inputs must sit in one contiguous block (spec:
// shared/docs/copy-elimination.md §3.2).
//
// The registry lives in the core so that the copy-elimination pass and the
// evaluator can ask it without linking operator knowledge;
// onnx_memory::RegisterMemoryTraits() (onnx_extensions/memory) fills it with
// the ONNX operators, and applications add their custom operators with
// RegisterOpMemoryTraits.

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::memory {

struct OpMemoryTraits {
  // (output k, input j): output k is input j's buffer (a view or an in-place
  // writer's result).
  std::vector<std::pair<int, int>> aliases;
  // Inputs written in place; each must also be aliased by an output (RW type
  // Writeable).
  std::vector<int> writes;
  // Inputs overwritten as scratch, aliased by no output (RW type
  // ScopeWriteable).
  std::vector<int> clobbers;
  // Inputs that must be laid out in one contiguous block (CONTINUOUS_INPUT,
  // Rule 5).
  std::vector<int> continuous_inputs;
  friend bool operator==(const OpMemoryTraits&, const OpMemoryTraits&) = default;
};

// What a traits function may ask about the node's values, from shape inference:
// `type_of(value)` is the element type (0 when unknown); `type_of.SameShape(a, b)`
// is true when both values have one known shape (every dim known or the same symbol).
class ElementTypeQuery {
 public:
  using ElementType = std::function<int(std::string_view value)>;
  using ShapeEquality = std::function<bool(std::string_view a, std::string_view b)>;
  ElementTypeQuery() = default;
  template <typename F>
    requires std::is_invocable_r_v<int, F, std::string_view>
  ElementTypeQuery(F element_type, ShapeEquality same_shape = {})  // NOLINT(runtime/explicit): a plain query
      : element_type_(std::move(element_type)), same_shape_(std::move(same_shape)) {}

  int operator()(std::string_view value) const { return element_type_ ? element_type_(value) : 0; }
  explicit operator bool() const { return static_cast<bool>(element_type_); }
  bool SameShape(std::string_view a, std::string_view b) const { return same_shape_ && same_shape_(a, b); }

 private:
  ElementType element_type_;
  ShapeEquality same_shape_;
};

// The traits of one node. `enabled_by` names the in-place family ("scatter",
// "tensor_scatter", "gqa", or a custom one) that switches the writer entries
// on; an empty family means always on (views). A function returns nullopt when
// the node, as written, has no memory behaviour (e.g. a Cast that changes the
// element type).
struct OpMemoryTraitsEntry {
  std::string enabled_by;
  std::function<std::optional<OpMemoryTraits>(const NodeProto& node, const ElementTypeQuery& type_of)> traits;
};

// Registers (or replaces) the entry of (domain, op_type); "" and "ai.onnx" are
// one domain.
void RegisterOpMemoryTraits(std::string_view domain, std::string_view op_type, OpMemoryTraitsEntry entry);
const OpMemoryTraitsEntry* FindOpMemoryTraits(std::string_view domain, std::string_view op_type);

// The in-place writer families known to the built-in registration.
const std::set<std::string>& BuiltinInPlaceFamilies();

// The traits of `node` under the enabled writer families: views always, writer
// entries only when their family is in `enabled_families`. Nodes without an
// entry have none.
OpMemoryTraits TraitsOf(const NodeProto& node, const ElementTypeQuery& type_of,
                        const std::set<std::string>& enabled_families);

// The domain and op type of the copy node that the planner inserts and that
// carries the reserved attributes (§8.2).
inline constexpr std::string_view kCopyDomain = "ai.onnxopt";
inline constexpr std::string_view kCopyOpType = "TensorMove";

}  // namespace onnxopt::core::memory
