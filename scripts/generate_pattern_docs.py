#!/usr/bin/env python3
"""Generates the table of pattern documentation compiled into lib_onnx_patterns.

The one source of truth of a pattern's documentation is the `///` comment above its class
in its header (what it matches, Before:/After:, where it is not valid, numerics). This
script reads the headers given on the command line and writes a C++ file defining
onnxopt::onnx_patterns::RegisterPatternDocs(), which hands each registered name (the
class's kName) and its comment to core::builder::DocumentPattern. `onnxopt patterns NAME`
and the Python classes' __doc__ read it from the registry.

A class's comment is the block of `///` lines directly above `class Name` (template lines
may stand between). A header that documents its one class in a leading `///` block instead
(transpose_optimizer.h) gives that block. A class without either gets no entry, and the
test RegisterPatternDocs.EveryBuiltInPatternAndPassIsDocumented names it.

With --python-output it also writes BindPatternClasses(), which gives every built-in
pattern class its own Python type (python/src/patterns_module.cc), and with --python-stub
the type stub of that module (_onnxpypatterns.pyi).

usage: generate_pattern_docs.py [--output FILE] [--python-output FILE] [--python-stub FILE]
                                [--source-root DIR] HEADER...
"""

from __future__ import annotations

import argparse
import os
import re
import sys

CLASS_RE = re.compile(r"^\s*class\s+(\w+)\b[^;]*$")
NAME_RE = re.compile(r'static\s+constexpr\s+std::string_view\s+kName\s*=\s*"([^"]+)"')
TEMPLATE_RE = re.compile(r"^\s*template\s*<")
NAMESPACE_RE = re.compile(r"^namespace\s+([\w:]+)\s*\{")


def doc_lines(block: list[str]) -> str:
    """The text of a `///` block: the markers and one following space removed, indentation kept."""
    text = []
    for line in block:
        body = line.strip()[3:]
        text.append(body[1:] if body.startswith(" ") else body)
    return "\n".join(text).rstrip()


def leading_block(lines: list[str]) -> list[str]:
    """The first `///` block of the file, when nothing but comments and blank lines precede it."""
    block: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("///"):
            block.append(line)
        elif block:
            break
        elif stripped and not stripped.startswith("//") and not stripped.startswith("#pragma"):
            break
    return block


def block_above(lines: list[str], index: int) -> list[str]:
    """The `///` lines directly above lines[index], skipping template<...> lines."""
    i = index - 1
    while i >= 0 and TEMPLATE_RE.match(lines[i]):
        i -= 1
    block: list[str] = []
    while i >= 0 and lines[i].strip().startswith("///"):
        block.insert(0, lines[i])
        i -= 1
    return block


def namespace_at(lines: list[str], index: int) -> str:
    """The namespace open at lines[index] (headers open one `namespace a::b {` at a time)."""
    namespace = ""
    for line in lines[:index]:
        if m := NAMESPACE_RE.match(line):
            namespace = m.group(1)
        elif re.match(r"^\}\s*//\s*namespace", line):
            namespace = ""
    return namespace


def registered_classes(path: str) -> list[tuple[str, str, str]]:
    """(kName, doc, qualified class name) for every class of the header that declares a kName."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    classes = [(i, m.group(1)) for i, line in enumerate(lines) if (m := CLASS_RE.match(line))]
    found = []
    for position, (start, class_name) in enumerate(classes):
        end = classes[position + 1][0] if position + 1 < len(classes) else len(lines)
        name = next((m.group(1) for line in lines[start:end] if (m := NAME_RE.search(line))), None)
        if name is None:
            continue
        block = block_above(lines, start)
        if not block and len(classes) == 1:
            block = leading_block(lines)
        found.append((name, doc_lines(block) if block else "", f"{namespace_at(lines, start)}::{class_name}"))
    return found


def cpp_literal(text: str) -> str:
    """`text` as adjacent C++ string literals, one per line of the text."""
    escaped = [line.replace("\\", "\\\\").replace('"', '\\"') for line in text.split("\n")]
    parts = [f'"{line}\\n"' for line in escaped[:-1]] + [f'"{escaped[-1]}"']
    return "\n      ".join(parts)


def collect(headers: list[str], source_root: str) -> dict[str, tuple[str, str, str]]:
    """kName -> (doc, header relative to source_root, qualified class name)."""
    entries: dict[str, tuple[str, str, str]] = {}
    for header in sorted(headers):
        relative = os.path.relpath(header, source_root) if source_root else header
        for name, doc, qualified in registered_classes(header):
            if name in entries:
                raise SystemExit(f"{header}: pattern '{name}' is also declared in {entries[name][1]}")
            entries[name] = (doc, relative, qualified)
    return entries


def generate_docs(entries: dict[str, tuple[str, str, str]]) -> str:
    out = [
        "// Generated by scripts/generate_pattern_docs.py from the `///` comments of the pattern",
        "// headers. Do not edit: edit the comment above the pattern's class.",
        "",
        '#include "onnx_core/optimizer/pattern_registry.h"',
        '#include "onnx_extensions/patterns/pattern_docs.h"',
        "",
        "namespace onnxopt::onnx_patterns {",
        "",
        "void RegisterPatternDocs() {",
    ]
    for name, (doc, header, _) in sorted(entries.items()):
        if not doc:
            continue  # RegisterPatternDocs.EveryBuiltInPatternAndPassIsDocumented names it
        out.append(f"  // {header}")
        out.append(f'  core::builder::DocumentPattern("{name}",\n      {cpp_literal(doc)});')
    out += ["}", "", "}  // namespace onnxopt::onnx_patterns", ""]
    return "\n".join(out)


def generate_python_classes(entries: dict[str, tuple[str, str, str]]) -> str:
    """BindPatternClasses(m): one Python class per pattern class (python/src/patterns_module.cc)."""
    out = [
        "// Generated by scripts/generate_pattern_docs.py: one Python class per built-in pattern",
        "// class, so that isinstance works and __doc__ is the registry's documentation.",
        "",
        '#include "python/src/pattern_classes.h"',
        "",
    ]
    out += [f'#include "{header}"' for header in sorted({header for _, header, _ in entries.values()})]
    out += ["", "namespace onnxopt::python {", "", "void BindPatternClasses(pybind11::module_& m) {"]
    out += [f"  BindPatternClass<{qualified}>(m);" for _, (_, _, qualified) in sorted(entries.items())]
    out += ["}", "", "}  // namespace onnxopt::python", ""]
    return "\n".join(out)


def generate_python_stub(entries: dict[str, tuple[str, str, str]]) -> str:
    """_onnxpypatterns.pyi: the module's functions and one class per pattern, with its doc."""
    out = [
        '"""The built-in ONNX rewrite patterns (generated by scripts/generate_pattern_docs.py)."""',
        "",
        "from typing import List, Tuple",
        "",
        "from onnxopt._onnxpycore import builder",
        "",
        "def register_patterns() -> None: ...",
        "def names() -> List[str]: ...",
        "def families() -> List[Tuple[str, str]]: ...",
        "def doc(name: str) -> str: ...",
        "def create(name: str) -> builder.PatternOptimization: ...",
        "",
        "# The pattern classes, which the onnxopt package re-exports (`from ._onnxpypatterns import *`).",
        "__all__ = [",
    ]
    out += [f'    "{name}",' for name in sorted(entries)]
    out += ["]"]
    for name, (doc, _, _) in sorted(entries.items()):
        text = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
        text = text[:-1] + '\\"' if text.endswith('"') else text
        out += ["", f"class {name}(builder.PatternOptimization):", f'    """{text}"""', "",
                "    def __init__(self) -> None: ..."]
    return "\n".join(out) + "\n"


def write_if_changed(path: str, text: str) -> None:
    """Rewrites `path` only on change, so that an edit elsewhere in a header recompiles nothing."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", help="the C++ file defining RegisterPatternDocs()")
    parser.add_argument("--python-output", help="the C++ file defining BindPatternClasses() for Python")
    parser.add_argument("--python-stub", help="the stub (.pyi) of the module BindPatternClasses fills")
    parser.add_argument("--source-root", default="", help="headers are named (and included) relative to it")
    parser.add_argument("headers", nargs="+")
    args = parser.parse_args()
    entries = collect(args.headers, args.source_root)
    if args.output:
        write_if_changed(args.output, generate_docs(entries))
    if args.python_output:
        write_if_changed(args.python_output, generate_python_classes(entries))
    if args.python_stub:
        write_if_changed(args.python_stub, generate_python_stub(entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
