#pragma once
// Reading and writing NumPy .npy files (format versions 1.0-3.0, little-endian, C order),
// for `onnxopt run` inputs and outputs.

#include <filesystem>

#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/file_io.h"

namespace onnxopt::core::eval {

// Throws InputFileError ("invalid input file 'x.npy': ...") for anything but a C-order
// array of a supported dtype (bool, int8..int64, uint8..uint64, float16, float32,
// float64, strings as U); IoError when the file cannot be read or is no regular file (a
// FIFO, a device: refused without blocking).
Tensor ReadNpy(const std::filesystem::path& path);
// The value of a tensor declared as `elem_type`, from `value` read from `path`: an 8-bit
// integer array stands for a 2- or 4-bit integer type, as WriteNpy writes them (int8 for
// INT4 and INT2, uint8 for UINT4 and UINT2), when every element is in the type's range;
// InputFileError names the first that is not. Any other value is returned as read (its
// caller checks its type).
Tensor FromNpyForm(Tensor value, int elem_type, const std::filesystem::path& path);
// Writes atomically (temporary file + rename). bfloat16 and other types without a NumPy
// dtype are written as float32 (the caller is told through the return value: false).
bool WriteNpy(const Tensor& tensor, const std::filesystem::path& path);
// The same into a prepared file, published by its owner (ir::OutputFiles::Commit).
bool WriteNpy(const Tensor& tensor, ir::AtomicFile& file);

}  // namespace onnxopt::core::eval
