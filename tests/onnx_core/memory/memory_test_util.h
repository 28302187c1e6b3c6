#pragma once
// Fixtures of the memory tests: the test operators of
// shared/docs/copy-elimination.md §11 (test.Clobber, test.Fork,
// test.CatInPlace), running the pass on a graph in ONNX text, and the checks
// every scenario makes.

#include <map>
#include <string>
#include <string_view>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/memory/copy_elimination.h"

namespace onnxopt::testing {

// Shape functions, kernels, memory traits, and the test operators:
//   test.Clobber(v) -> y: y = 2v, then writes NaN into v (clobbers input 0);
//   test.Fork(v) -> (p, q): both outputs alias input 0;
//   test.CatInPlace(a, b) -> y: 1-D concatenation, both inputs
//   CONTINUOUS_INPUT.
void RegisterMemoryTestOperators();

struct Eliminated {
  ModelProto before;
  ModelProto after;
  core::memory::CopyEliminationResult result;
};

// Parses `text`, infers shapes and runs EliminateCopies on the main graph.
Eliminated Eliminate(std::string_view text, const core::memory::MemoryOptions& options = {},
                     const core::memory::CopyEliminationHooks& hooks = {});

// The verdict of the copy whose output was `copy` ("DELETED", "KEPT(3,
// fanout-not-direct)").
std::string VerdictOf(const Eliminated& eliminated, std::string_view copy);

// The model's local functions in order, each as its name, formals and nodes
// (for exact comparisons of bodies).
std::string CanonicalFunctions(const ModelProto& model);

// The checks of every scenario:
//  - the verdicts are exactly `verdicts` (copy output name -> VerdictText);
//  - the main graph after is exactly `after` (CanonicalGraph, node order
//  included), or
//    unchanged when `after` is empty; so are the local functions
//    (CanonicalFunctions);
//  - no in-place write that was safe before the pass is unsafe after it (a
//  necessary copy
//    was not removed);
//  - functional and in-place evaluations of the graphs before and after give
//  bit-identical
//    outputs on random inputs (int64 inputs are zeros);
//  - a second run of the pass changes nothing.
void ExpectElimination(std::string_view before, const std::map<std::string, std::string>& verdicts,
                       std::string_view after, const core::memory::MemoryOptions& options = {});

}  // namespace onnxopt::testing
