#include "python/src/py_pattern.h"

#include <pybind11/stl.h>

#include <mutex>
#include <unordered_set>

#include "onnx_core/common/error.h"

namespace onnxopt::python {

namespace {

std::uint64_t epoch = 1;

[[noreturn]] void RaiseNotImplemented(const std::string& pattern, const char* method) {
  PyErr_SetString(PyExc_NotImplementedError, (pattern + " does not implement " + method + "()").c_str());
  throw py::error_already_set();
}

[[noreturn]] void RaiseTypeError(const std::string& message) {
  PyErr_SetString(PyExc_TypeError, message.c_str());
  throw py::error_already_set();
}

}  // namespace

std::uint64_t CurrentEpoch() { return epoch; }
void AdvanceEpoch() { ++epoch; }

const NodeProto& NodeView::Get() const {
  if (epoch != CurrentEpoch())
    throw StaleViewError(
        "this node view has expired: nodes given to match/apply (or returned by graph queries) are only valid "
        "until the callback returns or the graph is optimized");
  return *node;
}

GraphGraph& PyGraph::Get() const {
  if (epoch != 0 && epoch != CurrentEpoch())
    throw StaleViewError("this graph view has expired: the graph given to match/apply is only valid during the callback");
  return *graph;
}

GraphGraph& PyGraph::Mutable(std::string_view what) const {
  GraphGraph& result = Get();
  if (read_only)
    throw BuilderError(std::string(what) +
                       " changes the graph, which is read-only in match, meet_requirements and a declarative "
                       "replacement (constants go through the replacement builder)");
  return result;
}

py::object PyGraph::Borrow(GraphGraph& graph, bool read_only) {
  auto view = std::make_unique<PyGraph>();
  view->graph = &graph;
  view->epoch = CurrentEpoch();
  view->read_only = read_only;
  return py::cast(std::move(view));
}

const NodeProto* NodeOf(const py::handle& object) {
  if (!py::isinstance<NodeView>(object))
    RaiseTypeError("expected a node given by the optimizer (NodeView), got " +
                   std::string(py::str(py::type::handle_of(object).attr("__name__"))));
  return &object.cast<const NodeView&>().Get();
}

std::string_view InternReason(const std::string& text) {
  static std::mutex mutex;
  // Never destroyed: reasons may be referenced by reports until the process ends.
  static auto* reasons = new std::unordered_set<std::string>();
  std::lock_guard lock(mutex);
  return *reasons->insert(text).first;
}

std::set<std::string> PyPattern::FastOpType() const {
  py::gil_scoped_acquire gil;
  py::function override = py::get_override(static_cast<const PatternOptimization*>(this), "fast_op_type");
  if (!override) return {};
  py::object ops = override();
  std::set<std::string> result;
  if (ops.is_none()) return result;
  if (py::isinstance<py::str>(ops)) RaiseTypeError(name_ + ".fast_op_type() must return a set of strings, not a string");
  for (py::handle op : ops) result.insert(op.cast<std::string>());
  return result;
}

MatchResult PyPattern::Match(GraphGraph& graph, const NodeProto& candidate) const {
  py::gil_scoped_acquire gil;
  CallbackScope scope;  // declared after `gil`: views expire while the GIL is held
  py::function override = py::get_override(static_cast<const PatternOptimization*>(this), "match");
  if (!override) RaiseNotImplemented(name_, "match");
  py::object result = override(PyGraph::Borrow(graph, /*read_only=*/true), NodeView(&candidate));
  if (result.is_none()) return NoMatch(candidate, "match returned None");
  if (!py::isinstance<PyMatch>(result))
    RaiseTypeError(name_ + ".match() must return self.result(...) or self.no_match(...), not " +
                   std::string(py::str(py::type::handle_of(result).attr("__name__"))));
  return result.cast<const PyMatch&>().match;
}

utils::RepeatedProtoField<NodeProto> PyPattern::Apply(GraphGraph& graph,
                                                      const std::vector<const NodeProto*>& nodes) const {
  py::gil_scoped_acquire gil;
  CallbackScope scope;
  py::function override = py::get_override(static_cast<const PatternOptimization*>(this), "apply");
  if (!override) RaiseNotImplemented(name_, "apply");
  py::list views;
  for (const NodeProto* node : nodes) {
    if (node)
      views.append(py::cast(NodeView(node)));
    else
      views.append(py::none());
  }
  py::object replacement = override(PyGraph::Borrow(graph, /*read_only=*/false), views);
  utils::RepeatedProtoField<NodeProto> added;
  if (replacement.is_none()) RaiseTypeError(name_ + ".apply() must return a list of nodes, not None");
  // Copied into C++ now: nothing returned by the callback is referenced afterwards.
  for (py::handle item : replacement) {
    if (py::isinstance<NodeView>(item)) {
      *added.Add() = item.cast<const NodeView&>().Get();
      continue;
    }
    if (!py::hasattr(item, "SerializeToString"))
      RaiseTypeError(name_ + ".apply() must return onnx.NodeProto objects, got " +
                     std::string(py::str(py::type::handle_of(item).attr("__name__"))));
    py::bytes bytes = item.attr("SerializeToString")();
    const std::string_view data(bytes);
    if (!added.Add()->ParseFromArray(data.data(), static_cast<int>(data.size())))
      RaiseTypeError(name_ + ".apply() returned an object that is not a NodeProto");
  }
  return added;
}

namespace {

// Releases the Python reference that keeps a pattern alive, with the GIL. At interpreter
// shutdown (no GIL can be taken any more) the reference is leaked, never released.
struct PythonReleaser {
  py::object* keep;
  void operator()(const PatternOptimization*) const {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
    py::gil_scoped_acquire gil;
    delete keep;
  }
};

}  // namespace

std::shared_ptr<const PatternOptimization> KeepAlive(const py::handle& object) {
  if (!py::isinstance<PatternOptimization>(object))
    RaiseTypeError("expected a PatternOptimization (or a registered pattern name), got " +
                   std::string(py::str(py::type::handle_of(object).attr("__name__"))));
  const auto* pattern = object.cast<const PatternOptimization*>();
  return std::shared_ptr<const PatternOptimization>(
      pattern, PythonReleaser{new py::object(py::reinterpret_borrow<py::object>(object))});
}

MatchResult RegistryProxy::Match(GraphGraph& graph, const NodeProto& candidate) const {
  MatchResult match = target_->Match(graph, candidate);
  if (match.pattern == target_.get()) match.pattern = this;
  return match;
}

}  // namespace onnxopt::python
