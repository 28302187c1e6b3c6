#include "onnx_core/shapes/sym_tensor.h"

#include <cctype>
#include <cstring>
#include <limits>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::shapes {

// ---- SymShape ----

SymShape SymShape::OfRank(std::size_t rank) { return SymShape(std::vector<SymDim>(rank)); }

std::size_t SymShape::Rank() const { return Dims().size(); }

const std::vector<SymDim>& SymShape::Dims() const {
  if (!dims_) throw BuilderError("SymShape: expected a shape of known rank, found an unknown rank");
  return *dims_;
}

bool SymShape::IsFullyKnown() const {
  if (!dims_) return false;
  for (const SymDim& d : *dims_)
    if (d.IsUnknown()) return false;
  return true;
}

bool SymShape::IsStatic() const {
  if (!dims_) return false;
  for (const SymDim& d : *dims_)
    if (!d.IsConstant()) return false;
  return true;
}

SymDim SymShape::NumElements() const {
  if (!dims_) return SymDim::Unknown();
  SymDim n(1);
  for (const SymDim& d : *dims_) n = n * d;
  return n;
}

bool operator==(const SymShape& a, const SymShape& b) {
  if (!a.dims_ || !b.dims_ || a.dims_->size() != b.dims_->size()) return false;
  for (std::size_t i = 0; i < a.dims_->size(); ++i)
    if ((*a.dims_)[i] != (*b.dims_)[i]) return false;
  return true;
}

std::string SymShape::ToString() const {
  if (!dims_) return "?";
  std::string out = "[";
  for (std::size_t i = 0; i < dims_->size(); ++i) {
    if (i > 0) out += ',';
    out += (*dims_)[i].ToString();
  }
  out += ']';
  return out;
}

SymShape SymShape::FromProto(const onnx::TensorShapeProto& shape) {
  std::vector<SymDim> dims;
  dims.reserve(static_cast<std::size_t>(shape.dim_size()));
  for (const auto& dim : shape.dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      dims.emplace_back(dim.dim_value());
    } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
      // A dim_param is a name, never parsed as an expression: "a*2" is its own symbol.
      dims.push_back(SymDim::Symbol(dim.dim_param()));
    } else {
      dims.emplace_back();
    }
  }
  return SymShape(std::move(dims));
}

void SymShape::ToProto(onnx::TensorShapeProto& shape) const {
  const std::vector<SymDim>& dims = Dims();  // an unknown rank has no TensorShapeProto
  shape.clear_dim();
  for (const SymDim& d : dims) {
    auto* dim = shape.add_dim();
    if (d.IsUnknown()) continue;
    if (auto c = d.Constant()) {
      if (*c >= 0) dim->set_dim_value(*c);
      continue;
    }
    std::vector<std::string> symbols = d.Symbols();
    if (symbols.size() == 1 && d == SymDim::Symbol(symbols[0])) {
      dim->set_dim_param(symbols[0]);  // the name itself, even when ToString quotes it
    } else {
      dim->set_dim_param(d.ToString());
    }
  }
}

// ---- SymTensor ----

namespace {

std::string TypeName(int elem_type) {
  if (elem_type == 0) return "?";
  std::string name = ir::ElementTypeName(elem_type);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// Width in bytes and signedness of the integer types whose values inference tracks.
struct IntLayout {
  int bytes;
  bool is_signed;
};

std::optional<IntLayout> IntegerLayout(int elem_type) {
  switch (elem_type) {
    case TensorProto::INT64: return IntLayout{8, true};
    case TensorProto::INT32: return IntLayout{4, true};
    case TensorProto::INT16: return IntLayout{2, true};
    case TensorProto::INT8: return IntLayout{1, true};
    case TensorProto::UINT64: return IntLayout{8, false};
    case TensorProto::UINT32: return IntLayout{4, false};
    case TensorProto::UINT16: return IntLayout{2, false};
    case TensorProto::UINT8: return IntLayout{1, false};
    case TensorProto::BOOL: return IntLayout{1, false};
    default: return std::nullopt;
  }
}

std::optional<std::vector<SymDim>> ReadIntValues(const TensorProto& tensor, IntLayout layout, std::int64_t count) {
  std::optional<std::string> bytes = ir::RawBytes(tensor);
  if (!bytes || bytes->size() != static_cast<std::size_t>(count) * static_cast<std::size_t>(layout.bytes))
    return std::nullopt;
  std::vector<SymDim> values;
  values.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes->data()) + i * layout.bytes;
    std::uint64_t u = 0;
    for (int b = 0; b < layout.bytes; ++b) u |= static_cast<std::uint64_t>(p[b]) << (8 * b);  // little endian
    if (tensor.data_type() == TensorProto::BOOL) {
      values.emplace_back(std::int64_t{u != 0 ? 1 : 0});
    } else if (layout.is_signed) {
      const int shift = 64 - 8 * layout.bytes;  // sign-extend
      values.emplace_back(static_cast<std::int64_t>(u << shift) >> shift);
    } else if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      values.emplace_back();  // a uint64 beyond int64: not representable
    } else {
      values.emplace_back(static_cast<std::int64_t>(u));
    }
  }
  return values;
}

}  // namespace

SymTensor SymTensor::IntValues(int elem_type, std::vector<SymDim> values, bool scalar) {
  if (scalar && values.size() != 1)
    throw BuilderError("SymTensor::IntValues: expected one value for a scalar, found " +
                       std::to_string(values.size()));
  SymShape shape = scalar ? SymShape::Scalar()
                          : SymShape(std::vector<SymDim>{SymDim(static_cast<std::int64_t>(values.size()))});
  SymTensor t = Tensor(elem_type, std::move(shape));
  if (values.size() <= kMaxValueElements) t.value = std::move(values);
  return t;
}

std::string SymTensor::ToString() const {
  switch (kind) {
    case Kind::kUnknown:
      return "?";
    case Kind::kSequence:
      return "seq(" + TypeName(elem_type) + shape.ToString() + ")";
    case Kind::kOptional:
      return "optional(" + TypeName(elem_type) + shape.ToString() + ")";
    case Kind::kTensor:
      break;
  }
  std::string out = TypeName(elem_type) + shape.ToString();
  if (value) {
    out += " = [";
    for (std::size_t i = 0; i < value->size(); ++i) {
      if (i > 0) out += ',';
      out += (*value)[i].ToString();
    }
    out += ']';
  }
  return out;
}

SymTensor SymTensor::FromType(const TypeProto& type) {
  switch (type.value_case()) {
    case TypeProto::kTensorType: {
      const auto& tt = type.tensor_type();
      return Tensor(tt.elem_type(), tt.has_shape() ? SymShape::FromProto(tt.shape()) : SymShape::UnknownRank());
    }
    case TypeProto::kSequenceType: {
      if (!type.sequence_type().has_elem_type()) return SymTensor{Kind::kSequence, 0, SymShape(), std::nullopt};
      SymTensor element = FromType(type.sequence_type().elem_type());
      if (element.kind != Kind::kTensor) return Unknown();
      return SymTensor{Kind::kSequence, element.elem_type, std::move(element.shape), std::nullopt};
    }
    case TypeProto::kOptionalType: {
      if (!type.optional_type().has_elem_type()) return Unknown();
      SymTensor element = FromType(type.optional_type().elem_type());
      if (element.kind != Kind::kTensor) return Unknown();  // optional(sequence) is not represented
      return SymTensor{Kind::kOptional, element.elem_type, std::move(element.shape), std::nullopt};
    }
    default:
      return Unknown();
  }
}

bool SymTensor::TracksValuesOf(int elem_type) { return IntegerLayout(elem_type).has_value(); }

SymTensor SymTensor::FromTensor(const TensorProto& tensor) {
  std::vector<SymDim> dims;
  dims.reserve(static_cast<std::size_t>(tensor.dims_size()));
  for (std::int64_t d : tensor.dims()) dims.push_back(d >= 0 ? SymDim(d) : SymDim::Unknown());
  SymTensor t = Tensor(tensor.data_type(), SymShape(std::move(dims)));
  auto layout = IntegerLayout(tensor.data_type());
  auto count = ir::ElementCount(tensor);
  if (layout && count && static_cast<std::uint64_t>(*count) <= kMaxValueElements && !ir::HasExternalData(tensor))
    t.value = ReadIntValues(tensor, *layout, *count);
  return t;
}

namespace {

// Whether `other` (same length) knows an element `known` does not.
bool KnowsMore(const std::vector<SymDim>& known, const std::vector<SymDim>& other) {
  for (std::size_t i = 0; i < known.size(); ++i)
    if (known[i].IsUnknown() && other[i].IsKnown()) return true;
  return false;
}

// Fills the unknown elements of `known` from `other` (same length); whether any was.
bool FillUnknown(std::vector<SymDim>& known, const std::vector<SymDim>& other) {
  bool grew = false;
  for (std::size_t i = 0; i < known.size(); ++i)
    if (known[i].IsUnknown() && other[i].IsKnown()) {
      known[i] = other[i];
      grew = true;
    }
  return grew;
}

}  // namespace

bool AddKnowledge(SymTensor& known, const SymTensor& other) {
  if (other.kind == SymTensor::Kind::kUnknown) return false;
  if (known.kind == SymTensor::Kind::kUnknown) {
    known = other;
    return true;
  }
  if (known.kind != other.kind) return false;
  if (known.HasElemType() && other.HasElemType() && known.elem_type != other.elem_type) return false;
  if (known.shape.HasRank() && other.shape.HasRank() && known.shape.Rank() != other.shape.Rank()) return false;

  bool grew = false;
  if (!known.HasElemType() && other.HasElemType()) {
    known.elem_type = other.elem_type;
    grew = true;
  }
  if (!known.shape.HasRank() && other.shape.HasRank()) {
    known.shape = other.shape;
    grew = true;
  } else if (other.shape.HasRank() && KnowsMore(known.shape.Dims(), other.shape.Dims())) {
    std::vector<SymDim> dims = known.shape.Dims();
    FillUnknown(dims, other.shape.Dims());
    known.shape = SymShape(std::move(dims));
    grew = true;
  }
  if (other.HasValue()) {
    if (!known.HasValue()) {
      // The elements are those of a static shape: only one that agrees with `known`'s.
      if (known.shape == other.shape) {
        known.value = other.value;
        grew = true;
      }
    } else if (known.value->size() == other.value->size()) {
      grew = FillUnknown(*known.value, *other.value) || grew;
    }
  }
  return grew;
}

void SymTensor::ToType(TypeProto& type) const {
  type.Clear();
  onnx::TypeProto_Tensor* tt = nullptr;
  switch (kind) {
    case Kind::kUnknown:
      return;
    case Kind::kTensor:
      tt = type.mutable_tensor_type();
      break;
    case Kind::kSequence:
      tt = type.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type();
      break;
    case Kind::kOptional:
      tt = type.mutable_optional_type()->mutable_elem_type()->mutable_tensor_type();
      break;
  }
  if (elem_type != 0) tt->set_elem_type(elem_type);
  if (shape.HasRank()) shape.ToProto(*tt->mutable_shape());
}

}  // namespace onnxopt::core::shapes
