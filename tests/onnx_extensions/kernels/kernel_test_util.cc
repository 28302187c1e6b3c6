#include "tests/onnx_extensions/kernels/kernel_test_util.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>

#include "onnx_core/common/error.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {

Tensor MakeHalf(std::vector<std::int64_t> shape, const std::vector<float>& values) {
  Tensor t(TensorProto::FLOAT16, std::move(shape));
  auto* d = t.MutableData<std::uint16_t>();
  for (std::size_t i = 0; i < values.size() && i < static_cast<std::size_t>(t.size()); ++i)
    d[i] = core::eval::FloatToHalf(values[i]);
  return t;
}

Tensor MakeBFloat16(std::vector<std::int64_t> shape, const std::vector<float>& values) {
  Tensor t(TensorProto::BFLOAT16, std::move(shape));
  auto* d = t.MutableData<std::uint16_t>();
  for (std::size_t i = 0; i < values.size() && i < static_cast<std::size_t>(t.size()); ++i)
    d[i] = core::eval::FloatToBFloat16(values[i]);
  return t;
}

Tensor MakeCodes(int elem_type, std::vector<std::int64_t> shape, const std::vector<std::uint8_t>& codes) {
  Tensor t(elem_type, std::move(shape));
  EXPECT_EQ(static_cast<std::size_t>(t.size()), codes.size()) << "MakeCodes: wrong number of codes";
  auto* d = t.MutableData<std::uint8_t>();
  for (std::size_t i = 0; i < codes.size() && i < static_cast<std::size_t>(t.size()); ++i) d[i] = codes[i];
  return t;
}

core::eval::ValueMap RunText(std::string_view text, const Inputs& inputs) {
  onnx_kernels::RegisterKernels();
  ModelProto model = ParseText(text);
  core::eval::ValueMap map;
  for (const auto& [name, t] : inputs) map[name] = t;
  return core::eval::Run(model, map);
}

Tensor RunOne(std::string_view text, const Inputs& inputs, const std::string& name) {
  auto out = RunText(text, inputs);
  auto it = out.find(name);
  if (it == out.end()) {
    ADD_FAILURE() << "no output named " << name;
    return Tensor();
  }
  return core::eval::AsTensor(it->second, name);
}

const Tensor& OutputTensor(const core::eval::ValueMap& outputs, const std::string& name) {
  return core::eval::AsTensor(outputs.at(name), name);
}

std::string ModelErrorOf(std::string_view text, const Inputs& inputs) {
  try {
    RunText(text, inputs);
  } catch (const ModelError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ModelError";
  return "";
}

std::string GraphText(std::string_view opset_imports, std::string_view signature, std::string_view body) {
  return "<ir_version: 10, opset_import: [" + std::string(opset_imports) + "]>\ng " + std::string(signature) + " {\n" +
         std::string(body) + "\n}";
}

std::string GraphText(int opset, std::string_view signature, std::string_view body) {
  return GraphText("\"\" : " + std::to_string(opset), signature, body);
}

namespace {

bool IsFloatLike(int t) {
  return t == TensorProto::FLOAT || t == TensorProto::DOUBLE || t == TensorProto::FLOAT16 ||
         t == TensorProto::BFLOAT16;
}

std::vector<double> AsDoubles(const Tensor& t) {
  if (t.elem_type() == TensorProto::FLOAT16 || t.elem_type() == TensorProto::BFLOAT16) {
    std::vector<double> v;
    const auto* d = t.Data<std::uint16_t>();
    for (std::int64_t i = 0; i < t.size(); ++i)
      v.push_back(t.elem_type() == TensorProto::FLOAT16 ? core::eval::HalfToFloat(d[i])
                                                        : core::eval::BFloat16ToFloat(d[i]));
    return v;
  }
  return t.ToDoubleVector();
}

}  // namespace

std::string TensorToString(const Tensor& t) {
  std::ostringstream os;
  os << t.Describe() << " {";
  const std::int64_t n = std::min<std::int64_t>(t.size(), 64);
  if (t.elem_type() == TensorProto::STRING) {
    for (std::int64_t i = 0; i < n; ++i) os << (i ? ", " : "") << '"' << t.Data<std::string>()[i] << '"';
  } else if (t.defined()) {
    auto v = AsDoubles(t);
    for (std::int64_t i = 0; i < n; ++i) os << (i ? ", " : "") << v[static_cast<std::size_t>(i)];
  }
  if (t.size() > n) os << ", ...";
  os << "}";
  return os.str();
}

::testing::AssertionResult SameTensor(const Tensor& actual, const Tensor& expected, double atol, double rtol) {
  auto fail = [&](const std::string& why) {
    return ::testing::AssertionFailure() << why << "\n  actual:   " << TensorToString(actual)
                                         << "\n  expected: " << TensorToString(expected);
  };
  if (actual.elem_type() != expected.elem_type()) return fail("element types differ");
  if (actual.shape() != expected.shape()) return fail("shapes differ");
  if (expected.elem_type() == TensorProto::STRING) {
    for (std::int64_t i = 0; i < expected.size(); ++i)
      if (actual.Data<std::string>()[i] != expected.Data<std::string>()[i])
        return fail("element " + std::to_string(i) + " differs");
    return ::testing::AssertionSuccess();
  }
  if (!IsFloatLike(expected.elem_type())) {
    if (actual == expected) return ::testing::AssertionSuccess();
    return fail("values differ");
  }
  auto a = AsDoubles(actual), e = AsDoubles(expected);
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (std::isnan(e[i]) && std::isnan(a[i])) continue;
    if (std::isinf(e[i]) && a[i] == e[i]) continue;
    if (!(std::abs(a[i] - e[i]) <= atol + rtol * std::abs(e[i])))
      return fail("element " + std::to_string(i) + " differs");
  }
  return ::testing::AssertionSuccess();
}

#if !defined(__SANITIZE_ADDRESS__)
namespace {

// The child's side of ExpectWithinMemory: exits 0 when `run` succeeds, else 1 with what
// went wrong on stderr.
[[noreturn]] void RunWithinMemory(std::uint64_t bytes, const std::function<std::string()>& run) {
  std::uint64_t pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  const std::uint64_t address_space = pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) + bytes;
  const rlimit limit{address_space, address_space};
  setrlimit(RLIMIT_AS, &limit);
  std::string problem;
  try {
    problem = run();
  } catch (const std::exception& e) {
    problem = std::string("threw: ") + e.what();
  }
  std::fputs(problem.c_str(), stderr);
  std::_Exit(problem.empty() ? 0 : 1);
}

}  // namespace
#endif

void ExpectWithinMemory([[maybe_unused]] std::uint64_t bytes, [[maybe_unused]] const std::function<std::string()>& run) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space; the main build runs this";
#else
  EXPECT_EXIT(RunWithinMemory(bytes, run), ::testing::ExitedWithCode(0), "");
#endif
}

}  // namespace onnxopt::testing
