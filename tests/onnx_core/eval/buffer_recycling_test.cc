#include "onnx_core/eval/buffer_recycling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <optional>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/eval/tensor.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::eval {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// A float tensor of `bytes` bytes (a multiple of 4) filled with `value`.
Tensor FloatsOfBytes(std::size_t bytes, float value) {
  Tensor tensor(TensorProto::FLOAT, {static_cast<std::int64_t>(bytes / sizeof(float))});
  std::fill(tensor.MutableData<float>(), tensor.MutableData<float>() + tensor.size(), value);
  return tensor;
}

TEST(BufferRecycling, NothingIsKeptOutsideAScope) {
  const std::uint64_t reused = CurrentBufferRecyclingStats().reused;
  { const Tensor dropped = FloatsOfBytes(2 * kMiB, 1.0f); }
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_bytes, 0u);
  const Tensor next = FloatsOfBytes(2 * kMiB, 1.0f);
  EXPECT_EQ(CurrentBufferRecyclingStats().reused, reused);
}

TEST(BufferRecycling, AFreedBufferServesTheNextRequestOfItsSizeZeroFilled) {
  BufferRecycling scope;
  const std::uint64_t reused = CurrentBufferRecyclingStats().reused;
  const std::byte* first_data = nullptr;
  {
    const Tensor first = FloatsOfBytes(2 * kMiB, 7.0f);
    first_data = first.RawData();
  }
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_bytes, 2 * kMiB);
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_buffers, 1u);

  const Tensor second(TensorProto::FLOAT, {static_cast<std::int64_t>(2 * kMiB / sizeof(float))});
  EXPECT_EQ(second.RawData(), first_data);
  EXPECT_EQ(CurrentBufferRecyclingStats().reused, reused + 1);
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_bytes, 0u);
  // The constructor zero-fills, whatever the recycled buffer held.
  EXPECT_TRUE(std::all_of(second.Data<float>(), second.Data<float>() + second.size(),
                          [](float value) { return value == 0.0f; }));
}

TEST(BufferRecycling, SmallBuffersAreNotKept) {
  BufferRecycling scope;
  { const Tensor small = FloatsOfBytes(kRecycledBufferBytes - sizeof(float), 1.0f); }
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_bytes, 0u);
  { const Tensor large = FloatsOfBytes(kRecycledBufferBytes, 1.0f); }
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_bytes, kRecycledBufferBytes);
}

TEST(BufferRecycling, ARequestNoBufferFitsFreesTheOldestKeptOnesFirst) {
  BufferRecycling scope;
  {
    const Tensor oldest = FloatsOfBytes(2 * kMiB, 1.0f);
    const Tensor newer = FloatsOfBytes(3 * kMiB, 1.0f);
  }  // `newer` is freed first: the oldest kept buffer is the 3 MiB one
  ASSERT_EQ(CurrentBufferRecyclingStats().kept_bytes, 5 * kMiB);

  // 1 MiB more than the oldest kept buffer: both go, so that live and kept bytes together
  // stay within what was live before.
  {
    const Tensor larger = FloatsOfBytes(4 * kMiB, 1.0f);
    EXPECT_EQ(CurrentBufferRecyclingStats().kept_bytes, 0u);
  }
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_bytes, 4 * kMiB);

  {
    const Tensor a = FloatsOfBytes(2 * kMiB, 1.0f);  // frees the 4 MiB one (the only one)
    const Tensor b = FloatsOfBytes(5 * kMiB, 1.0f);
  }  // kept, oldest first: 5 MiB, 2 MiB
  // A request of 1.5 MiB frees the oldest kept buffer only.
  const Tensor c = FloatsOfBytes(kMiB + kMiB / 2, 1.0f);
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_bytes, 2 * kMiB);
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_buffers, 1u);
}

TEST(BufferRecycling, TheLastScopeToCloseFreesWhatIsKept) {
  std::optional<BufferRecycling> outer(std::in_place);
  {
    BufferRecycling inner;
    { const Tensor dropped = FloatsOfBytes(2 * kMiB, 1.0f); }
  }
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_bytes, 2 * kMiB);
  outer.reset();
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_bytes, 0u);
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_buffers, 0u);
}

// test.Double(x) = x + x, into a new tensor.
void RegisterDoubleKernel() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterKernel("test", "Double", [](KernelContext& context) -> std::vector<Value> {
      const Tensor& x = context.TensorInput(0);
      Tensor out(TensorProto::FLOAT, x.shape());
      for (std::int64_t i = 0; i < x.size(); ++i) out.MutableData<float>()[i] = 2 * x.Data<float>()[i];
      return {out};
    });
  });
}

TEST(BufferRecycling, RunRecyclesTheBuffersOfDeadValuesAndKeepsNothingAfterwards) {
  RegisterDoubleKernel();
  // 2 MiB values: `a` is dead once `b` is computed, and `c` takes its buffer.
  const ModelProto model = onnxopt::testing::ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[524288] x) => (float[524288] c) {
      a = test.Double (x)
      b = test.Double (a)
      c = test.Double (b)
    })ONNX");
  const std::uint64_t reused = CurrentBufferRecyclingStats().reused;
  const ValueMap outputs = eval::Run(model, {{"x", FloatsOfBytes(2 * kMiB, 0.5f)}});
  EXPECT_GE(CurrentBufferRecyclingStats().reused, reused + 1);
  EXPECT_EQ(CurrentBufferRecyclingStats().kept_bytes, 0u);
  const Tensor& c = AsTensor(outputs.at("c"), "c");
  EXPECT_TRUE(std::all_of(c.Data<float>(), c.Data<float>() + c.size(), [](float value) { return value == 4.0f; }));
}

}  // namespace
}  // namespace onnxopt::core::eval
