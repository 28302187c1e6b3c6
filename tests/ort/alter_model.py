#!/usr/bin/python3
"""Writes a deliberately altered copy of a model: the first node of type FROM in the
main graph becomes TO (default: Add -> Sub). Used to show that compare_models.js fails
on a non-equivalent model.

Usage: alter_model.py IN OUT [FROM] [TO]   (Debian's /usr/bin/python3 with python3-onnx)
"""
import sys

import onnx


def main():
    src, dst = sys.argv[1], sys.argv[2]
    op_from = sys.argv[3] if len(sys.argv) > 3 else "Add"
    op_to = sys.argv[4] if len(sys.argv) > 4 else "Sub"
    m = onnx.load(src)
    for node in m.graph.node:
        if node.op_type == op_from and node.domain in ("", "ai.onnx"):
            print(f"alter_model: node '{node.name}' {op_from} -> {op_to}")
            node.op_type = op_to
            onnx.save(m, dst)
            return 0
    print(f"alter_model: no {op_from} node in {src}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
