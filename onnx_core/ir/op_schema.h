#pragma once
// Operator signatures of the ONNX specification, one OpSchema per version of an operator:
// what a node can be checked against without running it (input and output counts, which
// inputs may be omitted, attributes and their types, the types each input and output
// accepts). The tables are generated from the specification's Changelog.md
// (onnx_extensions/schemas) and registered explicitly, like shape functions and kernels;
// the core stores them, looks them up and checks nodes against them.
//
// Two checks use them: CheckNodeSignature (everything but value types) when a model is
// loaded (ir::CheckModel), and the type constraints during shape inference, which knows
// the types of values (shapes/type_constraints.h).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "onnx_core/ir/local_functions.h"
#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

// The types a parameter accepts: one bit per TensorProto::DataType, by kind of value.
struct TypeSet {
  std::uint32_t tensor = 0;    // tensor(t)
  std::uint32_t sequence = 0;  // seq(tensor(t))
  std::uint32_t optional = 0;           // optional(tensor(t))
  std::uint32_t optional_sequence = 0;  // optional(seq(tensor(t)))
};

// "tensor(float) or tensor(double)", "seq(tensor(int64)) or ..." (every type spelled out).
std::string DescribeTypeSet(const TypeSet& types);

struct FormalParameter {
  enum class Option : std::uint8_t { kSingle, kOptional, kVariadic };
  std::string_view name;
  std::string_view type_name;  // a type variable ("T") or a type ("tensor(int64)")
  int variable;                // index into OpSchema::variables; -1 for a fixed type
  TypeSet allowed;             // the types of the variable, or the fixed type
  Option option;
  bool heterogeneous;          // the arguments of a variadic parameter may differ in type
};

struct AttributeSchema {
  std::string_view name;
  AttributeProto::AttributeType type;
  bool required;
  // The specification's default of an INT, FLOAT or STRING attribute as it writes it ("0",
  // "1e-05", "NOTSET"); empty when it gives none and for other types.
  std::string_view default_value;
};

struct OpSchema {
  std::string_view domain;  // "" for ai.onnx
  std::string_view op_type;
  int since_version;
  bool deprecated;  // the operator does not exist from this version on
  int min_inputs, max_inputs, min_outputs, max_outputs;  // a max of -1 is unbounded
  std::span<const FormalParameter> inputs, outputs;
  std::span<const AttributeSchema> attributes;
  std::span<const std::string_view> variables;  // type variables ("T", "T1", ...)

  // "Split-18", "ai.onnx.preview.training::Adagrad-1".
  std::string Name() const;
  // The formal parameter of input (output) `position`: the last one when it is variadic;
  // null past the end.
  const FormalParameter* Input(int position) const;
  const FormalParameter* Output(int position) const;
};

// Registers a table of schemas (several versions of one operator may follow each other in
// any order). Throws BuilderError when a version of an operator is registered twice.
// Meant to be called once per table, from the extensions' registration entry points.
void RegisterOpSchemas(std::span<const OpSchema> schemas);

// Declares an operator that a runtime defines in a standard operator set beyond the
// specification, at versions [first_version, last_version] of `domain`: such a node is
// neither refused as unknown nor checked. onnxruntime registers SimplifiedLayerNormalization
// in ai.onnx at every version, and its own LayerNormalization there before opset 17;
// exported and optimized models use them.
void RegisterOperatorExtension(std::string_view domain, std::string_view op_type, int first_version,
                               int last_version);

// What the registered tables say about (domain, op_type) at an imported opset version.
struct SchemaLookup {
  enum class Status {
    kFound,           // `schema` is the version in force
    kNotCovered,      // no table covers the domain, the version is newer than the tables,
                      // or the operator is a runtime's extension (RegisterOperatorExtension)
    kUnknownOperator, // the domain has no such operator
    kNotYetDefined,   // the operator appears in a later version (`schema`: its first one)
    kRemoved,         // the operator was deprecated (`schema`: the deprecating version)
  };
  Status status = Status::kNotCovered;
  const OpSchema* schema = nullptr;
};
SchemaLookup LookUpOpSchema(std::string_view domain, std::string_view op_type, std::int64_t version);
// The schema in force, or null (whatever the reason).
const OpSchema* FindOpSchema(std::string_view domain, std::string_view op_type, std::int64_t version);
// The value an absent attribute `name` takes: the schema's default as an AttributeProto
// (name, type, value), or nullopt when the schema gives no default for it.
std::optional<AttributeProto> DefaultAttribute(const OpSchema& schema, std::string_view name);
// Number of registered operator versions (for tests and reports).
std::size_t RegisteredOpSchemaCount();

// Whether `node` has an attribute of another type than its schema gives, in the way
// exported models do and onnxruntime runs: torch's exporters write Constant's value_float
// (value_floats) with type INT (INTS). CheckNodeSignature accepts it; onnxruntime types
// the output as the attribute's name says (float) but computes the declared type (an
// int64), and ir::ConstantNodeValue computes the same, so the output's type is disputed:
// the type checks leave it unknown.
bool HasToleratedAttributeType(const NodeProto& node);

// A node that breaks a rule of the specification: the rule ("Split-18 takes 1 to 2
// inputs") and what the node has instead ("3 inputs").
struct RuleViolation {
  std::string rule;
  std::string found;
};

// Checks `node` against the schema in force at `version` of its domain (0: the domain is
// not imported, nothing is checked): operator defined at that version, input and output
// counts, no omitted input or output that is not optional, attributes known, of the
// right type, required ones present (an attribute referring to a function's attribute,
// ref_attr_name, counts as present). A node calling one of the model's local
// `functions` (null: none) need not be a known operator. Types of values are not checked
// here (they need shape inference).
std::optional<RuleViolation> CheckNodeSignature(const NodeProto& node, std::int64_t version,
                                                const LocalFunctions* functions);

}  // namespace onnxopt::core::ir
