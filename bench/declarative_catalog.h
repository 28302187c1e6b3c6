#pragma once
// Declarative versions of three catalog patterns (T60 of shared/docs/declarative-fusion.md):
// CastCastPattern, TransposeTransposePattern and MatMulAddPattern written as pattern
// graphs + MeetRequirements + Replacement. The parity test (tests/onnx_core/fusion,
// catalog_parity_test.cc) checks that they rewrite every corpus model as the hand-written
// ones do; bench/declarative_bench.cc compares their matching time.

#include <memory>
#include <string>
#include <vector>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::declarative_catalog {

using PatternPtr = std::shared_ptr<const core::builder::PatternOptimization>;

// The compiled patterns of one declarative rule, at the priority of the hand-written one.
std::vector<PatternPtr> DeclarativeCastCast();
std::vector<PatternPtr> DeclarativeTransposeTranspose();
std::vector<PatternPtr> DeclarativeMatMulAdd();

// A catalog pattern and its declarative version.
struct CatalogPair {
  std::string name;  // the hand-written pattern's name
  PatternPtr handwritten;
  std::vector<PatternPtr> declarative;
};
std::vector<CatalogPair> CatalogPairs();

}  // namespace onnxopt::declarative_catalog
