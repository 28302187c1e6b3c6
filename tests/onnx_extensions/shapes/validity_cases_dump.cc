// Writes the crafted models of validity_cases.cc to a folder, with manifest.json listing
// what onnxruntime is expected to do with each, for check_refusals_with_ort.js.
//
//   validity_cases_dump DIR

#include <iostream>

#include "onnx_core/common/json_writer.h"
#include "onnx_core/ir/model_io.h"
#include "tests/onnx_extensions/shapes/validity_cases.h"
#include "tests/support/test_support.h"

int main(int argc, char** argv) {
  using namespace onnxopt::testing;
  if (argc != 2) {
    std::cerr << "usage: validity_cases_dump DIR\n";
    return 1;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  onnxopt::JsonWriter json;
  json.BeginArray();
  for (const ValidityCase& c : ValidityCases()) {
    WriteFile(dir / (c.name + ".onnx"), onnxopt::core::ir::SerializeDeterministic(ParseText(c.model)));
    const char* expected = c.onnxruntime == Onnxruntime::kRefuses   ? "refuses"
                           : c.onnxruntime == Onnxruntime::kAccepts ? "accepts"
                                                                    : "crashes";
    json.BeginObject().Key("name").String(c.name).Key("family").String(c.family);
    json.Key("valid").Bool(c.refusal.empty()).Key("onnxruntime").String(expected).Key("note").String(c.note);
    json.EndObject();
  }
  json.EndArray();
  WriteFile(dir / "manifest.json", json.Text() + "\n");
  std::cout << ValidityCases().size() << " models written to " << dir.string() << "\n";
  return 0;
}
