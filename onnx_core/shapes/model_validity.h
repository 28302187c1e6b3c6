#pragma once
// Where onnxopt refuses invalid models (ModelError, exit 2 on the command line), and the
// entry point of the checks that need shape inference.
//
// 1. Loading (ir::LoadModel / ir::ParseModel, unless LoadOptions::check_graph is off)
//    runs ir::CheckModel: names (single definitions, nested graphs' scoping, topological
//    order, defined graph outputs), operator set versions >= 1, and each node against the
//    signature of its operator at the imported version (ir::CheckNodeSignature: operator
//    defined, input and output counts, omitted inputs optional, attributes known, of
//    their types, required ones present). Every command and the Python GraphBuilder load
//    models this way.
// 2. Shape inference (InferGraph, GraphBuilder::InferShapes) checks each node's input and
//    output types against its operator's type constraints (type_constraints.h) and lets
//    the shape functions refuse nodes that break their operator's rules
//    (InferenceContext::Refuse: attribute ranges, permutations, axes in range, split
//    sizes, branch and body signatures...). It throws InvalidNodeError naming the node.
//    The optimizer infers shapes when it starts (optimize, the Python optimize()), and so
//    does `info --shapes`; the commands that do not need shapes themselves (replay, run,
//    verify, info) call ValidateModel after loading.
//
// Both use the operator schemas that onnx_shapes::RegisterShapeFunctions() registers
// (without them, only names and opset versions are checked). Unknown types are never
// errors: a check applies to what is known for certain.

#include <string_view>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::shapes {

// Infers the model's shapes for their checks only (step 2 above); throws ModelError
// "<origin>: node ...: <rule>; found ..." for the first node that breaks a rule. The model
// has passed ir::CheckModel (it was loaded with the graph check).
void ValidateModel(const ModelProto& model, std::string_view origin);

}  // namespace onnxopt::core::shapes
