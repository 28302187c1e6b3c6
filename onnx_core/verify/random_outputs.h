#pragma once
// For `onnxopt verify`: the outputs whose values depend on random draws that the other
// model does not make.
//
// Both models are evaluated with one evaluation seed, so a random node (RandomNormal,
// Bernoulli, training-mode Dropout... eval::IsNondeterministicOp) draws the same numbers
// in both when it is the same node: same domain, operator, attributes and name
// (eval/random_seed.h: the seed comes from the seed attribute, else from the node's name
// or, without one, its first output's name). A random node present in one model only, or
// changed, draws other numbers: the outputs computed from it cannot be compared.
//
// The unit is a node of the main graph: a random node, a node holding graphs that contain
// one (If, Loop, Scan...) or a call of a local function whose body contains one. Such a
// node is shared when the other model has a node of the same domain, operator and
// attributes (nested graphs included, whole), for a random node the same seed name, and
// for a call the same function.
// Values computed from an unshared one (through node inputs and the values nested graphs
// read) are not comparable.

#include <map>
#include <string>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::verify {

// Output name -> a description of an unshared random node it depends on
// ("node 'drop' (Dropout)"), for each output of `model` that depends on one that `other`
// does not share.
std::map<std::string, std::string> OutputsOfUnsharedRandomNodes(const ModelProto& model, const ModelProto& other);

}  // namespace onnxopt::core::verify
