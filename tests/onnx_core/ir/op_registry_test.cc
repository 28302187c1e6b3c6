#include "onnx_core/ir/op_registry.h"

#include <string>

#include <gtest/gtest.h>

#include "onnx_core/ir/op_schema.h"

namespace onnxopt::core::ir {
namespace {

// Each thread remembers the registries' recent answers (RecentLookups): what these tests
// check is that a remembered answer never hides a later registration or another registry's
// answer.

TEST(OpRegistry, ARegistrationAfterALookupIsFound) {
  OpRegistry<int> registry("number");
  EXPECT_EQ(registry.Find("", "Late"), nullptr);
  registry.Register("", "Late", 7);
  ASSERT_NE(registry.Find("", "Late"), nullptr);
  EXPECT_EQ(*registry.Find("", "Late"), 7);
}

TEST(OpRegistry, RegistriesOfOneTypeKeepTheirOwnAnswers) {
  OpRegistry<int> first("number");
  OpRegistry<int> second("number");
  first.Register("", "Op", 1);
  second.Register("", "Op", 2);
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(*first.Find("", "Op"), 1);
    EXPECT_EQ(*second.Find("", "Op"), 2);
    EXPECT_EQ(*first.Find("ai.onnx", "Op"), 1);  // "ai.onnx" is the default domain
  }
}

TEST(OpRegistry, ManyKeysSharingTheMemoStillGetTheirAnswer) {
  OpRegistry<int> registry("number");
  for (int i = 1; i <= 300; ++i) registry.Register(i % 2 ? "" : "custom", "Op" + std::to_string(i), i);
  for (int round = 0; round < 2; ++round)
    for (int i = 1; i <= 300; ++i) {
      const int* found = registry.Find(i % 2 ? "" : "custom", "Op" + std::to_string(i));
      ASSERT_NE(found, nullptr) << i;
      EXPECT_EQ(*found, i);
      EXPECT_EQ(registry.Find(i % 2 ? "custom" : "", "Op" + std::to_string(i)), nullptr) << i;
    }
}

TEST(OpSchemaRegistry, SchemasAndExtensionsRegisteredAfterALookupAreSeen) {
  constexpr std::string_view kDomain = "test.recent_lookups";
  EXPECT_EQ(LookUpOpSchema(kDomain, "Probe", 1).status, SchemaLookup::Status::kNotCovered);

  static const OpSchema kSchemas[] = {
      {kDomain, "Probe", 1, false, 1, 1, 1, 1, {}, {}, {}, {}},
      {kDomain, "Other", 1, false, 1, 1, 1, 1, {}, {}, {}, {}},
  };
  RegisterOpSchemas(std::span<const OpSchema>(kSchemas, 1));
  SchemaLookup lookup = LookUpOpSchema(kDomain, "Probe", 1);
  EXPECT_EQ(lookup.status, SchemaLookup::Status::kFound);
  EXPECT_EQ(lookup.schema, &kSchemas[0]);
  EXPECT_EQ(LookUpOpSchema(kDomain, "Other", 1).status, SchemaLookup::Status::kUnknownOperator);

  RegisterOpSchemas(std::span<const OpSchema>(kSchemas + 1, 1));
  EXPECT_EQ(LookUpOpSchema(kDomain, "Other", 1).schema, &kSchemas[1]);

  // An extension at that version: neither found nor refused from now on.
  RegisterOperatorExtension(kDomain, "Probe", 1, 1);
  EXPECT_EQ(LookUpOpSchema(kDomain, "Probe", 1).status, SchemaLookup::Status::kNotCovered);
}

}  // namespace
}  // namespace onnxopt::core::ir
