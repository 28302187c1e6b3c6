#pragma once
// The Python side of the pattern API: borrowed views of nodes and graphs, the trampoline
// that forwards PatternOptimization's virtual functions to a Python subclass, and the
// helpers that keep Python pattern objects alive while C++ uses them.
//
// Every function here that touches a Python object holds the GIL. The optimizer runs with
// the GIL released (GraphGraph.optimize), so each callback reacquires it.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::python {

namespace py = pybind11;
using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::PatternOptimization;

// --- Borrowed views -----------------------------------------------------------------------
// Views handed to Python point into the C++ graph. They are stamped with the current
// epoch; the epoch advances when a callback returns and when an optimization starts or
// ends, which invalidates every view created before: using one then raises
// StaleViewError instead of reading freed memory. Guarded by the GIL.
std::uint64_t CurrentEpoch();
void AdvanceEpoch();

// Raised (as onnxopt.StaleViewError) when a view is used after it expired.
class StaleViewError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Advances the epoch when it goes out of scope (at the end of a callback).
class CallbackScope {
 public:
  CallbackScope() = default;
  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;
  ~CallbackScope() { AdvanceEpoch(); }
};

// A read-only view of one NodeProto.
struct NodeView {
  const NodeProto* node = nullptr;
  std::uint64_t epoch = 0;

  explicit NodeView(const NodeProto* node) : node(node), epoch(CurrentEpoch()) {}
  const NodeProto& Get() const;
};

// The Python GraphGraph: either owns its optimizer (built from Python) or borrows the one
// a callback runs in (epoch-checked, like NodeView). A borrowed view is read-only in the
// callbacks that must not change the graph (match, meet_requirements, a declarative
// replacement): a change there would not be recorded, so Replay would not reproduce it.
struct PyGraph {
  std::unique_ptr<GraphGraph> owned;
  GraphGraph* graph = nullptr;
  std::uint64_t epoch = 0;  // 0 when owned: valid as long as the object lives
  bool read_only = false;

  GraphGraph& Get() const;
  // Get() for a call that changes the graph (`what`); BuilderError on a read-only view.
  GraphGraph& Mutable(std::string_view what) const;
  static py::object Borrow(GraphGraph& graph, bool read_only);
};

// A MatchResult with the epoch of the callback that made it (its nodes are views).
struct PyMatch {
  MatchResult match;
  std::uint64_t epoch = CurrentEpoch();
};

// The C++ node behind a Python argument (a NodeView); TypeError otherwise.
const NodeProto* NodeOf(const py::handle& object);

// A string with static storage duration equal to `text` (NoMatchReason keeps a
// string_view). Reasons are few and usually literals, so the set stays small.
std::string_view InternReason(const std::string& text);

// --- The trampoline -----------------------------------------------------------------------
class PyPattern : public PatternOptimization {
 public:
  PyPattern(int priority, std::string name) : PatternOptimization(priority), name_(std::move(name)) {}

  std::string Name() const override { return name_; }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& candidate) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;

 private:
  std::string name_;
};

// A shared pointer to the C++ pattern of `object` (a PatternOptimization, C++ or Python)
// that keeps `object` alive until the last copy is released; releasing acquires the GIL.
std::shared_ptr<const PatternOptimization> KeepAlive(const py::handle& object);

// Stands for a Python pattern in a registry (global or builder): every optimizer gets a
// fresh proxy from the factory; matches are re-attributed to the proxy, which is the
// object the driver knows.
class RegistryProxy final : public PatternOptimization {
 public:
  explicit RegistryProxy(std::shared_ptr<const PatternOptimization> target)
      : PatternOptimization(target->priority), target_(std::move(target)) {}
  std::string Name() const override { return target_->Name(); }
  std::set<std::string> FastOpType() const override { return target_->FastOpType(); }
  MatchResult Match(GraphGraph& graph, const NodeProto& candidate) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override {
    return target_->Apply(graph, nodes);
  }
  std::string ToString() const override { return target_->ToString(); }

 private:
  std::shared_ptr<const PatternOptimization> target_;
};

}  // namespace onnxopt::python
