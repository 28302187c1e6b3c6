#pragma once
// Bounds on the work of kernels. Most kernels do work in proportion to their inputs and
// outputs, which the limit on tensor sizes bounds. Some multiply sizes together: a
// MatMul's multiply-adds, an Einsum's label combinations, NonMaxSuppression's pairs of
// boxes, sampling grids sized by an attribute. A model of a few kilobytes can ask them
// for hours of computation, so they count their work in elementary steps (a
// multiply-add, an interpolation, a comparison of two boxes) and charge it before
// computing anything:
// - one kernel call may never take more than kMaxStepsPerKernelCall, whatever runs it,
//   unless the data bounds its work (ChargeDataWork: a matrix product);
// - a caller that evaluates on its own initiative (the optimizer folding constants)
//   puts a WorkBudget in force: every charge made while it is in force is taken from it,
//   and a charge that does not fit is refused. The count is of steps, not of time, so
//   what is folded does not depend on the machine.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace onnxopt::core::eval {

// Steps one kernel call may take: at a few nanoseconds a step, about a minute.
inline constexpr double kMaxStepsPerKernelCall = 17179869184.0;  // 2^34

// A number of steps to share among the kernel calls made while it is in force.
class WorkBudget {
 public:
  // `name` says in messages which budget was spent ("constant folding's work budget"); it
  // must outlive this object.
  WorkBudget(std::uint64_t steps, std::string_view name) : limit_(steps), name_(name) {}

  std::uint64_t limit() const { return limit_; }
  std::uint64_t spent() const { return spent_; }
  std::string_view name() const { return name_; }

 private:
  friend void ChargeDataWork(double steps, std::string_view what);
  std::uint64_t limit_;
  std::uint64_t spent_ = 0;
  std::string_view name_;
};

// Puts `budget` in force on the calling thread while it lives. Scopes nest: a charge is
// taken from every budget in force (once from a budget two scopes hold), and refused if
// any of them cannot take it.
class ScopedWorkBudget {
 public:
  explicit ScopedWorkBudget(WorkBudget& budget);
  ~ScopedWorkBudget();
  ScopedWorkBudget(const ScopedWorkBudget&) = delete;
  ScopedWorkBudget& operator=(const ScopedWorkBudget&) = delete;
  // The steps of the last charge this scope's budget refused while it was in force, if
  // any: lets the caller tell this refusal from the kernel's other errors.
  std::optional<double> refused_steps() const { return refused_steps_; }

 private:
  friend void ChargeDataWork(double steps, std::string_view what);
  WorkBudget& budget_;
  ScopedWorkBudget* enclosing_;
  std::optional<double> refused_steps_;
};

// Charges `steps` (computed in double, so that a product of sizes cannot overflow) to the
// budgets in force, before the kernel computes: for work that an attribute or a value can
// make far larger than the data (sampling grids, windows, label combinations, pairs of
// boxes). Throws ModelError naming `what` (a noun phrase: "RoiAlign's sampling grid")
// when the steps exceed kMaxStepsPerKernelCall or what is left of a budget; nothing is
// charged then.
void ChargeWork(double steps, std::string_view what);

// The same for work the data bounds (a matrix product: at most the square root of its
// output's size per element of its inputs), without the limit per call: a model's own
// products run to 10^12 multiply-adds when it is evaluated on purpose, and the budgets
// stop them where nobody asked (folding).
void ChargeDataWork(double steps, std::string_view what);

}  // namespace onnxopt::core::eval
