#pragma once
// A small streaming JSON writer for the machine-readable outputs (command line, optimization reports).
//
// Strings are written as UTF-8: quotes, backslashes and control characters are escaped
// (\n, \t, ... or \u00XX), other characters, non-ASCII ones included, are copied as they
// are; bytes that are not valid UTF-8 become U+FFFD so that the output always parses.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onnxopt {

// Appends `text` as a JSON string literal, quotes included.
void AppendJsonString(std::string& out, std::string_view text);

// Writes one JSON document into a string. Calls must nest correctly (Begin/End pairs, a
// Key before each member of an object); the writer adds the commas.
class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(std::int64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  const std::string& Text() const { return out_; }

 private:
  // Before a value: a comma when it is not the first of its array.
  void BeforeValue();

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace onnxopt
