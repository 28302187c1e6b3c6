#pragma once
// Input shapes a user fixes before optimizing: the whole shape of an input
// (onnx-simplifier's --overwrite-input-shape) or one symbolic dimension everywhere (--dim).
//
// The specialised model computes what the original computes for inputs of those shapes,
// and rewrites that depend on a dimension can then prove it. A rewrite file records the
// settings it was made under (docs/record-format.md), because its records only fit the
// specialised graph.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

struct InputShapeSettings {
  // Graph input name -> every dimension of its shape.
  std::map<std::string, std::vector<std::int64_t>> input_shapes;
  // Symbolic dimension name (dim_param) -> its value.
  std::map<std::string, std::int64_t> dims;

  bool empty() const { return input_shapes.empty() && dims.empty(); }
  bool operator==(const InputShapeSettings&) const = default;
};

// Parses the settings as the command line spells them (the C++ one and the Python one's
// --passes mode): values of --overwrite-input-shape, NAME:D0,D1,... (split at the last ':'
// so that names such as "input:0" work; an empty list gives a scalar), and of --dim,
// NAME=VALUE (a symbol given twice takes the last value). Every number is in [0, 2^31].
// Throws onnxopt::Error naming the option for a malformed value or an input given twice.
InputShapeSettings ParseInputShapeSettings(const std::vector<std::string>& input_shapes,
                                           const std::vector<std::string>& dims);

// The settings as the command line spells them, sorted by name:
// "--overwrite-input-shape x:1,3 --dim batch=2"; empty when there are none.
std::string DescribeInputShapeSettings(const InputShapeSettings& settings);

// Specialises the main graph of `model`:
// - each input of `input_shapes` gets exactly those dimensions. A dimension that is
//   already a number must be that number, and the rank must match when the input has a
//   shape; a symbolic dimension it replaces binds that symbol (as --dim would), so that
//   every input sharing the symbol agrees;
// - every symbolic dimension bound (by `dims` or through `input_shapes`) becomes its
//   value wherever the symbol is written: the inputs, outputs and value_info of the main
//   graph and of every graph nested in it.
// Throws ModelError, before changing anything, for an input that does not exist or is not
// a tensor, a rank or number that contradicts the model, a negative dimension, a symbol
// bound to two values, and a `dims` symbol no graph input uses (a typo would otherwise
// silently change nothing).
void ApplyInputShapeSettings(ModelProto& model, const InputShapeSettings& settings);

}  // namespace onnxopt::core::ir
