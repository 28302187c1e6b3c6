#include "python/src/fusion_module.h"

#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/fusion/fusion_pass.h"
#include "python/src/py_pattern.h"

namespace onnxopt::python {

namespace {

using fusion::OpBuilder;
using fusion::Pattern;
using fusion::PatternBuilder;
using fusion::ReplacementBuilder;
using fusion::ReplacementGraph;
using fusion::SketchBuilder;
using fusion::ValueRef;
using namespace pybind11::literals;

template <class Message>
Message Parse(const py::bytes& bytes, const char* what) {
  Message message;
  const std::string_view data(bytes);
  if (!message.ParseFromArray(data.data(), static_cast<int>(data.size())))
    throw py::value_error(std::string("not a serialized ") + what);
  return message;
}

py::bytes Bytes(const google::protobuf::MessageLite& message) { return py::bytes(message.SerializeAsString()); }

// SketchBuilder::Op with the Python arguments: attributes as serialized AttributeProtos.
std::vector<ValueRef> AddOp(SketchBuilder& builder, const std::string& op_type, const std::vector<ValueRef>& inputs,
                            const std::string& domain, std::size_t outputs, const std::vector<py::bytes>& attributes,
                            const std::string& label) {
  OpBuilder op = builder.Op(fusion::OpKey{domain, op_type}, inputs);
  for (const py::bytes& attribute : attributes) op.Attr(Parse<AttributeProto>(attribute, "AttributeProto"));
  op.Outputs(outputs);
  if (!label.empty()) op.Label(label);
  std::vector<ValueRef> values;
  for (std::size_t i = 0; i < outputs; ++i) values.push_back(op.Out(i));
  return values;
}

template <class Builder, class Class>
void BindSketchBuilder(Class& cls) {
  cls.def("constant", [](Builder& b, const py::bytes& tensor, const std::string& label) {
        return b.Constant(Parse<TensorProto>(tensor, "TensorProto"), label);
      },
      "tensor"_a, "label"_a = "")
      .def("absent", &Builder::Absent)
      .def("op", [](Builder& b, const std::string& op_type, const std::vector<ValueRef>& inputs, const std::string& domain,
                    std::size_t outputs, const std::vector<py::bytes>& attributes, const std::string& label) {
            return AddOp(b, op_type, inputs, domain, outputs, attributes, label);
          },
          "op_type"_a, "inputs"_a, "domain"_a = "", "outputs"_a = 1, "attributes"_a = std::vector<py::bytes>{},
          "label"_a = "");
}

// The match as a callback sees it; expires with the callback (epoch).
struct PyFusionMatch {
  const fusion::MatchResult* match;
  GraphGraph* graph;
  std::uint64_t epoch = CurrentEpoch();
  const fusion::MatchResult& Get() const {
    if (epoch != CurrentEpoch()) throw StaleViewError("this match has expired: it is only valid during the callback");
    return *match;
  }
};

struct PyPassContext {
  fusion::PassContext* context;
  std::uint64_t epoch = CurrentEpoch();
  fusion::PassContext& Get() const {
    if (epoch != CurrentEpoch()) throw StaleViewError("this context has expired: it is only valid during the callback");
    return *context;
  }
};

// Keeps a Python object alive from C++; released with the GIL (leaked at shutdown).
class PythonHandle {
 public:
  explicit PythonHandle(py::object object) : object_(new py::object(std::move(object))) {}
  PythonHandle(const PythonHandle&) = delete;
  PythonHandle& operator=(const PythonHandle&) = delete;
  ~PythonHandle() {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
    py::gil_scoped_acquire gil;
    delete object_;
  }
  const py::object& Get() const { return *object_; }

 private:
  py::object* object_;
};

ReplacementGraph ToReplacement(const py::object& result, std::string_view rule) {
  if (!py::isinstance<ReplacementGraph>(result))
    throw py::type_error(std::string(rule) + ": replacement must return a replacement graph (rb.build([...])), not " +
                         std::string(py::str(py::type::handle_of(result).attr("__name__"))));
  return result.cast<ReplacementGraph>();
}

// A PatternFusionPass whose hooks are the Python object's `_meet(match, context)` and
// `_replace(match, rb, context)` (onnxopt.fusion adapts the user's signatures).
class PyFusionPass final : public fusion::PatternFusionPass {
 public:
  PyFusionPass(py::object pass, std::vector<Pattern> patterns, fusion::PatternMatcherConfig config)
      : PatternFusionPass(config), pass_(std::move(pass)), patterns_(std::move(patterns)) {}
  std::vector<Pattern> Patterns() const override { return patterns_; }
  bool MeetRequirements(const fusion::MatchResult& match, fusion::PassContext& context) const override {
    py::gil_scoped_acquire gil;
    CallbackScope scope;
    return pass_.Get().attr("_meet")(PyFusionMatch{&match, &context.Graph()}, PyPassContext{&context}).cast<bool>();
  }
  ReplacementGraph Replacement(const fusion::MatchResult& match, ReplacementBuilder& builder,
                               fusion::PassContext& context) const override {
    py::gil_scoped_acquire gil;
    CallbackScope scope;
    py::object result = pass_.Get().attr("_replace")(PyFusionMatch{&match, &context.Graph()},
                                                      py::cast(&builder, py::return_value_policy::reference),
                                                      PyPassContext{&context});
    return ToReplacement(result, match.RuleName());
  }

 private:
  PythonHandle pass_;
  std::vector<Pattern> patterns_;
};

class PyDecomposePass final : public fusion::DecomposePass {
 public:
  PyDecomposePass(py::object pass, std::vector<fusion::OpKey> op_types)
      : DecomposePass(std::move(op_types)), pass_(std::move(pass)) {}
  bool MeetRequirements(const NodeProto& node, fusion::PassContext& context) const override {
    py::gil_scoped_acquire gil;
    CallbackScope scope;
    return pass_.Get().attr("_meet")(NodeView(&node), PyPassContext{&context}).cast<bool>();
  }
  ReplacementGraph Replacement(const NodeProto& node, ReplacementBuilder& builder,
                               fusion::PassContext& context) const override {
    py::gil_scoped_acquire gil;
    CallbackScope scope;
    py::object result = pass_.Get().attr("_replace")(NodeView(&node), py::cast(&builder, py::return_value_policy::reference),
                                                      PyPassContext{&context});
    return ToReplacement(result, context.PassName());
  }

 private:
  PythonHandle pass_;
};

std::vector<std::shared_ptr<PatternOptimization>> Shared(fusion::PatternList compiled) {
  std::vector<std::shared_ptr<PatternOptimization>> patterns;
  for (auto& pattern : compiled) patterns.push_back(std::move(pattern));
  return patterns;
}

fusion::PatternMatcherConfig Config(bool const_value_match, bool ir_attr_match) {
  fusion::PatternMatcherConfigBuilder builder;
  if (const_value_match) builder.EnableConstValueMatch();
  if (ir_attr_match) builder.EnableIrAttrMatch();
  return builder.Build();
}

}  // namespace

void BindFusion(py::module_& m) {
  py::module_ f = m.def_submodule("fusion", "Declarative rules: pattern graphs, matches, passes (onnxopt.fusion)");
  py::register_exception<fusion::PatternError>(f, "PatternError", PyExc_ValueError);

  py::class_<ValueRef>(f, "ValueRef", "A value of a pattern or replacement under construction.")
      .def_property_readonly("id", &ValueRef::Id)
      .def_property_readonly("is_placeholder", &ValueRef::IsPlaceholder)
      .def_property_readonly("is_constant", &ValueRef::IsConstant)
      .def_property_readonly("is_absent", &ValueRef::IsAbsent);

  py::class_<Pattern>(f, "Pattern", "A validated pattern graph with its captures.")
      .def_static("from_text", [](const std::string& text) { return Pattern::FromText(text); }, "text"_a)
      .def("capture", [](Pattern& p, const ValueRef& v, const std::string& name) { return p.Capture(v, name); },
           "value"_a, "name"_a = "")
      .def_property_readonly("name", &Pattern::Name)
      .def_property_readonly("num_inputs", &Pattern::NumInputs)
      .def_property_readonly("num_outputs", &Pattern::NumOutputs)
      .def_property_readonly("num_captures", [](const Pattern& p) { return p.Captures().size(); })
      .def("ignored_attribute_diagnostics", &Pattern::IgnoredAttributeDiagnostics)
      .def("__repr__", &Pattern::ToString);

  py::class_<PatternBuilder> pattern_builder(f, "PatternBuilder");
  pattern_builder.def(py::init<std::string>(), "name"_a)
      .def("input", &PatternBuilder::Input)
      .def("any_constant", &PatternBuilder::AnyConstant, "label"_a = "")
      .def("build", &PatternBuilder::Build, "outputs"_a);
  BindSketchBuilder<PatternBuilder>(pattern_builder);

  py::class_<ReplacementGraph>(f, "ReplacementGraph", "A replacement, built by ReplacementBuilder.build");
  py::class_<ReplacementBuilder> replacement_builder(f, "ReplacementBuilder");
  replacement_builder.def("input", &ReplacementBuilder::Input, "i"_a)
      .def("present", &ReplacementBuilder::Present, "i"_a)
      .def_property_readonly("num_inputs", &ReplacementBuilder::NumInputs)
      .def("build", &ReplacementBuilder::Build, "outputs"_a);
  BindSketchBuilder<ReplacementBuilder>(replacement_builder);

  py::class_<PyFusionMatch>(f, "MatchView", "The match during a callback (onnxopt.fusion.Match wraps it).")
      .def_property_readonly("pattern_name", [](const PyFusionMatch& m) { return std::string(m.Get().PatternName()); })
      .def_property_readonly("rule_name", [](const PyFusionMatch& m) { return std::string(m.Get().RuleName()); })
      .def_property_readonly("graph", [](const PyFusionMatch& m) {
        m.Get();
        return PyGraph::Borrow(*m.graph, /*read_only=*/true);
      })
      .def("input", [](const PyFusionMatch& m, std::size_t i) { return m.Get().Input(i); }, "i"_a)
      .def("output", [](const PyFusionMatch& m, std::size_t j) { return m.Get().Output(j); }, "j"_a)
      .def("captured", [](const PyFusionMatch& m, std::size_t i) { return m.Get().Captured(i); }, "i"_a)
      .def("captured", [](const PyFusionMatch& m, const std::string& name) { return m.Get().Captured(name); },
           "name"_a)
      .def("constant_name", [](const PyFusionMatch& m, const std::string& label) { return m.Get().ConstantName(label); })
      .def("constant_bytes",
           [](const PyFusionMatch& m, const std::string& label) { return Bytes(m.Get().ConstantValue(label)); })
      .def("matched_nodes",
           [](const PyFusionMatch& m) {
             py::list nodes;
             for (const NodeProto* node : m.Get().MatchedNodes()) nodes.append(NodeView(node));
             return nodes;
           })
      .def("node", [](const PyFusionMatch& m, const std::string& label) { return NodeView(&m.Get().Node(label)); })
      .def("__str__", [](const PyFusionMatch& m) { return m.Get().ToString(); });

  py::class_<PyPassContext>(f, "PassContext", "What a callback may ask besides the match.")
      .def("opset", [](const PyPassContext& c, const std::string& domain) { return c.Get().Opset(domain); },
           "domain"_a = "")
      .def_property_readonly("stage", [](const PyPassContext& c) { return static_cast<int>(c.Get().Stage()); })
      .def_property_readonly("pass_name", [](const PyPassContext& c) { return std::string(c.Get().PassName()); })
      .def_property_readonly("graph", [](const PyPassContext& c) { return PyGraph::Borrow(c.Get().Graph(), /*read_only=*/true); });

  f.def(
      "compile_fusion_pass",
      [](py::object pass, const std::string& name, std::vector<Pattern> patterns, int stage, int priority,
         bool const_value_match, bool ir_attr_match) {
        auto compiled = std::make_shared<PyFusionPass>(std::move(pass), std::move(patterns),
                                                       Config(const_value_match, ir_attr_match));
        return Shared(fusion::Compile(compiled, name, static_cast<fusion::PassStage>(stage), priority));
      },
      "pass_object"_a, "name"_a, "patterns"_a, "stage"_a, "priority"_a = 1, "const_value_match"_a = false,
      "ir_attr_match"_a = false,
      "Engine patterns (one per pattern) whose hooks call pass_object._meet(match, context) and "
      "pass_object._replace(match, rb, context).");
  f.def(
      "compile_decompose_pass",
      [](py::object pass, const std::string& name, const std::vector<std::pair<std::string, std::string>>& op_types,
         int stage, int priority) {
        std::vector<fusion::OpKey> keys;
        for (const auto& [domain, op_type] : op_types) keys.push_back(fusion::OpKey{domain, op_type});
        auto compiled = std::make_shared<PyDecomposePass>(std::move(pass), std::move(keys));
        return Shared(fusion::Compile(compiled, name, static_cast<fusion::PassStage>(stage), priority));
      },
      "pass_object"_a, "name"_a, "op_types"_a, "stage"_a, "priority"_a = 1,
      "The engine pattern of a decompose pass; op_types are (domain, op_type) pairs.");
}

}  // namespace onnxopt::python
