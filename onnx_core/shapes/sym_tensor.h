#pragma once
// SymShape and SymTensor: what inference knows about a value.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/shapes/sym_dim.h"

namespace onnxopt::core::shapes {

// A shape of known or unknown rank; a known rank may have unknown dims.
class SymShape {
 public:
  SymShape() = default;  // unknown rank
  explicit SymShape(std::vector<SymDim> dims) : dims_(std::move(dims)) {}
  static SymShape UnknownRank() { return SymShape(); }
  static SymShape Scalar() { return SymShape(std::vector<SymDim>{}); }
  // Rank known, every dim unknown.
  static SymShape OfRank(std::size_t rank);

  bool HasRank() const { return dims_.has_value(); }
  std::size_t Rank() const;  // BuilderError when the rank is unknown
  const std::vector<SymDim>& Dims() const;  // BuilderError when the rank is unknown
  const SymDim& operator[](std::size_t i) const { return Dims()[i]; }
  // Every dim known (constant or symbolic).
  bool IsFullyKnown() const;
  // Every dim an integer.
  bool IsStatic() const;
  // Product of the dims (unknown when one is unknown); 1 for a scalar.
  SymDim NumElements() const;

  // Same rank and every dim equal (unknown dims are never equal).
  friend bool operator==(const SymShape& a, const SymShape& b);
  std::string ToString() const;  // "[batch,seq,64]", "[?]" for an unknown dim, "?" for unknown rank

  // From a TensorShapeProto: dim_value -> integer, dim_param -> symbol, neither -> unknown.
  // A dim_param is a name, never parsed: "2*s0" is a symbol of that name. A negative
  // dim_value is unknown.
  static SymShape FromProto(const onnx::TensorShapeProto& shape);
  // Replaces the dims of `shape`: dim_value for integers, dim_param for symbolic dims (the
  // name itself for a lone symbol, else ToString), nothing for unknown dims and negative
  // integers. BuilderError when the rank is unknown (a TensorShapeProto has a rank).
  void ToProto(onnx::TensorShapeProto& shape) const;

 private:
  std::optional<std::vector<SymDim>> dims_;
};

// A value as inference sees it: element type, shape, and for small integer tensors
// (shapes, indices, axes computed in the graph) the value of every element.
struct SymTensor {
  // Kinds of value other than tensors: sequence of tensors, optional.
  enum class Kind { kTensor, kSequence, kOptional, kUnknown };

  Kind kind = Kind::kTensor;
  int elem_type = 0;  // TensorProto::DataType; 0 = unknown. For sequences/optionals: of the element.
  SymShape shape;     // for sequences/optionals: shape of the element (unknown rank if they differ)
  // Row-major element values, present only for integer tensors of static shape with at
  // most kMaxValueElements elements whose every element is known or symbolic. An element
  // may itself be Unknown.
  std::optional<std::vector<SymDim>> value;

  static constexpr std::size_t kMaxValueElements = 64;

  static SymTensor Unknown() { return SymTensor{Kind::kUnknown, 0, SymShape(), std::nullopt}; }
  static SymTensor Tensor(int elem_type, SymShape shape) {
    return SymTensor{Kind::kTensor, elem_type, std::move(shape), std::nullopt};
  }
  // An integer tensor whose elements are known: shape [n] (or [] when `scalar`, which
  // needs exactly one value: BuilderError otherwise). Beyond kMaxValueElements values,
  // only the shape is kept.
  static SymTensor IntValues(int elem_type, std::vector<SymDim> values, bool scalar = false);

  bool HasElemType() const { return elem_type != 0; }
  bool HasValue() const { return value.has_value(); }
  // "int64[3] = [batch,8,-1]", "float[batch,seq,64]", "float?" (unknown rank), "?[2]"
  // (unknown element type), "seq(float[2])", "optional(int64[])", "?" (kUnknown).
  std::string ToString() const;

  // From a ValueInfo's type (tensor, sequence, optional); Unknown for other kinds.
  static SymTensor FromType(const TypeProto& type);
  // From an initializer or a Constant value: type, static shape, and the elements when
  // the tensor is a small integer one (INT64, INT32, ... and BOOL), its data inline.
  // A UINT64 element above INT64_MAX is an Unknown element.
  static SymTensor FromTensor(const TensorProto& tensor);
  // Whether `value` can hold the elements of this element type: the integer types and
  // BOOL (shapes, axes, indices, masks).
  static bool TracksValuesOf(int elem_type);
  // Replaces `type` by this type and shape (tensor, sequence or optional type; the shape
  // only when the rank is known). For kUnknown, `type` is left cleared.
  void ToType(TypeProto& type) const;
};

// Adds to `known` what `other`, a second inference of the same value, knows and `known`
// does not: the kind, the element type, the shape of an unknown rank, unknown dims, the
// elements' values. What `known` knows stays, symbols included (other values may share
// them); where the two disagree (kind, element type, rank), `known` is kept as it is.
// Returns whether `known` grew.
bool AddKnowledge(SymTensor& known, const SymTensor& other);

}  // namespace onnxopt::core::shapes
