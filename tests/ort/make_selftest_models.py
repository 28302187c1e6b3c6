#!/usr/bin/python3
"""Writes the small models used by harness_selftest.sh into OUT_DIR.

  ref.onnx        z = Add(x, y) * 2 with a symbolic `batch` shared by x and y,
                  h16 (float16) -> Cast(float32), idx (int64) -> Gather from a constant
  sub.onnx        same with Add replaced by Sub (must be reported as a mismatch)
  eps_small.onnx  same plus 1e-7 on z (within the default tolerance)
  eps_large.onnx  same plus 1e-2 on z (outside the default tolerance)
  eps_inf.onnx    same plus +inf on z (z infinite: matches no finite z, only +inf)
  eps_minus_inf.onnx  same plus -inf on z
  renamed.onnx    same with output `z` renamed `z2` (output sets differ)
  bf16.onnx       a bfloat16 input (onnxruntime-node cannot feed it: exit code 3)
  half_ref.onnx   y = x * 1 in float16
  half_near.onnx  y = x * (1 + 2^-9): two float16 rounding steps, within the float16
                  tolerance but not within float32's
  half_far.onnx   y = x * (1 + 2^-6): outside the float16 tolerance
  broken.onnx     not a protobuf
Usage: make_selftest_models.py OUT_DIR   (Debian's /usr/bin/python3 with python3-onnx)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(op="Add", eps=0.0, out_name="z"):
    nodes = [
        helper.make_node(op, ["x", "y"], ["s"]),
        helper.make_node("Mul", ["s", "two"], ["m"]),
        helper.make_node("Add", ["m", "eps"], [out_name]),
        helper.make_node("Cast", ["h16"], ["h32"], to=TensorProto.FLOAT),
        helper.make_node("Gather", ["table", "idx"], ["g"], axis=0),
    ]
    inits = [
        numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two"),
        numpy_helper.from_array(np.array(eps, dtype=np.float32), "eps"),
        numpy_helper.from_array(np.arange(16 * 3, dtype=np.float32).reshape(16, 3), "table"),
    ]
    graph = helper.make_graph(
        nodes, "selftest",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4]),
         helper.make_tensor_value_info("h16", TensorProto.FLOAT16, [3]),
         helper.make_tensor_value_info("idx", TensorProto.INT64, [5])],
        [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, ["batch", 4]),
         helper.make_tensor_value_info("h32", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("g", TensorProto.FLOAT, [5, 3])],
        inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def bf16_model():
    graph = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)], "bf16",
        [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m


def half_scale_model(factor):
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "c"], ["y"])], "half",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [64])],
        [numpy_helper.from_array(np.array(factor, dtype=np.float16), "c")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    onnx.save(model(), os.path.join(out, "ref.onnx"))
    onnx.save(model(op="Sub"), os.path.join(out, "sub.onnx"))
    onnx.save(model(eps=1e-7), os.path.join(out, "eps_small.onnx"))
    onnx.save(model(eps=1e-2), os.path.join(out, "eps_large.onnx"))
    onnx.save(model(eps=np.inf), os.path.join(out, "eps_inf.onnx"))
    onnx.save(model(eps=-np.inf), os.path.join(out, "eps_minus_inf.onnx"))
    onnx.save(model(out_name="z2"), os.path.join(out, "renamed.onnx"))
    onnx.save(bf16_model(), os.path.join(out, "bf16.onnx"))
    onnx.save(half_scale_model(1.0), os.path.join(out, "half_ref.onnx"))
    onnx.save(half_scale_model(1.0 + 2.0**-9), os.path.join(out, "half_near.onnx"))
    onnx.save(half_scale_model(1.0 + 2.0**-6), os.path.join(out, "half_far.onnx"))
    with open(os.path.join(out, "broken.onnx"), "wb") as f:
        f.write(b"this is not an onnx model\xff\xff")


if __name__ == "__main__":
    main()
