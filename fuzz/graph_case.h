#pragma once
// Random small ONNX graphs built from the operator schemas, and the checks that every
// such graph must pass: shared by the libFuzzer target graph_fuzzer.cc and by the
// regression test tests/fuzz/graph_case_test.cc (fixed pseudo-random inputs and the
// reproducers of past findings).
//
// GenerateGraphCase draws, from a FuzzedDataProvider, an opset (mostly 13 to the newest of
// its GraphCaseRange), 1..6 nodes whose operators are registered ai.onnx schemas in force
// at that opset, their inputs (graph inputs of allowed types and small shapes,
// initializers and Constants with edge values, earlier outputs; optional ones sometimes
// omitted), their attributes (edge values, sometimes omitted, wrongly typed or unknown),
// tiny bodies for If / Loop / Scan / SequenceMap, and the values of the graph inputs. Some
// nodes break a rule on purpose (input count, input type) so that invalid models are
// exercised too.
//
// FindGraphCaseProblem runs what `onnxopt optimize --record`, `onnxopt replay`,
// `onnxopt verify` and `onnxopt memory --run` run and reports what must never happen for
// any model: an exception other than the user-facing ones (ModelError, IoError: exit 2),
// an optimized model that fails the model checks, one whose outputs differ from the
// original's on the same inputs, outputs that differ when writers run in place,
// a rewrite file whose replay does not give the optimized model byte for byte, or an
// edited rewrite file (record_edits, checksum made right: a hostile file) that replay
// neither refuses nor turns into a model passing the model checks.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "onnx_core/eval/evaluator.h"
#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::fuzz {

// One byte of a rewrite file set to another value.
struct RecordEdit {
  std::uint32_t offset;  // counted from the first byte after the file's header, modulo what follows
  std::uint8_t value;
};

struct GraphCase {
  ModelProto model;
  core::eval::ValueMap inputs;  // a value for every graph input that is not an initializer
  // Edits of the rewrite file that optimizing the model records: none in half the cases.
  std::vector<RecordEdit> record_edits;
};

// The newest opset and element type (TensorProto code) a generated graph may use. The bytes
// of a reproducer build the graph they were found with only under the range they were
// found with: widening it changes every later choice.
struct GraphCaseRange {
  int newest_opset;
  int newest_elem_type;
};
// Up to opset 23 and FLOAT4E2M1: the range of the reproducers found before opset 25
// (tests/fuzz/graph_regressions/, its files outside opset27/).
inline constexpr GraphCaseRange kGraphCaseRangeOpset23{23, 23};
// Up to opset 27 and INT2: the fuzzer's range (up to opset 25 until BitCast, CumProd and
// Range of float16 had kernels; nothing was found under that range, so no reproducer needs
// it).
inline constexpr GraphCaseRange kNewestGraphCaseRange{27, 26};

// `favoured_op_types` (GRAPH_FUZZER_OPS of graph_fuzzer.cc) aims the generator at a few
// operators: every other node is drawn among them when the opset has one, and every other
// graph takes the newest opset. It changes what the bytes build: for exploring, never for
// replaying graph_regressions (empty: every operator alike, as the reproducers were found).
GraphCase GenerateGraphCase(FuzzedDataProvider& data, GraphCaseRange range = kNewestGraphCaseRange,
                            const std::set<std::string>& favoured_op_types = {});

// Registers the schemas, shape functions, kernels and patterns (as the command line
// does) and lowers the limit on tensor sizes to `max_tensor_bytes`. Idempotent.
void PrepareGraphFuzzing(std::uint64_t max_tensor_bytes);

// How far a case that behaves got: refused when loaded (model checks), by validation
// (shape inference), by the evaluator (a kernel refusing its inputs), or evaluated and
// compared with its optimized form.
enum class GraphCaseOutcome { kRefusedAtLoad, kRefusedAtValidation, kRefusedAtEvaluation, kCompared };

// The finding (what went wrong, at which step), or nullopt when the case behaves: valid
// or refused with a user-facing error. `outcome` (optional) receives how far it got.
std::optional<std::string> FindGraphCaseProblem(const GraphCase& graph_case, GraphCaseOutcome* outcome = nullptr);

}  // namespace onnxopt::fuzz
