#include "onnx_core/shapes/sym_tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "onnx_core/common/error.h"

namespace onnxopt::core::shapes {
namespace {

SymDim S(std::string_view name) { return SymDim::Symbol(name); }

std::string DimsText(const std::vector<SymDim>& dims) {
  std::string out;
  for (const SymDim& d : dims) out += d.ToString() + ";";
  return out;
}

// ---- SymShape ----

TEST(SymShape, DistinguishesUnknownRankAndScalar) {
  SymShape unknown;
  EXPECT_FALSE(unknown.HasRank());
  EXPECT_THROW(unknown.Rank(), BuilderError);
  EXPECT_THROW(unknown.Dims(), BuilderError);
  EXPECT_FALSE(unknown.IsFullyKnown());
  EXPECT_FALSE(unknown.IsStatic());
  EXPECT_TRUE(unknown.NumElements().IsUnknown());
  EXPECT_EQ(unknown.ToString(), "?");

  SymShape scalar = SymShape::Scalar();
  EXPECT_TRUE(scalar.HasRank());
  EXPECT_EQ(scalar.Rank(), 0u);
  EXPECT_TRUE(scalar.IsStatic());
  EXPECT_EQ(scalar.NumElements(), SymDim(1));
  EXPECT_EQ(scalar.ToString(), "[]");

  SymShape r3 = SymShape::OfRank(3);
  EXPECT_EQ(r3.Rank(), 3u);
  EXPECT_TRUE(r3[1].IsUnknown());
  EXPECT_FALSE(r3.IsFullyKnown());
  EXPECT_EQ(r3.ToString(), "[?,?,?]");
}

TEST(SymShape, ReportsStaticAndKnownDims) {
  SymShape fixed({2, 3, 4});
  EXPECT_TRUE(fixed.IsStatic());
  EXPECT_TRUE(fixed.IsFullyKnown());
  EXPECT_EQ(fixed.NumElements(), SymDim(24));

  SymShape symbolic({S("batch"), S("seq"), 64});
  EXPECT_FALSE(symbolic.IsStatic());
  EXPECT_TRUE(symbolic.IsFullyKnown());
  EXPECT_EQ(symbolic.NumElements(), 64 * S("seq") * S("batch"));
  EXPECT_EQ(symbolic.ToString(), "[batch,seq,64]");

  SymShape partial({S("batch"), SymDim::Unknown(), 64});
  EXPECT_FALSE(partial.IsFullyKnown());
  EXPECT_TRUE(partial.NumElements().IsUnknown());
  EXPECT_EQ(partial.ToString(), "[batch,?,64]");

  EXPECT_EQ(SymShape({2, 0, 5}).NumElements(), SymDim(0));
}

TEST(SymShape, ComparesDims) {
  EXPECT_TRUE(SymShape({S("a"), 2}) == SymShape({S("a"), 2}));
  EXPECT_FALSE(SymShape({S("a"), 2}) == SymShape({S("a"), 3}));
  EXPECT_FALSE(SymShape({S("a"), 2}) == SymShape({S("a")}));
  EXPECT_FALSE(SymShape({SymDim()}) == SymShape({SymDim()}));
  EXPECT_FALSE(SymShape() == SymShape());
  EXPECT_TRUE(SymShape::Scalar() == SymShape::Scalar());
  EXPECT_FALSE(SymShape::Scalar() == SymShape());
}

TEST(SymShape, RoundTripsThroughTensorShapeProto) {
  onnx::TensorShapeProto proto;
  proto.add_dim()->set_dim_param("batch");
  proto.add_dim()->set_dim_value(8);
  proto.add_dim();                            // neither: unknown
  proto.add_dim()->set_dim_param("seq len");  // any name is a symbol
  proto.add_dim()->set_dim_param("2*s0");     // a name, not an expression
  proto.add_dim()->set_dim_value(-1);         // invalid value: unknown
  SymShape shape = SymShape::FromProto(proto);
  ASSERT_EQ(shape.Rank(), 6u);
  EXPECT_EQ(shape[0], S("batch"));
  EXPECT_EQ(shape[1], SymDim(8));
  EXPECT_TRUE(shape[2].IsUnknown());
  EXPECT_EQ(shape[3], S("seq len"));
  EXPECT_EQ(shape[4], S("2*s0"));
  EXPECT_NE(shape[4], 2 * S("s0"));
  EXPECT_TRUE(shape[5].IsUnknown());

  onnx::TensorShapeProto back;
  back.add_dim()->set_dim_value(99);  // replaced, not appended to
  shape.ToProto(back);
  ASSERT_EQ(back.dim_size(), 6);
  EXPECT_EQ(back.dim(0).dim_param(), "batch");
  EXPECT_EQ(back.dim(1).dim_value(), 8);
  EXPECT_FALSE(back.dim(2).has_dim_value());
  EXPECT_FALSE(back.dim(2).has_dim_param());
  EXPECT_EQ(back.dim(3).dim_param(), "seq len");
  EXPECT_EQ(back.dim(4).dim_param(), "2*s0");
  EXPECT_FALSE(back.dim(5).has_dim_value());
  EXPECT_FALSE(back.dim(5).has_dim_param());
  SymShape again = SymShape::FromProto(back);
  EXPECT_EQ(again.ToString(), shape.ToString());
}

TEST(SymShape, WritesExpressionsAsDimParam) {
  onnx::TensorShapeProto proto;
  SymShape({2 * S("seq") + 1, SymDim::FloorDiv(S("a") + 1, 2)}).ToProto(proto);
  ASSERT_EQ(proto.dim_size(), 2);
  EXPECT_EQ(proto.dim(0).dim_param(), "2*seq+1");
  EXPECT_EQ(proto.dim(1).dim_param(), "(a+1)//2");
}

TEST(SymShape, RefusesToWriteUnknownRank) {
  onnx::TensorShapeProto proto;
  EXPECT_THROW(SymShape().ToProto(proto), BuilderError);
}

// ---- SymTensor ----

TEST(SymTensor, BuildsIntValues) {
  SymTensor t = SymTensor::IntValues(TensorProto::INT64, {S("batch"), 8, -1});
  EXPECT_EQ(t.kind, SymTensor::Kind::kTensor);
  EXPECT_EQ(t.shape.ToString(), "[3]");
  ASSERT_TRUE(t.HasValue());
  EXPECT_EQ(DimsText(*t.value), "batch;8;-1;");
  EXPECT_EQ(t.ToString(), "int64[3] = [batch,8,-1]");

  SymTensor s = SymTensor::IntValues(TensorProto::INT64, {S("n")}, /*scalar=*/true);
  EXPECT_EQ(s.shape.Rank(), 0u);
  EXPECT_EQ(s.ToString(), "int64[] = [n]");
  EXPECT_THROW(SymTensor::IntValues(TensorProto::INT64, {1, 2}, true), BuilderError);

  SymTensor big = SymTensor::IntValues(TensorProto::INT64, std::vector<SymDim>(SymTensor::kMaxValueElements + 1, 1));
  EXPECT_FALSE(big.HasValue());
  EXPECT_EQ(big.shape[0], SymDim(SymTensor::kMaxValueElements + 1));
}

TEST(SymTensor, PrintsKinds) {
  EXPECT_EQ(SymTensor::Tensor(TensorProto::FLOAT, SymShape({S("batch"), S("seq"), 64})).ToString(),
            "float[batch,seq,64]");
  EXPECT_EQ(SymTensor::Tensor(TensorProto::FLOAT16, SymShape()).ToString(), "float16?");
  EXPECT_EQ(SymTensor::Tensor(0, SymShape({1})).ToString(), "?[1]");
  EXPECT_EQ(SymTensor::Unknown().ToString(), "?");
  SymTensor seq{SymTensor::Kind::kSequence, TensorProto::INT32, SymShape({2}), std::nullopt};
  EXPECT_EQ(seq.ToString(), "seq(int32[2])");
  SymTensor opt{SymTensor::Kind::kOptional, TensorProto::FLOAT, SymShape(), std::nullopt};
  EXPECT_EQ(opt.ToString(), "optional(float?)");
  EXPECT_FALSE(SymTensor::Unknown().HasElemType());
}

TensorProto Int64Tensor(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& values, bool raw) {
  TensorProto t;
  t.set_data_type(TensorProto::INT64);
  for (auto d : dims) t.add_dims(d);
  if (raw) {
    std::string bytes;
    for (std::int64_t v : values)
      for (int b = 0; b < 8; ++b) bytes += static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * b)) & 0xff);
    t.set_raw_data(bytes);
  } else {
    for (auto v : values) t.add_int64_data(v);
  }
  return t;
}

TEST(SymTensor, ReadsInt64InitializerValues) {
  for (bool raw : {true, false}) {
    SymTensor t = SymTensor::FromTensor(Int64Tensor({3}, {0, 8, -1}, raw));
    EXPECT_EQ(t.elem_type, TensorProto::INT64);
    EXPECT_EQ(t.shape.ToString(), "[3]");
    EXPECT_TRUE(t.shape.IsStatic());
    ASSERT_TRUE(t.HasValue()) << raw;
    EXPECT_EQ(DimsText(*t.value), "0;8;-1;");
    EXPECT_EQ(t.ToString(), "int64[3] = [0,8,-1]");
  }
  SymTensor scalar = SymTensor::FromTensor(Int64Tensor({}, {std::numeric_limits<std::int64_t>::min()}, true));
  EXPECT_EQ(scalar.shape.Rank(), 0u);
  ASSERT_TRUE(scalar.HasValue());
  EXPECT_EQ((*scalar.value)[0].Constant(), std::numeric_limits<std::int64_t>::min());

  SymTensor matrix = SymTensor::FromTensor(Int64Tensor({2, 2}, {1, 2, 3, 4}, false));
  ASSERT_TRUE(matrix.HasValue());
  EXPECT_EQ(DimsText(*matrix.value), "1;2;3;4;");
}

TEST(SymTensor, ReadsOtherIntegerTypes) {
  TensorProto i32;
  i32.set_data_type(TensorProto::INT32);
  i32.add_dims(2);
  i32.add_int32_data(-5);
  i32.add_int32_data(7);
  SymTensor t32 = SymTensor::FromTensor(i32);
  ASSERT_TRUE(t32.HasValue());
  EXPECT_EQ(DimsText(*t32.value), "-5;7;");

  TensorProto i8;
  i8.set_data_type(TensorProto::INT8);
  i8.add_dims(2);
  i8.set_raw_data(std::string("\xff\x02", 2));
  SymTensor t8 = SymTensor::FromTensor(i8);
  ASSERT_TRUE(t8.HasValue());
  EXPECT_EQ(DimsText(*t8.value), "-1;2;");

  TensorProto u8 = i8;
  u8.set_data_type(TensorProto::UINT8);
  SymTensor tu8 = SymTensor::FromTensor(u8);
  ASSERT_TRUE(tu8.HasValue());
  EXPECT_EQ(DimsText(*tu8.value), "255;2;");

  TensorProto b;
  b.set_data_type(TensorProto::BOOL);
  b.add_dims(3);
  b.set_raw_data(std::string("\x01\x00\x01", 3));
  SymTensor tb = SymTensor::FromTensor(b);
  ASSERT_TRUE(tb.HasValue());
  EXPECT_EQ(DimsText(*tb.value), "1;0;1;");

  TensorProto u64;
  u64.set_data_type(TensorProto::UINT64);
  u64.add_dims(2);
  u64.add_uint64_data(3);
  u64.add_uint64_data(std::numeric_limits<std::uint64_t>::max());
  SymTensor tu64 = SymTensor::FromTensor(u64);
  ASSERT_TRUE(tu64.HasValue());
  EXPECT_EQ(DimsText(*tu64.value), "3;?;");
}

TEST(SymTensor, SkipsValuesOfLargeFloatExternalOrInconsistentTensors) {
  std::vector<std::int64_t> many(SymTensor::kMaxValueElements + 1, 1);
  SymTensor large = SymTensor::FromTensor(Int64Tensor({static_cast<std::int64_t>(many.size())}, many, true));
  EXPECT_FALSE(large.HasValue());
  EXPECT_EQ(large.shape[0], SymDim(static_cast<std::int64_t>(many.size())));

  TensorProto f;
  f.set_data_type(TensorProto::FLOAT);
  f.add_dims(1);
  f.add_float_data(1.5f);
  SymTensor tf = SymTensor::FromTensor(f);
  EXPECT_EQ(tf.elem_type, TensorProto::FLOAT);
  EXPECT_FALSE(tf.HasValue());

  TensorProto ext = Int64Tensor({2}, {}, true);
  ext.clear_raw_data();
  ext.set_data_location(TensorProto::EXTERNAL);
  auto* entry = ext.add_external_data();
  entry->set_key("location");
  entry->set_value("weights.bin");
  SymTensor te = SymTensor::FromTensor(ext);
  EXPECT_FALSE(te.HasValue());
  EXPECT_EQ(te.shape.ToString(), "[2]");

  SymTensor short_data = SymTensor::FromTensor(Int64Tensor({3}, {1, 2}, true));
  EXPECT_FALSE(short_data.HasValue());

  TensorProto negative = Int64Tensor({-1}, {}, true);
  SymTensor tn = SymTensor::FromTensor(negative);
  EXPECT_FALSE(tn.HasValue());
  EXPECT_TRUE(tn.shape[0].IsUnknown());
}

TEST(SymTensor, ReadsAndWritesTypes) {
  TypeProto type;
  auto* tt = type.mutable_tensor_type();
  tt->set_elem_type(TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("batch");
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  SymTensor t = SymTensor::FromType(type);
  EXPECT_EQ(t.kind, SymTensor::Kind::kTensor);
  EXPECT_EQ(t.ToString(), "float[batch,3]");
  TypeProto back;
  t.ToType(back);
  EXPECT_EQ(back.SerializeAsString(), type.SerializeAsString());

  TypeProto no_shape;
  no_shape.mutable_tensor_type()->set_elem_type(TensorProto::INT64);
  SymTensor ns = SymTensor::FromType(no_shape);
  EXPECT_FALSE(ns.shape.HasRank());
  TypeProto ns_back;
  ns.ToType(ns_back);
  EXPECT_FALSE(ns_back.tensor_type().has_shape());
  EXPECT_EQ(ns_back.tensor_type().elem_type(), TensorProto::INT64);

  TypeProto seq;
  *seq.mutable_sequence_type()->mutable_elem_type() = type;
  SymTensor s = SymTensor::FromType(seq);
  EXPECT_EQ(s.kind, SymTensor::Kind::kSequence);
  EXPECT_EQ(s.ToString(), "seq(float[batch,3])");
  TypeProto seq_back;
  s.ToType(seq_back);
  EXPECT_EQ(seq_back.SerializeAsString(), seq.SerializeAsString());

  TypeProto opt;
  *opt.mutable_optional_type()->mutable_elem_type() = type;
  SymTensor o = SymTensor::FromType(opt);
  EXPECT_EQ(o.kind, SymTensor::Kind::kOptional);
  TypeProto opt_back;
  o.ToType(opt_back);
  EXPECT_EQ(opt_back.SerializeAsString(), opt.SerializeAsString());

  TypeProto map;
  map.mutable_map_type()->set_key_type(TensorProto::INT64);
  EXPECT_EQ(SymTensor::FromType(map).kind, SymTensor::Kind::kUnknown);
  EXPECT_EQ(SymTensor::FromType(TypeProto()).kind, SymTensor::Kind::kUnknown);
  TypeProto opt_seq;
  *opt_seq.mutable_optional_type()->mutable_elem_type() = seq;
  EXPECT_EQ(SymTensor::FromType(opt_seq).kind, SymTensor::Kind::kUnknown);

  TypeProto cleared = type;
  SymTensor::Unknown().ToType(cleared);
  EXPECT_EQ(cleared.value_case(), TypeProto::VALUE_NOT_SET);
}

TEST(SymTensor, WritesSymbolicDimsAsDimParam) {
  SymTensor t = SymTensor::Tensor(TensorProto::FLOAT, SymShape({S("seq") + S("past"), SymDim::Unknown(), 4}));
  TypeProto type;
  t.ToType(type);
  const auto& shape = type.tensor_type().shape();
  ASSERT_EQ(shape.dim_size(), 3);
  EXPECT_EQ(shape.dim(0).dim_param(), "past+seq");
  EXPECT_FALSE(shape.dim(1).has_dim_param());
  EXPECT_FALSE(shape.dim(1).has_dim_value());
  EXPECT_EQ(shape.dim(2).dim_value(), 4);
}

// ---- AddKnowledge ----

TEST(AddKnowledge, FillsWhatIsUnknownAndKeepsWhatIsKnown) {
  SymTensor known = SymTensor::Tensor(0, SymShape({S("batch"), SymDim::Unknown(), 4}));
  const SymTensor other = SymTensor::Tensor(TensorProto::FLOAT, SymShape({8, 16, S("other")}));
  EXPECT_TRUE(AddKnowledge(known, other));
  // The symbol stays (other values may share it); the unknown dim and the type are filled.
  EXPECT_EQ(known.ToString(), "float[batch,16,4]");
  EXPECT_FALSE(AddKnowledge(known, other));  // nothing more to learn

  SymTensor unknown_rank = SymTensor::Tensor(TensorProto::FLOAT, SymShape::UnknownRank());
  EXPECT_TRUE(AddKnowledge(unknown_rank, other));
  EXPECT_EQ(unknown_rank.ToString(), "float[8,16,other]");

  SymTensor nothing = SymTensor::Unknown();
  EXPECT_TRUE(AddKnowledge(nothing, other));
  EXPECT_EQ(nothing.ToString(), other.ToString());
  EXPECT_FALSE(AddKnowledge(nothing, SymTensor::Unknown()));
}

TEST(AddKnowledge, TakesElementsOnlyForTheSameStaticShape) {
  SymTensor shape_only = SymTensor::Tensor(TensorProto::INT64, SymShape({SymDim::Unknown()}));
  const SymTensor values = SymTensor::IntValues(TensorProto::INT64, {2, S("seq"), 64});
  EXPECT_TRUE(AddKnowledge(shape_only, values));
  EXPECT_EQ(shape_only.ToString(), values.ToString());

  // A symbolic length is kept, and the elements (which need a static shape) are not taken.
  SymTensor symbolic_length = SymTensor::Tensor(TensorProto::INT64, SymShape({S("n")}));
  EXPECT_FALSE(AddKnowledge(symbolic_length, values));
  EXPECT_FALSE(symbolic_length.HasValue());

  SymTensor partial = SymTensor::IntValues(TensorProto::INT64, {SymDim::Unknown(), S("seq"), SymDim::Unknown()});
  EXPECT_TRUE(AddKnowledge(partial, SymTensor::IntValues(TensorProto::INT64, {2, 5, 64})));
  EXPECT_EQ(DimsText(*partial.value), "2;seq;64;");
}

TEST(AddKnowledge, KeepsItsOwnWhereTheTwoDisagree) {
  const SymTensor float3 = SymTensor::Tensor(TensorProto::FLOAT, SymShape({SymDim::Unknown(), 3}));
  SymTensor known = float3;
  EXPECT_FALSE(AddKnowledge(known, SymTensor::Tensor(TensorProto::INT64, SymShape({2, 3}))));
  EXPECT_FALSE(AddKnowledge(known, SymTensor::Tensor(TensorProto::FLOAT, SymShape({2, 3, 4}))));
  SymTensor sequence = SymTensor::Tensor(TensorProto::FLOAT, SymShape({2, 3}));
  sequence.kind = SymTensor::Kind::kSequence;
  EXPECT_FALSE(AddKnowledge(known, sequence));
  EXPECT_EQ(known.ToString(), float3.ToString());
}

}  // namespace
}  // namespace onnxopt::core::shapes
