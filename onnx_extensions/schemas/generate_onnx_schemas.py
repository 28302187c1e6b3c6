#!/usr/bin/env python3
"""Generates onnx_schemas_table.cc, the operator signatures of the ONNX specification,
from its Changelog.md (every version of every operator of the ai.onnx, ai.onnx.preview
and ai.onnx.preview.training operator sets).

Regenerate (from the repository root):
  python3 onnx_extensions/schemas/generate_onnx_schemas.py \
      ../shared/docs/onnx-spec/Changelog.md onnx_extensions/schemas/onnx_schemas_table.cc

Per operator version the table keeps what a model can be checked against without
running it: the inputs and outputs (name, optional / variadic, the type variable or
fixed type), their counts, the attributes (name, type, required, the default of a scalar)
and the types each type variable allows. Descriptions are not kept.
"""

import html
import re
import sys

# TensorProto.DataType numbers (IR.md, onnx.proto).
DATA_TYPES = {
    "float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7,
    "string": 8, "bool": 9, "float16": 10, "double": 11, "uint32": 12, "uint64": 13,
    "complex64": 14, "complex128": 15, "bfloat16": 16, "float8e4m3fn": 17,
    "float8e4m3fnuz": 18, "float8e5m2": 19, "float8e5m2fnuz": 20, "uint4": 21, "int4": 22,
    "float4e2m1": 23, "float8e8m0": 24, "uint2": 25, "int2": 26,
}

# AttributeProto.AttributeType names in core::ir::AttributeSchema.
ATTRIBUTE_TYPES = {
    "int": "AttributeProto::INT", "float": "AttributeProto::FLOAT",
    "string": "AttributeProto::STRING", "tensor": "AttributeProto::TENSOR",
    "graph": "AttributeProto::GRAPH", "sparse_tensor": "AttributeProto::SPARSE_TENSOR",
    "type_proto": "AttributeProto::TYPE_PROTO", "list of ints": "AttributeProto::INTS",
    "list of floats": "AttributeProto::FLOATS", "list of strings": "AttributeProto::STRINGS",
    "list of tensors": "AttributeProto::TENSORS", "list of graphs": "AttributeProto::GRAPHS",
}

DOMAINS = {"ai.onnx (default)": "", "ai.onnx.preview": "ai.onnx.preview",
           "ai.onnx.preview.training": "ai.onnx.preview.training"}

HEADING = re.compile(r'^### <a name="[^"]*"></a>\*\*(?:[a-z.]+\.)?(\w+)-(\d+)\*\*( \(deprecated\))?</a>$')
SECTION = re.compile(r"^#### (\w[\w ]*?)(?: \((\d+) - (\d+|&#8734;)\))?$")
# The default of a scalar attribute as the specification writes it ("0", "1e-05", "NOTSET");
# "" for lists, tensors and graphs, and when there is none.
def scalar_default(attribute_type, qualifier):
    if not qualifier or not qualifier.startswith("default is "):
        return ""
    if attribute_type not in ("AttributeProto::INT", "AttributeProto::FLOAT", "AttributeProto::STRING"):
        return ""
    text = html.unescape(qualifier[len("default is "):])
    if text.startswith("(") and text.endswith(")"):  # "(3.402823e+38)"
        text = text[1:-1]
    if not re.fullmatch(r"[\w.+-]+", text):
        raise ValueError("cannot read the default of a scalar attribute: " + qualifier)
    return text


ATTRIBUTE = re.compile(r"^<dt><tt>(\w+)</tt> : ([a-z_ ]+?)(?: \((required|default is .*)\))?</dt>$")
PARAMETER = re.compile(r"^<dt><tt>(\w+)(?:\.\.\.)?</tt>(?: \(([a-z, -]+)\))? : ([\w()]+)</dt>$")
CONSTRAINT = re.compile(r"^<dt><tt>(\w+)</tt> : (.*)</dt>$")
UNBOUNDED = -1


def type_set(text):
    """{kind: bits} of a list of type strings (core::ir::TypeSet)."""
    masks = {"tensor": 0, "sequence": 0, "optional": 0, "optional_sequence": 0}
    for item in re.findall(r"[a-z_]+\([a-z0-9_()]*?\)+", text):
        m = re.fullmatch(r"(optional\()?(seq\()?tensor\((\w+)\)\)*", item)
        if not m:
            raise ValueError("unknown type " + item)
        kind = ("optional_" if m.group(1) else "") + ("sequence" if m.group(2) else "tensor")
        kind = "optional" if kind == "optional_tensor" else kind
        masks[kind] |= 1 << DATA_TYPES[m.group(3)]
    if not any(masks.values()):
        raise ValueError("no type in " + text)
    return masks


class Schema:
    def __init__(self, domain, name, version, deprecated):
        self.domain, self.name, self.version, self.deprecated = domain, name, version, deprecated
        self.attributes, self.inputs, self.outputs = [], [], []
        self.input_range = self.output_range = None
        self.constraints = {}  # name -> masks, in order

    def arity(self, parameters, given):
        """(min, max) as OpSchema::Finalize computes them, checked against the heading."""
        low = high = 0
        for _, option, _ in parameters:
            if option == "variadic":
                low, high = high + 1, UNBOUNDED
            elif option == "optional":
                high += 1
            else:
                high += 1
                low = high
        if given:
            if given[1] != high or (given[0] != low and high != UNBOUNDED):
                raise ValueError(f"{self.name}-{self.version}: arity {given} but parameters give {(low, high)}")
            low = given[0]  # a variadic parameter's minimum count is only in the heading
        return low, high


def parse(lines):
    schemas, domain, schema, section = [], None, None, None
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith("# "):
            domain = DOMAINS[line[2:]]
            continue
        m = HEADING.match(line)
        if m:
            schema = Schema(domain, m.group(1), int(m.group(2)), bool(m.group(3)))
            schemas.append(schema)
            section = None
            continue
        if schema is None:
            continue
        m = SECTION.match(line)
        if m:
            section = m.group(1)
            if m.group(2):
                count = (int(m.group(2)), UNBOUNDED if m.group(3) == "&#8734;" else int(m.group(3)))
                if section == "Inputs":
                    schema.input_range = count
                elif section == "Outputs":
                    schema.output_range = count
            continue
        if line.startswith("## ") or not line.startswith("<dt>"):
            continue
        if section == "Attributes":
            m = ATTRIBUTE.match(line)
            if not m or m.group(2) not in ATTRIBUTE_TYPES:
                raise ValueError("cannot read attribute line: " + line)
            schema.attributes.append((m.group(1), ATTRIBUTE_TYPES[m.group(2)], m.group(3) == "required",
                                      scalar_default(ATTRIBUTE_TYPES[m.group(2)], m.group(3))))
        elif section in ("Inputs", "Outputs"):
            m = PARAMETER.match(line)
            if not m:
                raise ValueError("cannot read parameter line: " + line)
            flags = [f.strip() for f in (m.group(2) or "").split(",") if f.strip()]
            option = "variadic" if "variadic" in flags else "optional" if "optional" in flags else "single"
            entry = (m.group(1), option, (m.group(3), "heterogeneous" in flags))
            (schema.inputs if section == "Inputs" else schema.outputs).append(entry)
        elif section == "Type Constraints":
            m = CONSTRAINT.match(line)
            if not m:
                raise ValueError("cannot read type constraint line: " + line)
            schema.constraints[m.group(1)] = type_set(html.unescape(m.group(2)))
    return schemas


def masks_literal(masks):
    return "{0x%x, 0x%x, 0x%x, 0x%x}" % (masks["tensor"], masks["sequence"], masks["optional"],
                                        masks["optional_sequence"])


def parameters_literal(schema, parameters):
    items = []
    variables = list(schema.constraints)
    for name, option, (type_name, heterogeneous) in parameters:
        if type_name in schema.constraints:
            variable, masks = variables.index(type_name), schema.constraints[type_name]
        else:
            variable, masks = -1, type_set(type_name)
        items.append('{"%s", "%s", %d, %s, Option::k%s, %s}' % (
            name, type_name, variable, masks_literal(masks), option.capitalize(),
            "true" if heterogeneous else "false"))
    return items


def emit(schemas, out):
    out.write("""// Generated by onnx_extensions/schemas/generate_onnx_schemas.py from the ONNX
// specification's Changelog.md: do not edit. Regenerate (from the repository root):
//   python3 onnx_extensions/schemas/generate_onnx_schemas.py ../shared/docs/onnx-spec/Changelog.md
//           onnx_extensions/schemas/onnx_schemas_table.cc
// %d operator versions.
// clang-format off

#include "onnx_extensions/schemas/onnx_schemas_table.h"

namespace onnxopt::onnx_schemas {

namespace {

using core::ir::AttributeSchema;
using core::ir::FormalParameter;
using core::ir::OpSchema;
using Option = core::ir::FormalParameter::Option;

""" % len(schemas))
    entries = []
    for s in schemas:
        key = "%s%s_%d" % (s.domain.replace(".", "_") + "_" if s.domain else "", s.name, s.version)
        spans = {}
        for what, items in (("Inputs", parameters_literal(s, s.inputs)),
                            ("Outputs", parameters_literal(s, s.outputs)),
                            ("Attributes", ['{"%s", %s, %s, "%s"}' % (n, t, "true" if r else "false", d)
                                            for n, t, r, d in s.attributes]),
                            ("Variables", ['"%s"' % v for v in s.constraints])):
            if not items:
                spans[what] = "{}"
                continue
            element = {"Inputs": "FormalParameter", "Outputs": "FormalParameter",
                       "Attributes": "AttributeSchema", "Variables": "std::string_view"}[what]
            out.write("constexpr %s k%s%s[] = {\n    %s};\n" % (element, key, what, ",\n    ".join(items)))
            spans[what] = "k%s%s" % (key, what)
        min_in, max_in = s.arity(s.inputs, s.input_range)
        min_out, max_out = s.arity(s.outputs, s.output_range)
        entries.append('    {"%s", "%s", %d, %s, %d, %d, %d, %d, %s, %s, %s, %s}' % (
            s.domain, s.name, s.version, "true" if s.deprecated else "false", min_in, max_in, min_out, max_out,
            spans["Inputs"], spans["Outputs"], spans["Attributes"], spans["Variables"]))
    out.write("\nconstexpr OpSchema kSchemas[] = {\n%s};\n\n" % ",\n".join(entries))
    out.write("""}  // namespace

std::span<const OpSchema> OnnxOpSchemas() { return kSchemas; }

}  // namespace onnxopt::onnx_schemas
""")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: generate_onnx_schemas.py CHANGELOG.md OUTPUT.cc")
    with open(sys.argv[1], encoding="utf-8") as f:
        schemas = parse(f)
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        emit(schemas, out)
    print("%d operator versions written to %s" % (len(schemas), sys.argv[2]))


if __name__ == "__main__":
    main()
