// _onnxpycore: the Python bindings of onnx_core's optimizer (module onnxopt._onnxpycore,
// classes in its submodule `builder`).
//
// Models cross the boundary as serialized bytes (the onnx Python package converts them
// with SerializeToString / FromString); nodes and graphs handed to pattern callbacks are
// borrowed, epoch-checked views (py_pattern.h). The optimizer runs with the GIL released.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/ir/initializer_inputs.h"
#include "onnx_core/ir/input_shapes.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/ir/model_summary.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/optimizer/match_cache.h"
#include "onnx_core/optimizer/pattern_registry.h"
#include "onnx_core/optimizer/report.h"
#include "onnx_core/optimizer/report_html.h"
#include "onnx_core/optimizer/rewrite_file.h"
#include "onnx_core/verify/model_comparison.h"
#include "python/src/core_library.h"
#include "python/src/fusion_module.h"
#include "python/src/py_pattern.h"

namespace onnxopt::python {

namespace {

using namespace pybind11::literals;
using core::builder::GraphBuilder;
using core::builder::LocalRewriting;
using core::builder::OptimizationReport;
using core::builder::OptimizerOptions;
using core::builder::NumericalClass;
using core::builder::PatternSelection;

// --- Protobuf <-> Python ------------------------------------------------------------------

py::bytes ToBytes(const google::protobuf::MessageLite& message) {
  return py::bytes(core::ir::SerializeDeterministic(message));
}

// `message` parsed from `object`: bytes, or any protobuf message (SerializeToString).
template <class Message>
Message FromPython(const py::handle& object, const char* what) {
  py::bytes bytes = py::isinstance<py::bytes>(object) ? py::reinterpret_borrow<py::bytes>(object)
                                                      : py::bytes(object.attr("SerializeToString")());
  const std::string_view data(bytes);
  Message message;
  if (!message.ParseFromArray(data.data(), static_cast<int>(data.size())))
    throw py::value_error(std::string("cannot parse a ") + what);
  return message;
}

py::object OnnxMessage(const char* type, const google::protobuf::MessageLite& message) {
  return py::module_::import("onnx").attr(type).attr("FromString")(ToBytes(message));
}

// A TensorProto from a numpy array (onnx.numpy_helper.from_array) or an onnx.TensorProto.
TensorProto TensorFromPython(const py::handle& value) {
  if (py::hasattr(value, "SerializeToString")) return FromPython<TensorProto>(value, "TensorProto");
  py::object tensor = py::module_::import("onnx.numpy_helper").attr("from_array")(value);
  return FromPython<TensorProto>(tensor, "TensorProto");
}

// --- Attributes ---------------------------------------------------------------------------

py::object AttributeValue(const AttributeProto& attribute) {
  switch (attribute.type()) {
    case AttributeProto::INT:
      return py::int_(attribute.i());
    case AttributeProto::FLOAT:
      return py::float_(attribute.f());
    case AttributeProto::STRING:
      return py::bytes(attribute.s());
    case AttributeProto::INTS:
      return py::cast(std::vector<std::int64_t>(attribute.ints().begin(), attribute.ints().end()));
    case AttributeProto::FLOATS:
      return py::cast(std::vector<double>(attribute.floats().begin(), attribute.floats().end()));
    case AttributeProto::STRINGS: {
      py::list strings;
      for (const std::string& s : attribute.strings()) strings.append(py::bytes(s));
      return strings;
    }
    default:  // tensors, graphs, sparse tensors, type protos: as onnx.helper gives them
      return py::module_::import("onnx.helper").attr("get_attribute_value")(OnnxMessage("AttributeProto", attribute));
  }
}

// --- Shapes -------------------------------------------------------------------------------

// What shape inference knows about a value, for Python: the element type and the dims
// (int, str for a symbol or expression, None for an unknown dim; `dims` is None when the
// rank is unknown).
struct PyShape {
  std::string kind;  // "tensor", "sequence", "optional", "unknown"
  int elem_type = 0;
  py::object dims;
  std::string text;
};

PyShape ToPython(const core::shapes::SymTensor& tensor) {
  using Kind = core::shapes::SymTensor::Kind;
  PyShape shape;
  shape.kind = tensor.kind == Kind::kTensor     ? "tensor"
               : tensor.kind == Kind::kSequence ? "sequence"
               : tensor.kind == Kind::kOptional ? "optional"
                                                : "unknown";
  shape.elem_type = tensor.elem_type;
  shape.text = tensor.ToString();
  if (!tensor.shape.HasRank()) {
    shape.dims = py::none();
    return shape;
  }
  py::list dims;
  for (const core::shapes::SymDim& dim : tensor.shape.Dims()) {
    if (auto value = dim.Constant())
      dims.append(py::int_(*value));
    else if (dim.IsUnknown())
      dims.append(py::none());
    else
      dims.append(py::str(dim.ToString()));
  }
  shape.dims = std::move(dims);
  return shape;
}

// --- Patterns from Python arguments ---------------------------------------------------------

std::shared_ptr<const PatternOptimization> CreateRegistered(const std::string& name) {
  for (const auto& entry : core::builder::RegisteredPatterns())
    if (entry.name == name) return std::shared_ptr<const PatternOptimization>(entry.factory());
  throw py::key_error("no registered pattern is named '" + name + "'");
}

// A pattern object, a pattern class (instantiated) or a registered name.
std::shared_ptr<const PatternOptimization> ToPattern(const py::handle& item) {
  if (py::isinstance<py::str>(item)) return CreateRegistered(item.cast<std::string>());
  if (py::isinstance<py::type>(item)) return KeepAlive(item());
  return KeepAlive(item);
}

// The Python patterns of the global registry, by name. The C++ registry's factories only
// capture the name and look it up here; the map is emptied at interpreter exit (atexit), so
// no C++ static holds a Python object past shutdown. Guarded by the GIL.
std::map<std::string, py::object>& PythonRegistry() {
  static auto* registry = new std::map<std::string, py::object>();
  return *registry;
}

// A Python pattern's numerical class: its `numerics` attribute ("exact" when absent).
NumericalClass PythonNumerics(const py::object& pattern) {
  const std::string text = py::hasattr(pattern, "numerics") ? py::str(pattern.attr("numerics")).cast<std::string>() : "exact";
  for (NumericalClass numerics : {NumericalClass::kExact, NumericalClass::kRounding, NumericalClass::kApproximate})
    if (text == core::builder::NumericalClassName(numerics)) return numerics;
  throw py::value_error("numerics must be 'exact', 'rounding' or 'approximate', got '" + text + "'");
}

void RegisterGlobally(py::object pattern, bool replace) {
  if (py::isinstance<py::type>(pattern)) pattern = pattern();
  const std::string name = KeepAlive(pattern)->Name();  // checks the type
  const NumericalClass numerics = PythonNumerics(pattern);
  core::builder::PatternFactory factory = [name]() -> std::unique_ptr<PatternOptimization> {
    py::gil_scoped_acquire gil;
    auto it = PythonRegistry().find(name);
    if (it == PythonRegistry().end())
      throw BuilderError("the Python pattern '" + name + "' is no longer available (interpreter shutdown)");
    return std::make_unique<RegistryProxy>(KeepAlive(it->second));
  };
  // The class's own docstring (not an inherited one) documents it, as the header comment
  // documents a built-in pattern.
  const py::object doc = py::type::handle_of(pattern).attr("__dict__").attr("get")("__doc__");
  const std::string text =
      doc.is_none() ? "" : py::module_::import("inspect").attr("cleandoc")(doc).cast<std::string>();
  if (replace) {
    core::builder::ReplacePattern(name, std::move(factory), "python", numerics);
    core::builder::DocumentPattern(name, text);
  } else {
    core::builder::RegisteredPattern entry{name, std::move(factory), "python", numerics};
    entry.doc = text;
    core::builder::RegisterPattern(std::move(entry));
  }
  PythonRegistry()[name] = std::move(pattern);
}

// A reference to `object` that C++ copies share and may release without the GIL: the last
// one takes it.
std::shared_ptr<py::object> SharedReference(py::object object) {
  return std::shared_ptr<py::object>(new py::object(std::move(object)), [](py::object* reference) {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return;  // leaked at shutdown, never released without the GIL
    py::gil_scoped_acquire gil;
    delete reference;
  });
}

// OptimizerOptions::do_not_remove from a Python callable(node) -> bool, which keeps the
// default marker: a node named with it stays protected. The optimizer runs without the
// GIL; each call takes it. An exception of the callable propagates to optimize(), chained
// to a RuntimeError naming the node.
std::function<bool(const NodeProto&)> DoNotRemovePredicate(py::object callable) {
  if (!PyCallable_Check(callable.ptr())) throw py::type_error("do_not_remove must be a callable(node) -> bool");
  std::shared_ptr<py::object> keep = SharedReference(std::move(callable));
  return [keep](const NodeProto& node) {
    if (node.name().find(core::builder::kDoNotRemoveMarker) != std::string::npos) return true;
    py::gil_scoped_acquire gil;
    CallbackScope scope;  // the view expires when the callable returns
    try {
      return py::bool_((*keep)(NodeView(&node))).cast<bool>();
    } catch (py::error_already_set& error) {
      py::raise_from(error, PyExc_RuntimeError,
                     ("do_not_remove raised on node '" + node.name() + "' (" + node.op_type() + ")").c_str());
      throw py::error_already_set();
    }
  };
}

// A factory for a builder's registry, owning a reference to the Python pattern.
core::builder::PatternFactory BuilderFactory(py::object pattern) {
  std::shared_ptr<py::object> keep = SharedReference(std::move(pattern));
  return [keep]() -> std::unique_ptr<PatternOptimization> {
    py::gil_scoped_acquire gil;
    return std::make_unique<RegistryProxy>(KeepAlive(*keep));
  };
}

// --- Match results --------------------------------------------------------------------------

// Points `reason` at the Python line executing now: the caller of a binding is the
// innermost Python frame (a pattern's match() calling self.no_match). Without a Python
// frame (a call from C++) the C++ location stays.
void SetCallerLocation(core::builder::NoMatchReason& reason) {
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  if (!frame) return;
  const py::object code = py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(PyFrame_GetCode(frame)));
  const std::string file = py::str(code.attr("co_filename"));
  // Interned: the report keeps the pointer (NoMatchReason::foreign_file) as long as it lives.
  reason.foreign_file = InternReason(file).data();
  reason.foreign_line = static_cast<unsigned>(PyFrame_GetLineNumber(frame));
}

py::object ViewOrNone(const NodeProto* node) { return node ? py::cast(NodeView(node)) : py::none(); }

py::list Views(const std::vector<const NodeProto*>& nodes) {
  py::list views;
  for (const NodeProto* node : nodes) views.append(ViewOrNone(node));
  return views;
}

// The exception types live as long as the process (never released: no Python object is
// destroyed by a C++ static destructor after the interpreter is gone).
struct ExceptionTypes {
  py::exception<Error>* error;
  py::exception<ModelError>* model_error;
  py::exception<IoError>* io_error;
  py::exception<BuilderError>* builder_error;
  py::exception<StaleViewError>* stale;
};
ExceptionTypes* exception_types = nullptr;

void BindExceptions(py::module_& m) {
  auto* types = new ExceptionTypes;
  types->error = new py::exception<Error>(m, "Error", PyExc_RuntimeError);
  types->model_error = new py::exception<ModelError>(m, "ModelError", types->error->ptr());
  types->io_error = new py::exception<IoError>(m, "IoError", types->error->ptr());
  types->builder_error = new py::exception<BuilderError>(m, "BuilderError", types->error->ptr());
  types->stale = new py::exception<StaleViewError>(m, "StaleViewError", PyExc_RuntimeError);
  types->error->attr("__doc__") = "Any onnxopt error; the message is the C++ one.";
  types->model_error->attr("__doc__") = "The model is invalid, or cannot be evaluated (size limits included).";
  types->io_error->attr("__doc__") = "A file cannot be read or written.";
  types->builder_error->attr("__doc__") = "The graph API was misused (a pattern's result, a registration...).";
  types->stale->attr("__doc__") = "A node or graph view was used after the callback that received it returned.";
  exception_types = types;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StaleViewError& e) {
      (*exception_types->stale)(e.what());
    } catch (const BuilderError& e) {
      (*exception_types->builder_error)(e.what());
    } catch (const ModelError& e) {
      (*exception_types->model_error)(e.what());
    } catch (const IoError& e) {
      (*exception_types->io_error)(e.what());
    } catch (const Error& e) {
      (*exception_types->error)(e.what());
    }
  });
}

void BindViews(py::module_& b) {
  py::class_<NodeView>(b, "NodeView",
                       "A read-only view of a node of the graph being optimized, valid until the callback that "
                       "received it returns (then every access raises StaleViewError).")
      .def_property_readonly("op_type", [](const NodeView& v) { return v.Get().op_type(); })
      .def_property_readonly("domain", [](const NodeView& v) { return v.Get().domain(); })
      .def_property_readonly("name", [](const NodeView& v) { return v.Get().name(); })
      .def_property_readonly("input",
                             [](const NodeView& v) {
                               const auto& in = v.Get().input();
                               return std::vector<std::string>(in.begin(), in.end());
                             })
      .def_property_readonly("output",
                             [](const NodeView& v) {
                               const auto& out = v.Get().output();
                               return std::vector<std::string>(out.begin(), out.end());
                             })
      .def_property_readonly("attribute",
                             [](const NodeView& v) {
                               py::dict attributes;
                               for (const AttributeProto& a : v.Get().attribute())
                                 attributes[py::str(a.name())] = AttributeValue(a);
                               return attributes;
                             },
                             "The attributes as a dict name -> value (as onnx.helper.get_attribute_value gives "
                             "them: STRING attributes are bytes).")
      .def(
          "get_attribute",
          [](const NodeView& v, const std::string& name, py::object default_value) -> py::object {
            for (const AttributeProto& a : v.Get().attribute())
              if (a.name() == name) return AttributeValue(a);
            return default_value;
          },
          "name"_a, "default"_a = py::none())
      .def("to_proto", [](const NodeView& v) { return OnnxMessage("NodeProto", v.Get()); },
           "A copy of the node as an onnx.NodeProto (valid after the callback).")
      .def_property_readonly("valid", [](const NodeView& v) { return v.epoch == CurrentEpoch(); })
      .def("__eq__",
           [](const NodeView& a, const py::object& b) {
             return py::isinstance<NodeView>(b) && a.node == b.cast<const NodeView&>().node;
           })
      .def("__hash__", [](const NodeView& v) { return std::hash<const void*>()(v.node); })
      .def("__repr__", [](const NodeView& v) {
        if (v.epoch != CurrentEpoch()) return std::string("<NodeView (expired)>");
        const NodeProto& n = v.Get();
        std::string text = "<NodeView " + n.op_type() + (n.name().empty() ? "" : " '" + n.name() + "'") + " (";
        for (int i = 0; i < n.input_size(); ++i) text += (i ? ", " : "") + n.input(i);
        text += ") -> (";
        for (int i = 0; i < n.output_size(); ++i) text += (i ? ", " : "") + n.output(i);
        return text + ")>";
      });

  py::class_<PyShape>(b, "ValueShape", "What shape inference knows about a value.")
      .def_readonly("kind", &PyShape::kind)
      .def_readonly("elem_type", &PyShape::elem_type, "onnx.TensorProto data type (0: unknown)")
      .def_readonly("dims", &PyShape::dims, "list of int / str (symbolic) / None (unknown), None if the rank is unknown")
      .def_property_readonly("rank", [](const PyShape& s) -> py::object {
        return s.dims.is_none() ? py::object(py::none()) : py::object(py::int_(py::len(s.dims)));
      })
      .def("__repr__", [](const PyShape& s) { return "<ValueShape " + s.text + ">"; });
}

void BindGraph(py::module_& b) {
  py::class_<GraphBuilder>(b, "GraphBuilder")
      .def(py::init([](const py::bytes& model, std::optional<std::string> base_dir, bool keep_initializer_inputs,
                       std::map<std::string, std::vector<std::int64_t>> input_shapes,
                       std::map<std::string, std::int64_t> dims) {
             std::optional<std::filesystem::path> dir;
             if (base_dir) dir = *base_dir;
             ModelProto parsed = core::ir::ParseModel(std::string_view(model), "model", dir);
             core::ir::MakeInitializerInputsConstant(parsed, keep_initializer_inputs
                                                                 ? core::ir::InitializerInputs::kOverridable
                                                                 : core::ir::InitializerInputs::kConstantBeforeIr4);
             core::ir::ApplyInputShapeSettings(parsed, {std::move(input_shapes), std::move(dims)});
             return std::make_unique<GraphBuilder>(std::move(parsed));
           }),
           "model"_a, "base_dir"_a = py::none(), "keep_initializer_inputs"_a = true,
           "input_shapes"_a = std::map<std::string, std::vector<std::int64_t>>{},
           "dims"_a = std::map<std::string, std::int64_t>{},
           "A builder over a serialized ModelProto (external data is resolved relative to base_dir). "
           "With keep_initializer_inputs=False, the initializers an IR < 4 model lists among its inputs "
           "become constants (onnx_core/ir/initializer_inputs.h). input_shapes ({input: [dims]}) and dims "
           "({symbol: value}) specialise the main graph as `onnxopt optimize --overwrite-input-shape` and "
           "`--dim` do (onnx_core/ir/input_shapes.h); ModelError names what contradicts the model.")
      .def_static(
          "load", [](const std::string& path) { return std::make_unique<GraphBuilder>(core::ir::LoadModel(path)); },
          "path"_a, "Loads a model file (with its external data) as the command line does.")
      .def("to_model_bytes", [](const GraphBuilder& builder) { return ToBytes(builder.ToModel()); })
      .def(
          "save",
          [](const GraphBuilder& builder, const std::string& path, std::optional<std::uint64_t> threshold) {
            ModelProto model = builder.ToModel();
            core::ir::SaveOptions options;
            options.external_data_threshold = threshold;
            core::ir::SaveModel(model, path, options);
          },
          "path"_a, "external_data_threshold"_a = py::none(),
          "Saves the model through a temporary file (no partial output). external_data_threshold: initializers "
          "of at least that many bytes go to PATH.data next to it, as `onnxopt optimize "
          "--external-data-threshold` (None: only a model above 2 GiB uses external data).")
      .def("infer_shapes", &GraphBuilder::InferShapes)
      .def_property_readonly("node_count", [](const GraphBuilder& builder) { return builder.Nodes().size(); })
      .def(
          "register_pattern",
          [](GraphBuilder& builder, py::object pattern) {
            if (py::isinstance<py::type>(pattern)) pattern = pattern();
            const std::string name = KeepAlive(pattern)->Name();
            const NumericalClass numerics = PythonNumerics(pattern);
            core::builder::RegisterPattern(builder, name, BuilderFactory(std::move(pattern)), numerics);
          },
          "pattern"_a,
          "Registers (or replaces) a pattern for the optimizers of this builder only (it overrides a global "
          "registration of the same name).");

  py::class_<PyGraph>(b, "GraphGraph",
                      "The optimizer of one GraphBuilder's graph (C++ GraphGraph): runs the patterns until nothing "
                      "matches; inside a callback, the read-only view of the graph being optimized.")
      .def(py::init([](GraphBuilder& builder, py::object patterns, const std::string& registered,
                       bool fold_constants_first, bool collect_no_match, py::object do_not_remove,
                       std::optional<std::uint64_t> fold_size_limit, std::optional<std::uint64_t> fold_work_limit,
                       bool fold_dequantize, std::vector<std::string> keep) {
             std::vector<std::shared_ptr<const PatternOptimization>> given;
             if (!patterns.is_none())
               for (py::handle item : patterns) given.push_back(ToPattern(item));
             OptimizerOptions options;
             options.registered = PatternSelection::Parse(registered);
             options.fold_constants_first = fold_constants_first;
             options.collect_no_match = collect_no_match;
             if (fold_size_limit) options.fold.max_output_bytes = *fold_size_limit;
             if (fold_work_limit) options.fold.max_work_steps = *fold_work_limit;
             options.fold.fold_dequantize_linear = fold_dequantize;
             if (!do_not_remove.is_none()) options.do_not_remove = DoNotRemovePredicate(std::move(do_not_remove));
             if (!keep.empty()) {
               auto named = core::builder::KeepNodesNamed(std::move(keep));
               if (options.do_not_remove)
                 options.do_not_remove = [named, callable = std::move(options.do_not_remove)](const NodeProto& node) {
                   return named(node) || callable(node);
                 };
               else
                 options.do_not_remove = std::move(named);
             }
             auto graph = std::make_unique<PyGraph>();
             graph->owned = std::make_unique<GraphGraph>(builder, std::move(given), std::move(options));
             graph->graph = graph->owned.get();
             return graph;
           }),
           py::keep_alive<1, 2>(), "builder"_a, "patterns"_a = py::none(), "registered"_a = "default",
           "fold_constants_first"_a = false, "collect_no_match"_a = true, "do_not_remove"_a = py::none(),
           "fold_size_limit"_a = py::none(), "fold_work_limit"_a = py::none(), "fold_dequantize"_a = false,
           "keep"_a = std::vector<std::string>{},
           "An optimizer of `builder`'s graph with the given patterns (objects, classes or registered names) "
           "and the registered selection. do_not_remove: a callable(node: NodeView) -> bool; the nodes it "
           "returns True for are never matched (besides those whose name contains _DONOTREMOVE_). keep: "
           "name patterns (fnmatch(3): *, ?, [...]) of more nodes never matched, as `onnxopt optimize --keep`. "
           "fold_size_limit (bytes), fold_work_limit (steps) and fold_dequantize: constant folding's limits "
           "and whether it folds DequantizeLinear, as `onnxopt optimize --fold-size-limit`, "
           "`--fold-work-limit` and `--fold-dequantize` (None: the command line's defaults).")
      .def(
          "optimize",
          [](PyGraph& self, bool report, int max_iter) {
            if (self.epoch != 0) throw BuilderError("optimize() cannot be called from a pattern callback");
            GraphGraph& graph = self.Get();
            OptimizationReport stats;
            std::vector<LocalRewriting> rewrites;
            AdvanceEpoch();  // views taken before no longer match the graph
            {
              CallbackScope after;  // nor those taken during
              py::gil_scoped_release release;
              rewrites = graph.Optimize(max_iter, report ? &stats : nullptr);
            }
            py::list records;
            for (LocalRewriting& record : rewrites) records.append(py::cast(std::make_shared<LocalRewriting>(std::move(record))));
            return py::make_tuple(records, report ? py::cast(std::move(stats)) : py::object(py::none()));
          },
          "report"_a = false, "max_iter"_a = -1,
          "Runs the patterns until nothing matches (the GIL is released; Python patterns reacquire it). "
          "Returns (rewrites, report or None).")
      .def_property_readonly("pattern_names",
                             [](const PyGraph& self) {
                               std::vector<std::string> names;
                               for (const auto& p : self.Get().Patterns()) names.push_back(p->Name());
                               return names;
                             })
      .def_property_readonly("patterns",
                             [](const PyGraph& self) {
                               std::vector<std::pair<std::string, int>> patterns;
                               for (const auto& p : self.Get().Patterns()) patterns.emplace_back(p->Name(), p->priority);
                               return patterns;
                             },
                             "(name, priority) in the order the driver tries them")
      .def("node_before", [](const PyGraph& self, const std::string& name) { return ViewOrNone(self.Get().NodeBefore(name)); })
      .def("next_nodes", [](const PyGraph& self, const std::string& name) { return Views(self.Get().NextNodes(name)); })
      .def("predecessors", [](const PyGraph& self, py::handle node) { return Views(self.Get().Predecessors(*NodeOf(node))); })
      .def("successors", [](const PyGraph& self, py::handle node) { return Views(self.Get().Successors(*NodeOf(node))); })
      .def("nodes",
           [](const PyGraph& self) {
             py::list views;
             core::builder::NoteWholeGraphRead();  // a Match that lists every node depends on all of them
             for (const NodeProto& node : self.Get().Builder().Nodes()) views.append(py::cast(NodeView(&node)));
             return views;
           })
      .def("is_output", [](const PyGraph& self, const std::string& name) { return self.Get().IsOutput(name); })
      .def("is_used", [](const PyGraph& self, const std::string& name) { return self.Get().IsUsed(name); })
      .def("is_used_more_than_once",
           [](const PyGraph& self, const std::string& name) { return self.Get().IsUsedMoreThanOnce(name); })
      .def("has_one_use",
           [](const PyGraph& self, const std::string& name) { return core::builder::HasOneUse(self.Get(), name); })
      .def("is_used_by_subgraph",
           [](const PyGraph& self, const std::string& name) { return self.Get().IsUsedBySubgraph(name); })
      .def("position", [](const PyGraph& self, py::handle node) { return self.Get().Position(*NodeOf(node)); })
      .def_property_readonly("node_count", [](const PyGraph& self) { return self.Get().NodeCount(); })
      .def_property_readonly("is_main_graph", [](const PyGraph& self) { return self.Get().Builder().IsRoot(); })
      .def("has_shape", [](const PyGraph& self, const std::string& name) { return self.Get().HasShape(name); })
      .def("get_shape", [](const PyGraph& self, const std::string& name) { return ToPython(self.Get().GetShape(name)); })
      .def("has_type", [](const PyGraph& self, const std::string& name) { return self.Get().HasType(name); })
      .def("get_type", [](const PyGraph& self, const std::string& name) { return self.Get().GetType(name); })
      .def("is_constant", [](const PyGraph& self, const std::string& name) { return self.Get().IsConstant(name); })
      .def(
          "is_constant_scalar",
          [](const PyGraph& self, const std::string& name, double value, bool broadcast) {
            return self.Get().IsConstantScalar(name, value, broadcast);
          },
          "name"_a, "value"_a, "broadcast"_a = false)
      .def(
          "get_computed_constant",
          [](const PyGraph& self, const std::string& name, bool as_tensor) -> py::object {
            const TensorProto* tensor = self.Get().GetComputedConstant(name);
            if (!tensor) return py::none();
            py::object proto = OnnxMessage("TensorProto", *tensor);
            if (as_tensor) return proto;
            return py::module_::import("onnx.numpy_helper").attr("to_array")(proto);
          },
          "name"_a, "as_tensor"_a = false,
          "The constant's value as a numpy array (as_tensor=True: an onnx.TensorProto); None when it is not "
          "a computable constant.")
      .def(
          "make_initializer",
          [](const PyGraph& self, const std::string& prefix, py::handle value) {
            return self.Mutable("make_initializer").MakeInitializer(prefix, TensorFromPython(value));
          },
          "name_prefix"_a, "value"_a, "Adds an initializer (numpy array or onnx.TensorProto); returns its unique name.")
      .def("unique_name",
           [](const PyGraph& self, const std::string& prefix) { return self.Mutable("unique_name").Builder().UniqueName(prefix); })
      .def(
          "get_or_add_function",
          [](const PyGraph& self, py::handle function) {
            return OnnxMessage("FunctionProto",
                               self.Mutable("get_or_add_function").Builder().GetOrAddFunction(FromPython<FunctionProto>(function, "FunctionProto")));
          },
          "function"_a,
          "The model's local function (function.domain, function.name) as an onnx.FunctionProto (a copy): "
          "`function` (an onnx.FunctionProto or its bytes) is added the first time, with the opset imports of its "
          "domain (version 1) and of its body; later calls return the existing one. Another body under the same "
          "(domain, name) raises BuilderError. The optimizer records the functions apply() adds.")
      .def(
          "find_function",
          [](const PyGraph& self, const std::string& domain, const std::string& name) -> py::object {
            const FunctionProto* function = self.Get().Builder().FindFunction(domain, name);
            return function ? OnnxMessage("FunctionProto", *function) : py::none();
          },
          "domain"_a, "name"_a, "The model's local function (domain, name) as an onnx.FunctionProto, or None.")
      .def(
          "opset", [](const PyGraph& self, const std::string& domain) { return self.Get().Builder().OpsetVersion(domain); },
          "domain"_a = "");
}

void BindPatterns(py::module_& b) {
  py::class_<PyMatch>(b, "MatchResult",
                      "What match() returns: true with the matched nodes (self.result), or false with the reason and "
                      "location of the rejection (self.no_match).")
      .def("__bool__", [](const PyMatch& m) { return static_cast<bool>(m.match); })
      .def_property_readonly("pattern_name",
                             [](const PyMatch& m) -> py::object {
                               return m.match.pattern ? py::object(py::str(m.match.pattern->Name())) : py::none();
                             })
      .def_property_readonly("reason", [](const PyMatch& m) { return std::string(m.match.no_match.reason); })
      .def_property_readonly("nodes",
                             [](const PyMatch& m) {
                               py::list views;
                               for (const NodeProto* node : m.match.nodes) {
                                 if (!node) {
                                   views.append(py::none());
                                   continue;
                                 }
                                 NodeView view(node);
                                 view.epoch = m.epoch;
                                 views.append(py::cast(view));
                               }
                               return views;
                             })
      .def("__repr__", [](const PyMatch& m) {
        if (m.epoch != CurrentEpoch()) return std::string("<MatchResult (expired)>");
        return "<MatchResult " + m.match.ToString() + ">";
      });

  py::class_<PatternOptimization, PyPattern, std::shared_ptr<PatternOptimization>>(
      b, "PatternOptimization",
      "Base of every pattern. Subclass it in Python (onnxopt.PatternOptimization gives the name a default) and "
      "implement fast_op_type(), match(graph, node) and apply(graph, nodes).")
      .def(py::init([](int priority, const std::string& name) {
             if (name.empty()) throw py::value_error("a pattern needs a name");
             return new PyPattern(priority, name);
           }),
           "priority"_a = 1, "name"_a = "")
      .def_property_readonly("name", &PatternOptimization::Name)
      .def_property_readonly("priority", [](const PatternOptimization& p) { return p.priority; })
      .def("fast_op_type", &PatternOptimization::FastOpType)
      .def("to_string", &PatternOptimization::ToString)
      .def("__repr__", &PatternOptimization::ToString)
      .def(
          "match",
          [](const PatternOptimization& p, const PyGraph& graph, py::handle node) {
            return PyMatch{p.Match(graph.Get(), *NodeOf(node))};
          },
          "graph"_a, "node"_a)
      .def(
          "no_match",
          [](const PatternOptimization& p, py::handle node, const std::string& reason) {
            MatchResult rejection = p.NoMatch(*NodeOf(node), InternReason(reason));
            SetCallerLocation(rejection.no_match);
            return PyMatch{std::move(rejection)};
          },
          "node"_a, "reason"_a,
          "A rejection of `node`; the report groups rejections by pattern, reason and source location: the "
          "Python file and line that called no_match.")
      .def(
          "result",
          [](const PatternOptimization& p, py::iterable nodes, py::handle insert_at) {
            std::vector<const NodeProto*> matched;
            for (py::handle node : nodes) matched.push_back(node.is_none() ? nullptr : NodeOf(node));
            return PyMatch{p.Matched(std::move(matched), insert_at.is_none() ? nullptr : NodeOf(insert_at))};
          },
          "nodes"_a, "insert_at"_a = py::none(),
          "A successful match of `nodes` (None for an absent optional node), in the order apply() expects "
          "them; the replacement goes at insert_at's position (default: the first matched node's).");
}

void BindRecords(py::module_& b) {
  py::class_<LocalRewriting, std::shared_ptr<LocalRewriting>>(
      b, "LocalRewriting",
      "The record of one rewrite (docs/record-format.md): the nodes matched and added, the initializers and "
      "functions added or removed, enough to replay it without matching.")
      .def_property_readonly("name", &LocalRewriting::Name)
      .def_readonly("matched_nodes", &LocalRewriting::matched_nodes)
      .def_property_readonly("added_nodes",
                             [](const LocalRewriting& r) {
                               py::list nodes;
                               for (const NodeProto& node : r.added_nodes) nodes.append(OnnxMessage("NodeProto", node));
                               return nodes;
                             })
      .def_property_readonly("matched_node_signatures",
                             [](const LocalRewriting& r) {
                               std::vector<std::string> signatures;
                               for (const auto& signature : r.matched_node_signatures)
                                 signatures.push_back(signature.ToString());
                               return signatures;
                             })
      .def_readonly("added_nodes_positions", &LocalRewriting::added_nodes_positions)
      .def_readonly("added_initializer_positions", &LocalRewriting::added_initializer_positions)
      .def_readonly("removed_initializers", &LocalRewriting::removed_initializers)
      .def_readonly("value_renames", &LocalRewriting::value_renames)
      .def_property_readonly("added_functions",
                             [](const LocalRewriting& r) {
                               py::list functions;
                               for (const FunctionProto& function : r.added_functions)
                                 functions.append(OnnxMessage("FunctionProto", function));
                               return functions;
                             })
      .def_readonly("removed_functions", &LocalRewriting::removed_functions)
      .def_readonly("iteration", &LocalRewriting::iteration)
      .def_property_readonly("graph_path",
                             [](const LocalRewriting& r) {
                               std::vector<std::string> path;
                               for (const auto& key : r.graph_path) path.push_back(key.ToString());
                               return path;
                             })
      .def_readonly("match_time_ns", &LocalRewriting::match_time_ns)
      .def_readonly("apply_time_ns", &LocalRewriting::apply_time_ns)
      .def("to_string", &LocalRewriting::ToString)
      .def("__repr__", &LocalRewriting::ToString);

  auto records = [](const py::iterable& rewrites) {
    std::vector<LocalRewriting> copies;
    for (py::handle record : rewrites) copies.push_back(record.cast<const LocalRewriting&>());
    return copies;
  };
  b.def(
      "replay",
      [records](GraphBuilder& builder, const py::iterable& rewrites) {
        std::vector<LocalRewriting> copies = records(rewrites);
        py::gil_scoped_release release;
        core::builder::Replay(builder, copies);
      },
      "builder"_a, "rewrites"_a, "Applies recorded rewrites to `builder` in place (no matching, no cleanup).");
  b.def(
      "serialize_rewrites",
      [records](const py::iterable& rewrites, const std::string& fingerprint,
                std::map<std::string, std::vector<std::int64_t>> input_shapes,
                std::map<std::string, std::int64_t> dims) {
        return py::bytes(core::builder::SerializeRewrites(records(rewrites), fingerprint,
                                                          {std::move(input_shapes), std::move(dims)}));
      },
      "rewrites"_a, "model_fingerprint"_a = "", "input_shapes"_a = std::map<std::string, std::vector<std::int64_t>>{},
      "dims"_a = std::map<std::string, std::int64_t>{},
      "The rewrite-file bytes of `rewrites` (docs/record-format.md), stamped with the fingerprint of the model "
      "as loaded and the input shapes it was specialised with before optimizing (GraphBuilder's input_shapes "
      "and dims): `onnxopt replay` requires the same.");
  b.def(
      "parse_input_shape_settings",
      [](const std::vector<std::string>& input_shapes, const std::vector<std::string>& dims) {
        core::ir::InputShapeSettings settings = core::ir::ParseInputShapeSettings(input_shapes, dims);
        return py::make_tuple(std::move(settings.input_shapes), std::move(settings.dims));
      },
      "input_shapes"_a, "dims"_a,
      "(input_shapes, dims) from the command line's spellings: values of --overwrite-input-shape "
      "(NAME:D0,D1,...) and of --dim (NAME=VALUE). Raises Error naming the option for a malformed value.");
  b.def(
      "describe_input_shape_settings",
      [](std::map<std::string, std::vector<std::int64_t>> input_shapes, std::map<std::string, std::int64_t> dims) {
        return core::ir::DescribeInputShapeSettings({std::move(input_shapes), std::move(dims)});
      },
      "input_shapes"_a, "dims"_a,
      "The settings as the command line spells them: \"--overwrite-input-shape x:1,3 --dim batch=2\".");
  b.def(
      "parse_rewrites",
      [](const py::bytes& data) {
        py::list list;
        for (LocalRewriting& r : core::builder::ParseRewrites(std::string_view(data)))
          list.append(py::cast(std::make_shared<LocalRewriting>(std::move(r))));
        return list;
      },
      "data"_a, "The rewrites of rewrite-file bytes (serialize_rewrites, `onnxopt optimize --record`).");
  b.def(
      "model_fingerprint",
      [](const py::bytes& model) {
        return core::builder::ModelFingerprint(FromPython<ModelProto>(model, "ModelProto"));
      },
      "model"_a, "The fingerprint a rewrite file records of the model it was made on (a serialized ModelProto).");
  b.def(
      "describe_removed_nodes",
      [records](const py::bytes& model, const py::sequence& rewrites) {
        ModelProto skeleton = core::builder::ReplaySkeleton(FromPython<ModelProto>(model, "ModelProto"));
        std::vector<LocalRewriting> copies = records(rewrites);
        {
          py::gil_scoped_release release;
          core::builder::DescribeRemovedNodes(std::move(skeleton), copies);
        }
        for (std::size_t i = 0; i < copies.size(); ++i)
          rewrites[i].cast<LocalRewriting&>().matched_node_signatures = std::move(copies[i].matched_node_signatures);
      },
      "model"_a, "rewrites"_a,
      "Notes in each record what its removed nodes were (matched_node_signatures), by replaying `rewrites` on "
      "`model`, the model they were made on (serialized, specialised as it was optimized): what `onnxopt optimize "
      "--record` writes and replay checks. Raises Error when the records do not fit the model.");
  b.def(
      "render_report_html",
      [records](const py::bytes& model_before, const py::bytes& model_after, const py::iterable& rewrites,
                const core::builder::OptimizationReport& report, const std::string& model_path,
                const std::string& patterns, std::map<std::string, std::vector<std::int64_t>> input_shapes,
                std::map<std::string, std::int64_t> dims) {
        const ModelProto before = FromPython<ModelProto>(model_before, "ModelProto");
        const ModelProto after = FromPython<ModelProto>(model_after, "ModelProto");
        const std::vector<LocalRewriting> copies = records(rewrites);
        core::builder::HtmlReportInput page{model_path,
                                            patterns,
                                            core::ir::DescribeInputShapeSettings({std::move(input_shapes), std::move(dims)}),
                                            {},
                                            {},
                                            core::builder::IndexNodeNames(before.graph()),
                                            &report,
                                            &copies};
        core::ir::CountGraph(before.graph(), page.before.ops, page.before.initializers);
        core::ir::CountGraph(after.graph(), page.after.ops, page.after.initializers);
        return core::builder::RenderReportHtml(page);
      },
      "model_before"_a, "model_after"_a, "rewrites"_a, "report"_a, "model_path"_a = "", "patterns"_a = "",
      "input_shapes"_a = std::map<std::string, std::vector<std::int64_t>>{},
      "dims"_a = std::map<std::string, std::int64_t>{},
      "The page `onnxopt optimize --report-html` writes (one self-contained HTML file): the model as loaded and "
      "as optimized (serialized), the records and report of the optimization (removed nodes are named and "
      "linked when describe_removed_nodes filled the records), the model's path and the pattern selection for "
      "the title, the input shapes the model was specialised with.");
}

void BindReport(py::module_& b) {
  using namespace core::builder;
  py::class_<PatternStats>(b, "PatternStats", "One pattern's counters and times in an OptimizationReport.")
      .def_readonly("name", &PatternStats::name)
      .def_readonly("priority", &PatternStats::priority)
      .def_readonly("match_calls", &PatternStats::match_calls)
      .def_readonly("matched", &PatternStats::matched)
      .def_readonly("applied", &PatternStats::applied)
      .def_readonly("refused", &PatternStats::refused)
      .def_readonly("match_time_ns", &PatternStats::match_time_ns)
      .def_readonly("apply_time_ns", &PatternStats::apply_time_ns)
      .def_readonly("removed_nodes", &PatternStats::removed_nodes)
      .def_readonly("added_nodes", &PatternStats::added_nodes);
  py::class_<CleanupStats>(b, "CleanupStats", "One cleanup step's counters in an OptimizationReport.")
      .def_readonly("name", &CleanupStats::name)
      .def_readonly("runs", &CleanupStats::runs)
      .def_readonly("removed_nodes", &CleanupStats::removed_nodes)
      .def_readonly("removed_initializers", &CleanupStats::removed_initializers)
      .def_readonly("renames", &CleanupStats::renames)
      .def_readonly("removed_functions", &CleanupStats::removed_functions);
  py::class_<PassStats>(b, "PassStats", "One graph pass's runs, changes, time and counters in an OptimizationReport.")
      .def_readonly("name", &PassStats::name)
      .def_readonly("stage", &PassStats::stage)
      .def_readonly("runs", &PassStats::runs)
      .def_readonly("changed", &PassStats::changed)
      .def_readonly("time_ns", &PassStats::time_ns)
      .def_readonly("removed_nodes", &PassStats::removed_nodes)
      .def_readonly("added_nodes", &PassStats::added_nodes)
      .def_readonly("counters", &PassStats::counters);
  py::class_<NoMatchStats>(b, "NoMatchStats",
                           "How often a pattern rejected candidates for one reason at one place (a C++ line, or the "
                           "Python line that called no_match).")
      .def_readonly("pattern", &NoMatchStats::pattern)
      .def_readonly("file", &NoMatchStats::file)
      .def_readonly("line", &NoMatchStats::line)
      .def_readonly("reason", &NoMatchStats::reason)
      .def_readonly("count", &NoMatchStats::count);
  py::class_<SubgraphStats>(b, "SubgraphStats", "The optimization of one nested graph in an OptimizationReport.")
      .def_readonly("path", &SubgraphStats::path)
      .def_readonly("time_ns", &SubgraphStats::time_ns)
      .def_readonly("iterations", &SubgraphStats::iterations)
      .def_readonly("rewrites", &SubgraphStats::rewrites);
  py::class_<PhaseNodes>(b, "PhaseNodes",
                         "Nodes each phase of an optimization visited (a phase that walks the whole graph counts "
                         "each of its nodes), nested graphs included.")
      .def_readonly("indexing", &PhaseNodes::indexing)
      .def_readonly("matching", &PhaseNodes::matching)
      .def_readonly("rewriting", &PhaseNodes::rewriting)
      .def_readonly("shape_inference", &PhaseNodes::shape_inference)
      .def_readonly("constant_folding", &PhaseNodes::constant_folding)
      .def_readonly("cleanup", &PhaseNodes::cleanup)
      .def_readonly("graph_passes", &PhaseNodes::graph_passes)
      .def("total", &PhaseNodes::Total);
  py::class_<OptimizationReport>(b, "OptimizationReport",
                                 "What an optimization did: times per phase, iterations, rewrites, per-pattern and "
                                 "per-pass counters, rejections (with collect_no_match) and nested graphs.")
      .def_readonly("matching_time_ns", &OptimizationReport::matching_time_ns)
      .def_readonly("rewriting_time_ns", &OptimizationReport::rewriting_time_ns)
      .def_readonly("cleanup_time_ns", &OptimizationReport::cleanup_time_ns)
      .def_readonly("constant_folding_time_ns", &OptimizationReport::constant_folding_time_ns)
      .def_readonly("shape_inference_time_ns", &OptimizationReport::shape_inference_time_ns)
      .def_readonly("indexing_time_ns", &OptimizationReport::indexing_time_ns)
      .def_readonly("subgraph_optimization_time_ns", &OptimizationReport::subgraph_optimization_time_ns)
      .def_readonly("passes_time_ns", &OptimizationReport::passes_time_ns)
      .def_readonly("nodes_visited", &OptimizationReport::nodes_visited)
      .def_readonly("iterations", &OptimizationReport::iterations)
      .def_readonly("max_iter", &OptimizationReport::max_iter)
      .def_readonly("reached_max_iter", &OptimizationReport::reached_max_iter)
      .def_readonly("nodes_before", &OptimizationReport::nodes_before)
      .def_readonly("nodes_after", &OptimizationReport::nodes_after)
      .def_readonly("rewrites", &OptimizationReport::rewrites)
      .def_readonly("patterns", &OptimizationReport::patterns)
      .def_readonly("passes", &OptimizationReport::passes)
      .def_readonly("cleanup", &OptimizationReport::cleanup)
      .def_readonly("no_matches", &OptimizationReport::no_matches)
      .def_readonly("refused_rewrites", &OptimizationReport::refused_rewrites)
      .def_readonly("subgraphs", &OptimizationReport::subgraphs)
      .def("total_time_ns", &OptimizationReport::TotalTimeNs)
      .def("to_string", &OptimizationReport::ToString)
      .def(
          "to_json",
          [](const OptimizationReport& report, std::map<std::string, std::vector<std::int64_t>> input_shapes,
             std::map<std::string, std::int64_t> dims) {
            return report.ToJson({std::move(input_shapes), std::move(dims)});
          },
          "input_shapes"_a = std::map<std::string, std::vector<std::int64_t>>{},
          "dims"_a = std::map<std::string, std::int64_t>{},
          "The report as JSON (docs/optimizer.md), with the input shapes the model was specialised with before "
          "optimizing (GraphBuilder's input_shapes and dims), as `onnxopt optimize --report-json` writes it.")
      .def("__str__", &OptimizationReport::ToString);
}

void BindRegistry(py::module_& b) {
  b.def(
      "register_pattern", [](py::object pattern) { RegisterGlobally(std::move(pattern), false); }, "pattern"_a,
      "Registers a pattern (object or class) globally under its name; an existing name is an error.");
  b.def(
      "replace_pattern", [](py::object pattern) { RegisterGlobally(std::move(pattern), true); }, "pattern"_a,
      "Registers a pattern globally, replacing any pattern of the same name (keeping its place).");
  b.def("registered_pattern_names", &core::builder::RegisteredPatternNames,
        "The names of every globally registered pattern and pass (built-in and Python), in registration order.");
  b.def(
      "pattern_doc",
      [](const std::string& name) {
        for (const auto& entry : core::builder::RegisteredPatterns())
          if (entry.name == name) return entry.doc;
        throw py::key_error("no pattern is registered as '" + name + "'");
      },
      "name"_a,
      "The documentation of the registered pattern `name`: the comment above a built-in pattern's C++ "
      "class, a Python pattern's class docstring; \"\" when it has none.");
  b.def(
      "registered_patterns",
      [] {
        std::vector<std::tuple<std::string, std::string, std::string>> entries;
        for (const auto& entry : core::builder::RegisteredPatterns())
          entries.emplace_back(entry.name, entry.family, core::builder::NumericalClassName(entry.numerics));
        return entries;
      },
      "(name, family, numerics) of every registered pattern, in registration order; numerics is 'exact', "
      "'rounding' or 'approximate' (left out of the default selection).");
  b.def(
      "opt_in_pattern_names",
      [] {
        std::vector<std::string> names;
        for (const auto& entry : core::builder::RegisteredPatterns())
          if (entry.opt_in) names.push_back(entry.name);
        return names;
      },
      "Names of the registered patterns and passes that keep results but are left out of the default "
      "selection (copy elimination): select them by name or family.");
  b.def(
      "create_registered_pattern",
      [](const std::string& name) { return std::const_pointer_cast<PatternOptimization>(CreateRegistered(name)); },
      "name"_a, "A new instance of the globally registered pattern `name`.");
  b.def(
      "resolve_selection",
      [](const std::string& text) {
        return PatternSelection::Parse(text).Resolve(core::builder::RegisteredPatterns());
      },
      "selection"_a,
      "The registered names a selection (\"default\", \"all\", \"none\", \"A,B\", \"-A\", \"+A\") keeps.");
}

// What both comparisons read from Python: the two models, the tolerances and how rounding
// is judged.
struct ComparisonArguments {
  ModelProto a, b;
  core::eval::ToleranceOptions tolerances;
  core::verify::Rounding rounding;

  ComparisonArguments(const py::bytes& model_a, const py::bytes& model_b, std::optional<double> atol,
                      std::optional<double> rtol, bool judge_rounding)
      : a(FromPython<ModelProto>(model_a, "ModelProto")),
        b(FromPython<ModelProto>(model_b, "ModelProto")),
        rounding(judge_rounding ? core::verify::Rounding::kJudgeAgainstFloat64
                                : core::verify::Rounding::kTolerancesOnly) {
    tolerances.atol = atol;
    tolerances.rtol = rtol;
  }
};

void BindVerify(py::module_& m) {
  m.def(
      "compare_models",
      [](const py::bytes& model_a, const std::string& name_a, const py::bytes& model_b, const std::string& name_b,
         std::uint32_t seed, std::optional<double> atol, std::optional<double> rtol, bool judge_rounding) {
        const ComparisonArguments arguments(model_a, model_b, atol, rtol, judge_rounding);
        core::verify::RandomInputOptions inputs;
        inputs.seed = seed;
        std::ostringstream details;
        bool same = false;
        {
          py::gil_scoped_release release;
          same = core::verify::CompareOnRandomInputs(arguments.a, name_a, arguments.b, name_b, inputs,
                                                     arguments.tolerances, details, arguments.rounding);
        }
        return py::make_tuple(same, details.str());
      },
      "model_a"_a, "name_a"_a, "model_b"_a, "name_b"_a, "seed"_a = 0, "atol"_a = py::none(), "rtol"_a = py::none(),
      "judge_rounding"_a = false,
      "Runs two serialized models with the reference evaluator on one set of random inputs (drawn from `seed`) "
      "and compares their outputs by name, as `onnxopt verify` does. judge_rounding: model_b is model_a "
      "rewritten, and an output beyond the tolerances still matches when it is as accurate as model_a's "
      "against a float64 evaluation of model_a (as `onnxopt optimize --check`). Returns (same, the "
      "comparison's text).");
  m.def(
      "compare_models_with_empty_dims",
      [](const py::bytes& model_a, const std::string& name_a, const py::bytes& model_b, const std::string& name_b,
         std::optional<double> atol, std::optional<double> rtol, bool judge_rounding) {
        const ComparisonArguments arguments(model_a, model_b, atol, rtol, judge_rounding);
        const core::verify::RandomInputOptions inputs;
        std::ostringstream details;
        core::verify::EmptyDimensionRounds rounds;
        bool same = false;
        {
          py::gil_scoped_release release;
          rounds = core::verify::PlanEmptyDimensionRounds(arguments.a, arguments.b, inputs);
          same = core::verify::CompareWithEmptyDimensions(rounds, arguments.a, name_a, arguments.b, name_b, inputs,
                                                          arguments.tolerances, details, arguments.rounding);
        }
        return py::make_tuple(same, details.str(),
                              same ? "" : core::verify::DescribeEmptyDimensionFailure(rounds, name_a, name_b),
                              core::verify::DescribeEmptyDimensionRounds(rounds, name_a));
      },
      "model_a"_a, "name_a"_a, "model_b"_a, "name_b"_a, "atol"_a = py::none(), "rtol"_a = py::none(),
      "judge_rounding"_a = false,
      "The empty-dimension sets of `onnxopt optimize --check` (onnx_core/verify/model_comparison.h): model_a "
      "(the original) and model_b compared again with each symbolic input dimension 0 in turn, seed 0; a set "
      "counts only where model_a runs. Returns (same, the comparison's text, what the set that differs "
      "found or '' (\"<name_b>'s outputs differ from <name_a>'s with D = 0\", \"<name_b> fails to run with "
      "D = 0, where <name_a> runs\"), the description of the sets made).");
}

}  // namespace

}  // namespace onnxopt::python

PYBIND11_MODULE(_onnxpycore, m) {
  using namespace onnxopt::python;
  m.doc() = "onnxopt core bindings: the graph optimizer (submodule builder)";
  RegisterCoreExtensions();
  py::module_ b = m.def_submodule("builder", "GraphBuilder, GraphGraph, patterns, rewrites, reports, registry");
  BindExceptions(m);
  BindViews(b);
  BindGraph(b);
  BindPatterns(b);
  BindRecords(b);
  BindReport(b);
  BindRegistry(b);
  BindFusion(m);
  BindVerify(m);
  m.def("max_tensor_bytes", &onnxopt::core::ir::MaxTensorBytes,
        "The largest tensor (bytes) onnxopt allocates while evaluating, folding or inferring shapes");
  m.def("set_max_tensor_bytes", &onnxopt::core::ir::SetMaxTensorBytes, "bytes"_a,
        "Sets that limit for the process (0 restores the default, a quarter of the physical memory)");
  // The Python patterns of the global registry are released before interpreter shutdown.
  py::module_::import("atexit").attr("register")(py::cpp_function([] { PythonRegistry().clear(); }));
}
