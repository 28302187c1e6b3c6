// Shape functions of the signal operators (opset 17 and later): DFT, STFT, the window
// functions and MelWeightMatrix. Lengths given as inputs are exact when those inputs
// are constants (or carry symbolic values), unknown otherwise.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"
#include "onnx_extensions/shapes/shape_rules.h"

namespace onnxopt::onnx_shapes {

namespace {

using core::shapes::RegisterShapeFunction;

// The scalar input i as a dim: its value when known, else unknown.
SymDim ScalarDim(const InferenceContext& ctx, std::size_t i) {
  auto v = InputScalar(ctx, i);
  return v ? *v : SymDim::Unknown();
}

// floor(n / 2) + 1: the bins of a one-sided spectrum of length n.
SymDim OneSidedBins(const SymDim& n) { return SymDim::FloorDiv(n, SymDim(2)) + SymDim(1); }

// DFT(input, dft_length?, axis? (opset 20)): the input's shape with the axis dim set to
// the output length (dft_length, floor(dft_length/2)+1 for a real-to-complex transform)
// and the last dim 2 (1 for a complex-to-real transform).
std::vector<SymTensor> InferDft(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  if (!x.HasRank()) return Outputs(ctx, UnknownTensor(type));
  const auto rank = static_cast<std::int64_t>(x.Rank());
  if (rank < 2) {
    ctx.Diagnose("DFT input must have rank >= 2, got rank " + std::to_string(rank));
    return UnknownOutputs(ctx);
  }
  const bool onesided = FlagAttribute(ctx, "onesided", false);
  const bool inverse = FlagAttribute(ctx, "inverse", false);
  const bool irfft = onesided && inverse;
  std::vector<SymDim> dims = x.Dims();
  dims.back() = SymDim(irfft ? 1 : 2);
  std::optional<std::int64_t> axis = ctx.IntAttribute("axis").value_or(1);
  if (ctx.OpsetVersion() >= 20) axis = ctx.HasInput(2) ? InputScalarInt(ctx, 2) : std::optional<std::int64_t>(-2);
  if (!axis) {
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) dims[i] = SymDim::Unknown();
    return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
  }
  if (*axis < -rank || *axis > rank - 2 || *axis == -1) {
    ctx.Diagnose("DFT axis " + std::to_string(*axis) + " is invalid for an input of rank " + std::to_string(rank));
    return UnknownOutputs(ctx);
  }
  const auto a = static_cast<std::size_t>(*axis < 0 ? *axis + rank : *axis);
  SymDim n = irfft ? SymDim(2) * (x[a] - SymDim(1)) : x[a];
  if (ctx.HasInput(1)) n = ScalarDim(ctx, 1);
  dims[a] = onesided && !inverse ? OneSidedBins(n) : n;
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
}

// STFT(signal [batch, length, c], frame_step, window?, frame_length?):
// [batch, (length - n) / frame_step + 1, bins, 2] with n the frame length and bins
// n/2+1 (onesided) or n.
std::vector<SymTensor> InferStft(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape signal = InputShape(ctx, 0);
  SymDim batch, length;
  if (signal.HasRank() && signal.Rank() >= 2) batch = signal[0], length = signal[1];
  SymDim n = ctx.HasInput(3) ? ScalarDim(ctx, 3) : SymDim::Unknown();
  const SymShape window = InputShape(ctx, 2);
  if (!ctx.HasInput(3) && ctx.HasInput(2) && window.HasRank() && window.Rank() == 1) n = window[0];
  const SymDim frames = SymDim::FloorDiv(length - n, ScalarDim(ctx, 1)) + SymDim(1);
  const SymDim bins = FlagAttribute(ctx, "onesided", true) ? OneSidedBins(n) : n;
  return Outputs(ctx, SymTensor::Tensor(type, SymShape({batch, frames, bins, SymDim(2)})));
}

// HannWindow / HammingWindow / BlackmanWindow(size): [size] of output_datatype.
std::vector<SymTensor> InferWindow(InferenceContext& ctx) {
  const auto type = static_cast<int>(ctx.IntAttribute("output_datatype").value_or(TensorProto::FLOAT));
  return Outputs(ctx, SymTensor::Tensor(type, SymShape({ScalarDim(ctx, 0)})));
}

// MelWeightMatrix(num_mel_bins, dft_length, ...): [dft_length/2 + 1, num_mel_bins].
std::vector<SymTensor> InferMelWeightMatrix(InferenceContext& ctx) {
  const auto type = static_cast<int>(ctx.IntAttribute("output_datatype").value_or(TensorProto::FLOAT));
  return Outputs(ctx, SymTensor::Tensor(type, SymShape({OneSidedBins(ScalarDim(ctx, 1)), ScalarDim(ctx, 0)})));
}

}  // namespace

void RegisterSignalShapes() {
  RegisterShapeFunction("", "DFT", InferDft);
  RegisterShapeFunction("", "STFT", InferStft);
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) RegisterShapeFunction("", op, InferWindow);
  RegisterShapeFunction("", "MelWeightMatrix", InferMelWeightMatrix);
}

}  // namespace onnxopt::onnx_shapes
