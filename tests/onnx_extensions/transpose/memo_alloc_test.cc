// T26 MemoKeyAllocatesNothing (transpose-optimizer.md 6.1 item 4, finding R5-7): the memo of
// the push walk is keyed by two integers and, once sized for the graph's values, finding,
// inserting and erasing entries allocates nothing. This executable replaces the global
// operator new to count allocations, which is why it is apart from
// transpose_optimizer_tests.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>

#include "onnx_extensions/transpose/cost_model.h"

namespace {
std::atomic<std::int64_t> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* block = std::malloc(size == 0 ? 1 : size)) return block;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void operator delete(void* block) noexcept { std::free(block); }
void operator delete[](void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }
void operator delete[](void* block, std::size_t) noexcept { std::free(block); }

namespace onnxopt::testing {
namespace {

using onnx_transpose::WalkMemo;

static_assert(std::is_trivially_copyable_v<WalkMemo::Key> && sizeof(WalkMemo::Key) == 2 * sizeof(int),
              "the memo key is a pair of integers (no string, no vector)");

TEST(TransposeOptimizer, T26_MemoKeyAllocatesNothing) {
  constexpr int kValues = 10000;
  WalkMemo memo;
  memo.Reserve(kValues);
  const std::int64_t before = allocations.load();
  // What a walk over a 10k chain does: one entry per value, looked up, completed, later
  // erased by invalidation and made again.
  for (int round = 0; round < 2; ++round) {
    for (int value = 0; value < kValues; ++value) {
      ASSERT_EQ(memo.Find({value, 3}), nullptr);
      WalkMemo::Entry& entry = memo.Insert({value, 3});
      entry.in_progress = false;
      entry.flags.reaches_cancel = value % 2 == 0;
    }
    for (int value = 0; value < kValues; ++value) {
      const WalkMemo::Entry* entry = memo.Find({value, 3});
      ASSERT_NE(entry, nullptr);
      EXPECT_EQ(entry->flags.reaches_cancel, value % 2 == 0);
      EXPECT_EQ(memo.Find({value, 4}), nullptr);
    }
    for (int value = 0; value < kValues; ++value) ASSERT_EQ(memo.Erase(value), 1);
  }
  EXPECT_EQ(allocations.load() - before, 0);
  EXPECT_FALSE(memo.HasEntries(kValues + 5));  // beyond Reserve: no entry, no growth

  // The counter does count: a second perm on one value goes to the overflow vector.
  const std::int64_t second = allocations.load();
  memo.Insert({7, 1});
  memo.Insert({7, 2});
  EXPECT_GE(allocations.load() - second, 1);
  EXPECT_NE(memo.Find({7, 2}), nullptr);
  EXPECT_EQ(memo.Erase(7), 2);
  EXPECT_FALSE(memo.HasEntries(7));
}

}  // namespace
}  // namespace onnxopt::testing
