#include "onnx_core/eval/work_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "onnx_core/common/error.h"

namespace onnxopt::core::eval {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// The message of the ModelError `charge` throws ("" when it throws none).
template <class Charge>
std::string ErrorOf(Charge&& charge) {
  try {
    charge();
  } catch (const ModelError& error) {
    return error.what();
  }
  return "";
}

TEST(WorkBudget, RefusesOneCallAboveTheLimitWithoutABudget) {
  EXPECT_EQ(ErrorOf([] { ChargeWork(kMaxStepsPerKernelCall, "the grid"); }), "");
  EXPECT_THAT(ErrorOf([] { ChargeWork(kMaxStepsPerKernelCall * 2, "the grid"); }),
              AllOf(HasSubstr("the grid: 34359738368 steps"), HasSubstr("evaluator's limit of 17179869184")));
  // Sizes that overflowed or came from NaN coordinates.
  EXPECT_THAT(ErrorOf([] { ChargeWork(std::numeric_limits<double>::infinity(), "the grid"); }), HasSubstr("inf steps"));
  EXPECT_THAT(ErrorOf([] { ChargeWork(std::nan(""), "the grid"); }), HasSubstr("the grid: "));
}

TEST(WorkBudget, DataWorkHasNoLimitPerCallButSpendsTheBudgets) {
  // A model's own matrix products: evaluated on purpose, any size; folded, the budget's.
  EXPECT_EQ(ErrorOf([] { ChargeDataWork(kMaxStepsPerKernelCall * 4, "a product"); }), "");
  WorkBudget budget(1000, "the budget");
  ScopedWorkBudget scope(budget);
  ChargeDataWork(600, "a product");
  EXPECT_EQ(budget.spent(), 600u);
  EXPECT_EQ(ErrorOf([] { ChargeDataWork(kMaxStepsPerKernelCall * 4, "a product"); }),
            "a product: 68719476736 steps, more than the 400 left of the budget (1000 steps)");
  EXPECT_THAT(ErrorOf([] { ChargeDataWork(std::nan(""), "a product"); }), HasSubstr("inf steps"));
  EXPECT_EQ(budget.spent(), 600u);
}

TEST(WorkBudget, SpendsUntilACallDoesNotFit) {
  WorkBudget budget(1000, "the test's budget");
  {
    ScopedWorkBudget scope(budget);
    ChargeWork(600, "a");
    ChargeWork(399.5, "b");  // counted as 400: steps are whole
    EXPECT_EQ(budget.spent(), 1000u);
    EXPECT_FALSE(scope.refused_steps());
    EXPECT_EQ(ErrorOf([] { ChargeWork(1, "c"); }), "c: 1 steps, more than the 0 left of the test's budget (1000 steps)");
    EXPECT_EQ(scope.refused_steps(), 1.0);
    EXPECT_EQ(ErrorOf([] { ChargeWork(0, "d"); }), "");
  }
  // Out of its scope, the budget is not charged.
  ChargeWork(5000, "e");
  EXPECT_EQ(budget.spent(), 1000u);
}

TEST(WorkBudget, ARefusedChargeSpendsNothing) {
  WorkBudget budget(1000, "the budget");
  ScopedWorkBudget scope(budget);
  EXPECT_NE(ErrorOf([] { ChargeWork(1001, "big"); }), "");
  EXPECT_EQ(budget.spent(), 0u);
  ChargeWork(1000, "all of it");
  EXPECT_EQ(budget.spent(), 1000u);
}

TEST(WorkBudget, NestedScopesChargeEveryBudgetOnce) {
  WorkBudget outer(1000, "the outer budget"), inner(500, "the inner budget");
  ScopedWorkBudget outer_scope(outer);
  {
    ScopedWorkBudget inner_scope(inner);
    ScopedWorkBudget again(outer);  // the same budget twice: charged once
    ChargeWork(300, "a");
    EXPECT_EQ(outer.spent(), 300u);
    EXPECT_EQ(inner.spent(), 300u);
    // The inner budget refuses: neither is charged, and the refusing scope says so.
    EXPECT_THAT(ErrorOf([] { ChargeWork(300, "b"); }), HasSubstr("left of the inner budget"));
    EXPECT_EQ(inner_scope.refused_steps(), 300.0);
    EXPECT_FALSE(again.refused_steps());
    EXPECT_EQ(outer.spent(), 300u);
  }
  ChargeWork(700, "c");
  EXPECT_EQ(outer.spent(), 1000u);
  EXPECT_EQ(inner.spent(), 300u);
}

}  // namespace
}  // namespace onnxopt::core::eval
