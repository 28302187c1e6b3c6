#include "onnx_extensions/shapes/shape_helpers.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <set>

#include "onnx_core/ir/tensor_data.h"
#include "onnx_extensions/shapes/shape_rules.h"

namespace onnxopt::onnx_shapes {

namespace {

// TensorProto::DataType numbers (the later ones are not in the onnx 1.12 enum).
enum DataType : int {
  kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7, kString = 8,
  kBool = 9, kFloat16 = 10, kDouble = 11, kUint32 = 12, kUint64 = 13, kBfloat16 = 16,
  kFloat8E4M3FN = 17, kFloat8E4M3FNUZ = 18, kFloat8E5M2 = 19, kFloat8E5M2FNUZ = 20, kFloat4E2M1 = 23,
};

// Constant inputs larger than this are not decoded (they are weights, not shapes).
constexpr std::int64_t kMaxDecodedElements = 1 << 16;

template <typename T>
T Load(const std::string& bytes, std::size_t index) {
  T v;
  std::memcpy(&v, bytes.data() + index * sizeof(T), sizeof(T));
  return v;
}

float HalfToFloat(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {
      exponent = 127 - 15 + 1;
      while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        --exponent;
      }
      mantissa &= 0x3ffu;
      bits = sign | (exponent << 23) | (mantissa << 13);
    }
  } else if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

// The elements of a constant integer (or BOOL) tensor; UINT64 values beyond int64 are
// unknown elements.
std::optional<std::vector<SymDim>> DecodeInts(const TensorProto& tensor) {
  auto count = core::ir::ElementCount(tensor);
  if (!count || *count > kMaxDecodedElements) return std::nullopt;
  const int type = tensor.data_type();
  if (!IsValueType(type)) return std::nullopt;
  auto bytes = core::ir::RawBytes(tensor);
  if (!bytes) return std::nullopt;
  auto bits = core::ir::ElementBits(type);
  if (!bits || *bits % 8 != 0) return std::nullopt;
  const auto n = static_cast<std::size_t>(*count);
  if (bytes->size() < n * static_cast<std::size_t>(*bits / 8)) return std::nullopt;
  std::vector<SymDim> out;
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    switch (type) {
      case kUint8: out.emplace_back(static_cast<std::int64_t>(Load<std::uint8_t>(*bytes, k))); break;
      case kBool: out.emplace_back(static_cast<std::int64_t>(Load<std::uint8_t>(*bytes, k) != 0)); break;
      case kInt8: out.emplace_back(static_cast<std::int64_t>(Load<std::int8_t>(*bytes, k))); break;
      case kUint16: out.emplace_back(static_cast<std::int64_t>(Load<std::uint16_t>(*bytes, k))); break;
      case kInt16: out.emplace_back(static_cast<std::int64_t>(Load<std::int16_t>(*bytes, k))); break;
      case kInt32: out.emplace_back(static_cast<std::int64_t>(Load<std::int32_t>(*bytes, k))); break;
      case kUint32: out.emplace_back(static_cast<std::int64_t>(Load<std::uint32_t>(*bytes, k))); break;
      case kInt64: out.emplace_back(Load<std::int64_t>(*bytes, k)); break;
      case kUint64: {
        auto v = Load<std::uint64_t>(*bytes, k);
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
          out.push_back(SymDim::Unknown());
        else
          out.emplace_back(static_cast<std::int64_t>(v));
        break;
      }
      default: return std::nullopt;
    }
  }
  return out;
}

}  // namespace

int InputElemType(const InferenceContext& ctx, std::size_t i) { return ctx.HasInput(i) ? ctx.Input(i).elem_type : 0; }

SymShape InputShape(const InferenceContext& ctx, std::size_t i) {
  if (!ctx.HasInput(i)) return SymShape();
  const SymTensor& t = ctx.Input(i);
  if (t.kind != SymTensor::Kind::kTensor) return SymShape();
  return t.shape;
}

bool IsIntegerType(int elem_type) {
  switch (elem_type) {
    case kUint8: case kInt8: case kUint16: case kInt16: case kInt32: case kInt64: case kUint32: case kUint64:
      return true;
    default:
      return false;
  }
}

bool IsFloatType(int elem_type) {
  switch (elem_type) {
    case kFloat: case kFloat16: case kDouble: case kBfloat16: case kFloat8E4M3FN: case kFloat8E4M3FNUZ:
    case kFloat8E5M2: case kFloat8E5M2FNUZ: case kFloat4E2M1:
      return true;
    default:
      return false;
  }
}

bool IsValueType(int elem_type) { return IsIntegerType(elem_type) || elem_type == kBool; }

std::optional<std::int64_t> NormalizeAxis(std::int64_t axis, std::int64_t rank) {
  if (rank < 0 || axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::optional<std::vector<std::int64_t>> NormalizeAxes(const std::vector<std::int64_t>& axes, std::int64_t rank) {
  std::vector<std::int64_t> out;
  std::set<std::int64_t> seen;
  for (std::int64_t a : axes) {
    auto n = NormalizeAxis(a, rank);
    if (!n || !seen.insert(*n).second) return std::nullopt;
    out.push_back(*n);
  }
  return out;
}

std::optional<std::int64_t> NormalizeAxis(InferenceContext& ctx, std::int64_t axis, std::int64_t rank,
                                          std::string_view what) {
  auto n = NormalizeAxis(axis, rank);
  if (!n) {
    RefuseNode(ctx, std::string(what) + " is in [-r, r-1] for r = " + std::to_string(rank),
               std::string(what) + " " + std::to_string(axis));
  }
  return n;
}

std::optional<std::vector<std::int64_t>> NormalizeAxes(InferenceContext& ctx, const std::vector<std::int64_t>& axes,
                                                       std::int64_t rank, std::string_view what) {
  std::vector<std::int64_t> out;
  std::set<std::int64_t> seen;
  for (std::int64_t a : axes) {
    const std::int64_t n = *NormalizeAxis(ctx, a, rank, what);
    if (!seen.insert(n).second) {
      ctx.Diagnose(std::string(what) + " has axis " + std::to_string(a) + " twice");
      return std::nullopt;
    }
    out.push_back(n);
  }
  return out;
}

SymDim BroadcastDim(const SymDim& a, const SymDim& b, bool* incompatible) {
  auto ca = a.Constant();
  auto cb = b.Constant();
  if (ca && *ca == 1) return b;
  if (cb && *cb == 1) return a;
  if (a.IsKnown() && a == b) return a;
  if (ca && cb) {
    if (incompatible) *incompatible = true;
    return SymDim::Unknown();
  }
  // A constant c != 1 against a symbol or an unknown: the other must be 1 or c in a
  // valid model, and both give c.
  if (ca) return a;
  if (cb) return b;
  return SymDim::Unknown();
}

SymShape BroadcastShapes(const std::vector<SymShape>& shapes, bool* incompatible) {
  std::size_t rank = 0;
  for (const auto& s : shapes) {
    if (!s.HasRank()) return SymShape::UnknownRank();
    rank = std::max(rank, s.Rank());
  }
  std::vector<SymDim> dims(rank, SymDim(1));
  for (const auto& s : shapes) {
    const std::size_t offset = rank - s.Rank();
    for (std::size_t k = 0; k < s.Rank(); ++k) dims[offset + k] = BroadcastDim(dims[offset + k], s[k], incompatible);
  }
  return SymShape(std::move(dims));
}

SymShape BroadcastShapes(InferenceContext& ctx, const std::vector<SymShape>& shapes) {
  bool incompatible = false;
  SymShape out = BroadcastShapes(shapes, &incompatible);
  if (incompatible) {
    std::string message = "incompatible broadcast of shapes";
    for (const auto& s : shapes) message += " " + s.ToString();
    ctx.Diagnose(message);
  }
  return out;
}

std::optional<std::vector<std::size_t>> BroadcastIndices(const std::vector<std::int64_t>& in,
                                                         const std::vector<std::int64_t>& out) {
  if (in.size() > out.size()) return std::nullopt;
  const std::size_t offset = out.size() - in.size();
  std::size_t total = 1;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (out[k] < 0) return std::nullopt;
    if (k >= offset && in[k - offset] != out[k] && in[k - offset] != 1) return std::nullopt;
    total *= static_cast<std::size_t>(out[k]);
    if (total > (std::size_t{1} << 24)) return std::nullopt;
  }
  std::vector<std::size_t> result(total);
  std::vector<std::int64_t> index(out.size(), 0);
  for (std::size_t flat = 0; flat < total; ++flat) {
    std::size_t source = 0;
    for (std::size_t k = offset; k < out.size(); ++k) {
      const std::int64_t d = in[k - offset];
      source = source * static_cast<std::size_t>(d) + (d == 1 ? 0 : static_cast<std::size_t>(index[k]));
    }
    result[flat] = source;
    for (std::size_t k = out.size(); k-- > 0;) {
      if (++index[k] < out[k]) break;
      index[k] = 0;
    }
  }
  return result;
}

bool ProvablyNonNegative(const SymDim& a) {
  if (a.IsUnknown()) return false;
  if (auto c = a.Constant()) return *c >= 0;
  return a.ToString().find('-') == std::string::npos;
}

bool ProvablyPositive(const SymDim& a) { return a.IsKnown() && ProvablyNonNegative(a - SymDim(1)); }

SymDim DecidableMax(const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return SymDim::Unknown();
  if (ProvablyNonNegative(a - b)) return a;
  if (ProvablyNonNegative(b - a)) return b;
  return SymDim::Max(a, b);
}

SymDim DecidableMin(const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return SymDim::Unknown();
  if (ProvablyNonNegative(b - a)) return a;
  if (ProvablyNonNegative(a - b)) return b;
  return SymDim::Min(a, b);
}

std::optional<std::vector<std::int64_t>> StaticDims(const SymShape& shape) {
  if (!shape.HasRank()) return std::nullopt;
  std::vector<std::int64_t> out;
  out.reserve(shape.Rank());
  for (const auto& d : shape.Dims()) {
    auto c = d.Constant();
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

SymDim DimProduct(const std::vector<SymDim>& dims, std::size_t begin, std::size_t end) {
  SymDim product(1);
  for (std::size_t k = begin; k < end && k < dims.size(); ++k) product = product * dims[k];
  return product;
}

std::optional<std::int64_t> StaticElementCount(const SymShape& shape) {
  auto dims = StaticDims(shape);
  if (!dims) return std::nullopt;
  std::int64_t count = 1;
  for (std::int64_t d : *dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && count > std::numeric_limits<std::int64_t>::max() / d) return std::nullopt;
    count *= d;
  }
  return count;
}

SymTensor WithValues(int elem_type, SymShape shape, std::vector<SymDim> values) {
  SymTensor t = SymTensor::Tensor(elem_type, std::move(shape));
  auto count = StaticElementCount(t.shape);
  if (count && static_cast<std::size_t>(*count) == values.size() && values.size() <= SymTensor::kMaxValueElements &&
      (elem_type == 0 || IsValueType(elem_type)))
    t.value = std::move(values);
  return t;
}

std::optional<std::vector<SymDim>> InputValues(const InferenceContext& ctx, std::size_t i) {
  if (!ctx.HasInput(i)) return std::nullopt;
  const SymTensor& t = ctx.Input(i);
  if (t.value) return t.value;
  if (const TensorProto* tensor = ctx.ConstantInput(i)) return DecodeInts(*tensor);
  return std::nullopt;
}

std::optional<std::vector<std::int64_t>> InputInts(const InferenceContext& ctx, std::size_t i) {
  auto values = InputValues(ctx, i);
  if (!values) return std::nullopt;
  std::vector<std::int64_t> out;
  out.reserve(values->size());
  for (const auto& v : *values) {
    auto c = v.Constant();
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

std::optional<SymDim> InputScalar(const InferenceContext& ctx, std::size_t i) {
  auto values = InputValues(ctx, i);
  if (!values || values->size() != 1) return std::nullopt;
  return (*values)[0];
}

std::optional<std::int64_t> InputScalarInt(const InferenceContext& ctx, std::size_t i) {
  auto v = InputScalar(ctx, i);
  if (!v) return std::nullopt;
  return v->Constant();
}

std::optional<std::size_t> RankFromLength(const InferenceContext& ctx, std::size_t i) {
  if (!ctx.HasInput(i)) return std::nullopt;
  const SymShape& shape = ctx.Input(i).shape;
  if (!shape.HasRank() || shape.Rank() != 1) return std::nullopt;
  const std::optional<std::int64_t> length = shape[0].Constant();
  if (!length || *length < 0 || *length > kMaxRankFromLength) return std::nullopt;
  return static_cast<std::size_t>(*length);
}

std::optional<std::vector<double>> InputConstantDoubles(const InferenceContext& ctx, std::size_t i) {
  if (!ctx.HasInput(i)) return std::nullopt;
  const TensorProto* tensor = ctx.ConstantInput(i);
  if (!tensor) {
    auto ints = InputInts(ctx, i);
    if (!ints) return std::nullopt;
    return std::vector<double>(ints->begin(), ints->end());
  }
  const int type = tensor->data_type();
  if (IsValueType(type)) {
    auto ints = DecodeInts(*tensor);
    if (!ints) return std::nullopt;
    std::vector<double> out;
    for (const auto& v : *ints) {
      auto c = v.Constant();
      if (!c) return std::nullopt;
      out.push_back(static_cast<double>(*c));
    }
    return out;
  }
  auto count = core::ir::ElementCount(*tensor);
  if (!count || *count > kMaxDecodedElements) return std::nullopt;
  auto bytes = core::ir::RawBytes(*tensor);
  if (!bytes) return std::nullopt;
  const auto n = static_cast<std::size_t>(*count);
  std::vector<double> out;
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    switch (type) {
      case kFloat:
        if (bytes->size() < n * 4) return std::nullopt;
        out.push_back(Load<float>(*bytes, k));
        break;
      case kDouble:
        if (bytes->size() < n * 8) return std::nullopt;
        out.push_back(Load<double>(*bytes, k));
        break;
      case kFloat16:
        if (bytes->size() < n * 2) return std::nullopt;
        out.push_back(HalfToFloat(Load<std::uint16_t>(*bytes, k)));
        break;
      case kBfloat16:
        if (bytes->size() < n * 2) return std::nullopt;
        out.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(Load<std::uint16_t>(*bytes, k)) << 16));
        break;
      default:
        return std::nullopt;
    }
  }
  return out;
}

IntListArg IntsAttributeOrInput(const InferenceContext& ctx, std::string_view attribute, std::size_t input,
                                std::int64_t input_since) {
  IntListArg arg;
  if (ctx.OpsetVersion() < input_since) {
    if (ctx.Attribute(attribute)) {
      arg.present = true;
      arg.values = ctx.IntsAttribute(attribute);
    }
  } else if (ctx.HasInput(input)) {
    arg.present = true;
    arg.values = InputInts(ctx, input);
  }
  return arg;
}

SymTensor TypeAndShape(const SymTensor& tensor) {
  SymTensor out = tensor;
  out.value.reset();
  return out;
}

SymTensor UnknownTensor(int elem_type) { return SymTensor::Tensor(elem_type, SymShape::UnknownRank()); }

std::vector<SymTensor> Outputs(const InferenceContext& ctx, SymTensor first) {
  std::vector<SymTensor> known;
  known.push_back(std::move(first));
  return Outputs(ctx, std::move(known));
}

std::vector<SymTensor> Outputs(const InferenceContext& ctx, std::vector<SymTensor> known) {
  known.resize(ctx.OutputCount(), SymTensor::Unknown());
  return known;
}

std::vector<SymTensor> UnknownOutputs(const InferenceContext& ctx) {
  return std::vector<SymTensor>(ctx.OutputCount(), SymTensor::Unknown());
}

ShapeFunction SameAsInput(std::size_t i) {
  return [i](InferenceContext& ctx) { return Outputs(ctx, TypeAndShape(ctx.Input(i))); };
}

ShapeFunction SameShapeWithType(int elem_type, std::size_t i) {
  return [i, elem_type](InferenceContext& ctx) {
    return Outputs(ctx, SymTensor::Tensor(elem_type, ctx.Input(i).shape));
  };
}

}  // namespace onnxopt::onnx_shapes
