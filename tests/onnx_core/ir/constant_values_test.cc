#include "onnx_core/ir/constant_values.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "tests/support/test_support.h"

namespace onnxopt::core::ir {
namespace {

using ::onnxopt::testing::ParseText;
using ::testing::ElementsAre;

NodeProto ConstantNode(const std::string& attributes) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g () => (float[2] y) { y = Constant <)ONNX" + attributes + R"ONNX(> () })ONNX");
  return model.graph().node(0);
}

std::string Bytes(const TensorProto& tensor) { return tensor.raw_data(); }

template <class T>
std::string BytesOf(std::initializer_list<T> values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

TEST(ConstantNodeValue, ReadsEveryDenseForm) {
  auto value = ConstantNodeValue(ConstantNode("value = float[2] {1.0, 2.0}"));
  ASSERT_TRUE(value);
  EXPECT_EQ(value->name(), "y");
  EXPECT_THAT(value->float_data(), ElementsAre(1.0f, 2.0f));
  EXPECT_THAT(value->dims(), ElementsAre(2));

  value = ConstantNodeValue(ConstantNode("value_float = 1.5"));
  ASSERT_TRUE(value);
  EXPECT_EQ(value->data_type(), TensorProto::FLOAT);
  EXPECT_EQ(value->dims_size(), 0);
  EXPECT_THAT(value->float_data(), ElementsAre(1.5f));

  value = ConstantNodeValue(ConstantNode("value_floats = [1.5, 2.5, 3.5]"));
  ASSERT_TRUE(value);
  EXPECT_THAT(value->dims(), ElementsAre(3));
  EXPECT_THAT(value->float_data(), ElementsAre(1.5f, 2.5f, 3.5f));

  value = ConstantNodeValue(ConstantNode("value_int = 7"));
  ASSERT_TRUE(value);
  EXPECT_EQ(value->data_type(), TensorProto::INT64);
  EXPECT_EQ(value->dims_size(), 0);
  EXPECT_THAT(value->int64_data(), ElementsAre(7));

  value = ConstantNodeValue(ConstantNode("value_ints = [4, 5]"));
  ASSERT_TRUE(value);
  EXPECT_THAT(value->dims(), ElementsAre(2));
  EXPECT_THAT(value->int64_data(), ElementsAre(4, 5));

  value = ConstantNodeValue(ConstantNode(R"(value_string = "hi")"));
  ASSERT_TRUE(value);
  EXPECT_EQ(value->data_type(), TensorProto::STRING);
  EXPECT_EQ(value->dims_size(), 0);
  EXPECT_THAT(value->string_data(), ElementsAre("hi"));

  value = ConstantNodeValue(ConstantNode(R"(value_strings = ["a", "b"])"));
  ASSERT_TRUE(value);
  EXPECT_THAT(value->dims(), ElementsAre(2));
  EXPECT_THAT(value->string_data(), ElementsAre("a", "b"));
}

// A Constant node holding a sparse tensor of dense shape `dims`, whose values are
// `values` (FLOAT) at `indices` (INT64, of shape `index_dims`).
NodeProto SparseConstant(std::vector<std::int64_t> dims, std::vector<float> values,
                         std::vector<std::int64_t> index_dims, std::vector<std::int64_t> indices) {
  NodeProto node;
  node.set_op_type("Constant");
  node.add_output("s");
  AttributeProto* attr = node.add_attribute();
  attr->set_name("sparse_value");
  attr->set_type(AttributeProto::SPARSE_TENSOR);
  SparseTensorProto* sparse = attr->mutable_sparse_tensor();
  for (std::int64_t dim : dims) sparse->add_dims(dim);
  sparse->mutable_values()->set_data_type(TensorProto::FLOAT);
  sparse->mutable_values()->add_dims(static_cast<std::int64_t>(values.size()));
  for (float v : values) sparse->mutable_values()->add_float_data(v);
  sparse->mutable_indices()->set_data_type(TensorProto::INT64);
  for (std::int64_t dim : index_dims) sparse->mutable_indices()->add_dims(dim);
  for (std::int64_t i : indices) sparse->mutable_indices()->add_int64_data(i);
  return node;
}

TEST(ConstantNodeValue, DensifiesLinearSparseIndices) {
  const auto value = ConstantNodeValue(SparseConstant({2, 3}, {5.0f, 6.0f}, {2}, {1, 5}));
  ASSERT_TRUE(value);
  EXPECT_EQ(value->name(), "s");
  EXPECT_EQ(value->data_type(), TensorProto::FLOAT);
  EXPECT_THAT(value->dims(), ElementsAre(2, 3));
  EXPECT_EQ(Bytes(*value), BytesOf<float>({0, 5, 0, 0, 0, 6}));
}

TEST(ConstantNodeValue, DensifiesCoordinateSparseIndices) {
  const auto value =
      ConstantNodeValue(SparseConstant({2, 3}, {5.0f, 6.0f}, {2, 2}, {0, 2, 1, 0}));
  ASSERT_TRUE(value);
  EXPECT_EQ(Bytes(*value), BytesOf<float>({0, 0, 5, 6, 0, 0}));
}

TEST(ConstantNodeValue, DensifiesAnAllZeroSparseTensor) {
  const auto value = ConstantNodeValue(SparseConstant({3}, {}, {0}, {}));
  ASSERT_TRUE(value);
  EXPECT_EQ(Bytes(*value), BytesOf<float>({0, 0, 0}));
}

TEST(ConstantNodeValue, DensifiesSparseStrings) {
  NodeProto node = SparseConstant({3}, {}, {1}, {2});
  TensorProto* values = node.mutable_attribute(0)->mutable_sparse_tensor()->mutable_values();
  values->set_data_type(TensorProto::STRING);
  values->set_dims(0, 1);
  values->add_string_data("last");
  const auto value = ConstantNodeValue(node);
  ASSERT_TRUE(value);
  EXPECT_THAT(value->string_data(), ElementsAre("", "", "last"));
}

TEST(ConstantNodeValue, RejectsInvalidSparseTensors) {
  EXPECT_FALSE(ConstantNodeValue(SparseConstant({2, 3}, {5.0f}, {1}, {6})));          // past the end
  EXPECT_FALSE(ConstantNodeValue(SparseConstant({2, 3}, {5.0f}, {1}, {-1})));         // negative
  EXPECT_FALSE(ConstantNodeValue(SparseConstant({2, 3}, {5.0f}, {1, 2}, {0, 3})));    // column 3 of 3
  EXPECT_FALSE(ConstantNodeValue(SparseConstant({2, 3}, {5.0f}, {1, 3}, {0, 0, 0})));  // rank 3
  EXPECT_FALSE(ConstantNodeValue(SparseConstant({2, 3}, {5.0f, 6.0f}, {1}, {0})));    // NNZ mismatch
  EXPECT_FALSE(ConstantNodeValue(SparseConstant({2, -3}, {5.0f}, {1}, {0})));         // negative dim
  EXPECT_FALSE(ConstantNodeValue(SparseConstant({2}, {1, 2, 3}, {3}, {0, 1, 1})));    // NNZ > size
  EXPECT_FALSE(ConstantNodeValue(SparseConstant({1 << 30, 1 << 30}, {5.0f}, {1}, {0})));  // too big
}

TEST(ConstantNodeValue, RejectsNodesThatAreNoValidConstant) {
  NodeProto custom_domain = ConstantNode("value_int = 1");
  custom_domain.set_domain("custom");
  EXPECT_FALSE(ConstantNodeValue(custom_domain));

  EXPECT_TRUE(ConstantNodeValue([] {
    NodeProto node = ConstantNode("value_int = 1");
    node.set_domain("ai.onnx");
    return node;
  }()));
  EXPECT_FALSE(ConstantNodeValue(ConstantNode("value_int = 1, value_float = 2.0")));

  NodeProto reference = ConstantNode("value_int = 1");
  reference.mutable_attribute(0)->set_ref_attr_name("outer");
  EXPECT_FALSE(ConstantNodeValue(reference));

  // value_float declared as INT (an exporter bug onnxruntime accepts): the declared type
  // decides, as in onnxruntime, which produces an int64 scalar.
  NodeProto int_named_float = ConstantNode("value_int = 1");
  int_named_float.mutable_attribute(0)->set_name("value_float");
  auto int_value = ConstantNodeValue(int_named_float);
  ASSERT_TRUE(int_value);
  EXPECT_EQ(int_value->data_type(), TensorProto::INT64);
  EXPECT_EQ(int_value->dims_size(), 0);

  NodeProto wrong_type = ConstantNode("value_string = \"a\"");
  wrong_type.mutable_attribute(0)->set_name("value_float");
  EXPECT_FALSE(ConstantNodeValue(wrong_type));

  NodeProto neg = ConstantNode("value_int = 1");
  neg.set_op_type("Neg");
  EXPECT_FALSE(ConstantNodeValue(neg));
}

}  // namespace
}  // namespace onnxopt::core::ir
