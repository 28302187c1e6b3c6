// Shape functions of the string operators (StringNormalizer, StringConcat, StringSplit,
// RegexFullMatch) and of TfIdfVectorizer. Sizes that depend on the strings (how many
// stop words are dropped, how many substrings a split gives) are fresh symbols.

#include <algorithm>
#include <limits>
#include <cstdint>
#include <string>
#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"

namespace onnxopt::onnx_shapes {

namespace {

using core::shapes::RegisterShapeFunction;

// StringNormalizer(X [C] or [1, C]): the same shape without stop words, else the
// number of kept strings is known at run time only.
std::vector<SymTensor> InferStringNormalizer(InferenceContext& ctx) {
  const SymShape x = InputShape(ctx, 0);
  const AttributeProto* stopwords = ctx.Attribute("stopwords");
  if (!stopwords || stopwords->strings_size() == 0 || !x.HasRank())
    return Outputs(ctx, SymTensor::Tensor(TensorProto::STRING, x));
  std::vector<SymDim> dims = x.Dims();
  if (!dims.empty()) dims.back() = ctx.FreshSymbol();
  return Outputs(ctx, SymTensor::Tensor(TensorProto::STRING, SymShape(dims)));
}

std::vector<SymTensor> InferStringConcat(InferenceContext& ctx) {
  return Outputs(
      ctx, SymTensor::Tensor(TensorProto::STRING, BroadcastShapes(ctx, {InputShape(ctx, 0), InputShape(ctx, 1)})));
}

// StringSplit(X): substrings [*X.shape, most substrings], counts [*X.shape].
std::vector<SymTensor> InferStringSplit(InferenceContext& ctx) {
  const SymShape x = InputShape(ctx, 0);
  SymShape substrings = SymShape::UnknownRank();
  if (x.HasRank()) {
    std::vector<SymDim> dims = x.Dims();
    dims.push_back(ctx.FreshSymbol());
    substrings = SymShape(dims);
  }
  return Outputs(ctx, {SymTensor::Tensor(TensorProto::STRING, substrings), SymTensor::Tensor(TensorProto::INT64, x)});
}

// TfIdfVectorizer(X [C] or [N, C]): [max(ngram_indexes) + 1] or [N, that].
std::vector<SymTensor> InferTfIdfVectorizer(InferenceContext& ctx) {
  const SymShape x = InputShape(ctx, 0);
  const auto indexes = ctx.IntsAttribute("ngram_indexes");
  // Unknown when the largest index cannot give a width (negative, or INT64_MAX + 1).
  const std::int64_t largest =
      indexes && !indexes->empty() ? *std::max_element(indexes->begin(), indexes->end()) : -1;
  const SymDim width =
      largest >= 0 && largest < std::numeric_limits<std::int64_t>::max() ? SymDim(largest + 1) : SymDim::Unknown();
  if (!x.HasRank()) return Outputs(ctx, UnknownTensor(TensorProto::FLOAT));
  if (x.Rank() == 1) return Outputs(ctx, SymTensor::Tensor(TensorProto::FLOAT, SymShape({width})));
  if (x.Rank() == 2) return Outputs(ctx, SymTensor::Tensor(TensorProto::FLOAT, SymShape({x[0], width})));
  ctx.Diagnose("TfIdfVectorizer input must have rank 1 or 2, got rank " + std::to_string(x.Rank()));
  return UnknownOutputs(ctx);
}

}  // namespace

void RegisterStringShapes() {
  RegisterShapeFunction("", "StringNormalizer", InferStringNormalizer);
  RegisterShapeFunction("", "StringConcat", InferStringConcat);
  RegisterShapeFunction("", "StringSplit", InferStringSplit);
  RegisterShapeFunction("", "RegexFullMatch", SameShapeWithType(TensorProto::BOOL));
  RegisterShapeFunction("", "TfIdfVectorizer", InferTfIdfVectorizer);
}

}  // namespace onnxopt::onnx_shapes
