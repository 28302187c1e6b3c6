#pragma once
// Registration entry points of the kernel groups, one per source file. Only
// register_kernels.cc calls them.

namespace onnxopt::onnx_kernels {

void RegisterElementwiseKernels();   // elementwise_kernels.cc: math, comparison, logic, Cast, activations
void RegisterTensorKernels();        // tensor_kernels.cc: shape manipulation, indexing, reductions
void RegisterNnKernels();            // nn_kernels.cc: MatMul, Gemm, Conv, pooling, normalization, ...
void RegisterControlFlowKernels();   // control_flow_kernels.cc: If, Loop, Scan, sequences, optionals
void RegisterContribKernels();       // contrib_kernels.cc: com.microsoft
void RegisterSignalKernels();        // signal_kernels.cc: DFT, STFT, window functions, MelWeightMatrix
void RegisterStringKernels();        // string_kernels.cc: string operators, TfIdfVectorizer
void RegisterAttentionKernels();     // attention_kernels.cc: com.microsoft Attention, MultiHeadAttention, GroupQueryAttention

}  // namespace onnxopt::onnx_kernels
