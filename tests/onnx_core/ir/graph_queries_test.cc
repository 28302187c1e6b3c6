#include "onnx_core/ir/graph_queries.h"

#include <gtest/gtest.h>

namespace onnxopt::core::ir {
namespace {

TensorProto Tensor(const std::string& name, bool external) {
  TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(TensorProto::FLOAT);
  if (external) tensor.set_data_location(TensorProto::EXTERNAL);
  return tensor;
}

// A Loop whose body holds a Constant with a sparse value; `external` names the tensor of
// the model that refers to a file: "t" (an attribute), "values" or "indices" (the sparse
// value), "init" (an initializer of the body), or nothing.
NodeProto LoopWithTensors(const std::string& external) {
  NodeProto loop;
  loop.set_op_type("Loop");
  AttributeProto& tensors = *loop.add_attribute();
  tensors.set_name("unused");
  *tensors.add_tensors() = Tensor("t", external == "t");
  AttributeProto& body = *loop.add_attribute();
  body.set_name("body");
  *body.mutable_g()->add_initializer() = Tensor("init", external == "init");
  NodeProto& constant = *body.mutable_g()->add_node();
  constant.set_op_type("Constant");
  SparseTensorProto& sparse = *constant.add_attribute()->mutable_sparse_tensor();
  *sparse.mutable_values() = Tensor("values", external == "values");
  *sparse.mutable_indices() = Tensor("indices", external == "indices");
  return loop;
}

TEST(GraphQueries, FindsATensorWithExternalDataWhereverTheNodeHoldsIt) {
  for (const std::string name : {"t", "values", "indices", "init"}) {
    const NodeProto node = LoopWithTensors(name);
    const TensorProto* found = FindExternalTensor(node);
    ASSERT_NE(found, nullptr) << name;
    EXPECT_EQ(found->name(), name);
  }
  EXPECT_EQ(FindExternalTensor(LoopWithTensors("")), nullptr);
  GraphProto graph;
  *graph.add_node() = LoopWithTensors("values");
  ASSERT_NE(FindExternalTensor(graph), nullptr);
  EXPECT_EQ(FindExternalTensor(graph)->name(), "values");
}

}  // namespace
}  // namespace onnxopt::core::ir
