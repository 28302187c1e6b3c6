#pragma once
// Crafted models, one family of rules of the ONNX specification at a time: each invalid
// model beside a valid neighbour. Shared by model_validity_test.cc (onnxopt refuses the
// invalid ones, naming the node and the rule, and accepts the others) and by
// validity_cases_dump.cc, which writes them for check_refusals_with_ort.js (what
// onnxruntime-node does with each: the expectation below).

#include <string>
#include <string_view>
#include <vector>

namespace onnxopt::testing {

enum class Onnxruntime {
  kRefuses,  // refuses to load or to run it (every invalid model should be here)
  kAccepts,  // loads and runs it: a valid model, or a rule onnxruntime does not enforce
  kCrashes,  // the process dies (a signal): onnxruntime does not check the rule either
};

struct ValidityCase {
  std::string name;    // file name stem, unique
  std::string family;  // the rule family ("type constraints", "Conv attributes", ...)
  std::string model;   // ONNX text syntax
  // Words the refusal names (the node, the rule, what was found); empty for a valid model.
  std::vector<std::string> refusal;
  Onnxruntime onnxruntime;
  // Why onnxruntime differs from the specification (when an invalid model is not kRefuses).
  std::string note;
};

const std::vector<ValidityCase>& ValidityCases();

}  // namespace onnxopt::testing
