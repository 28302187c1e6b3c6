#pragma once
// Registration entry points of the kernel groups, one per source file. Only
// register_kernels.cc calls them.

namespace onnxopt::onnx_kernels {

void RegisterElementwiseKernels();   // elementwise_kernels.cc: math, comparison, logic, Cast, activations
void RegisterTensorKernels();        // tensor_kernels.cc: shape manipulation, indexing, reductions
void RegisterNnKernels();            // nn_kernels.cc: MatMul, Gemm, Conv, pooling, normalization, ...
void RegisterControlFlowKernels();   // control_flow_kernels.cc: If, Loop, Scan, sequences, optionals
void RegisterContribKernels();       // contrib_kernels.cc: com.microsoft
void RegisterQuantizedKernels();     // quantized_kernels.cc: quantized convolutions and products
void RegisterLossKernels();          // loss_kernels.cc: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
void RegisterTrainingKernels();      // training_kernels.cc: ai.onnx.preview.training optimizers
void RegisterRandomKernels();        // random_kernels.cc: random generators
void RegisterReorderKernels();       // reorder_kernels.cc: ReverseSequence, Unique
void RegisterLinalgKernels();        // linalg_kernels.cc: Det
void RegisterSequenceMapKernels();   // sequence_map_kernels.cc: SequenceMap
void RegisterVisionKernels();        // vision_kernels.cc: NonMaxSuppression, RoiAlign, MaxRoiPool, GridSample, AffineGrid
void RegisterSpatialKernels();       // spatial_kernels.cc: LRN, MeanVarianceNormalization, MaxUnpool, Col2Im, CenterCropPad, DeformConv
void RegisterFusedKernels();         // fused_kernels.cc: com.microsoft FusedConv, FusedGemm
void RegisterImageKernels();         // image_kernels.cc: ImageDecoder
void RegisterSignalKernels();        // signal_kernels.cc: DFT, STFT, window functions, MelWeightMatrix
void RegisterStringKernels();        // string_kernels.cc: string operators, TfIdfVectorizer
void RegisterAttentionKernels();     // attention_kernels.cc: com.microsoft Attention, MultiHeadAttention, GroupQueryAttention
void RegisterRecurrentStateKernels();  // recurrent_state_kernels.cc: CausalConvWithState, LinearAttention

}  // namespace onnxopt::onnx_kernels
