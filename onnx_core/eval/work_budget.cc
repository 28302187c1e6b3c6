#include "onnx_core/eval/work_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "onnx_core/common/error.h"

namespace onnxopt::core::eval {

namespace {

thread_local ScopedWorkBudget* innermost_scope = nullptr;

// Steps as messages give them: exact below 10^15, then in scientific notation.
std::string DescribeSteps(double steps) {
  if (steps < 1e15) return std::to_string(static_cast<std::uint64_t>(steps));
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", steps);
  return text;
}

}  // namespace

ScopedWorkBudget::ScopedWorkBudget(WorkBudget& budget) : budget_(budget), enclosing_(innermost_scope) {
  innermost_scope = this;
}

ScopedWorkBudget::~ScopedWorkBudget() { innermost_scope = enclosing_; }

void ChargeWork(double steps, std::string_view what) {
  // NaN (a size computed from NaN coordinates) is refused like an infinite count.
  if (!(steps <= kMaxStepsPerKernelCall))
    throw ModelError(std::string(what) + ": " + DescribeSteps(steps) + " steps, more than the evaluator's limit of " +
                     DescribeSteps(kMaxStepsPerKernelCall) + " for one operator");
  ChargeDataWork(steps, what);
}

void ChargeDataWork(double steps, std::string_view what) {
  if (!innermost_scope) return;
  if (std::isnan(steps)) steps = HUGE_VAL;
  steps = std::max(0.0, std::ceil(steps));
  // The budgets in force, each once (nested scopes may hold the same one).
  std::vector<ScopedWorkBudget*> scopes;
  for (ScopedWorkBudget* scope = innermost_scope; scope; scope = scope->enclosing_)
    if (std::none_of(scopes.begin(), scopes.end(), [&](const ScopedWorkBudget* inner) {
          return &inner->budget_ == &scope->budget_;
        }))
      scopes.push_back(scope);
  for (ScopedWorkBudget* scope : scopes) {
    const WorkBudget& budget = scope->budget_;
    const double left = static_cast<double>(budget.limit_ - budget.spent_);
    if (steps > left) {
      scope->refused_steps_ = steps;
      throw ModelError(std::string(what) + ": " + DescribeSteps(steps) + " steps, more than the " +
                       DescribeSteps(left) + " left of " + std::string(budget.name_) + " (" +
                       DescribeSteps(static_cast<double>(budget.limit_)) + " steps)");
    }
  }
  for (ScopedWorkBudget* scope : scopes) scope->budget_.spent_ += static_cast<std::uint64_t>(steps);
}

}  // namespace onnxopt::core::eval
