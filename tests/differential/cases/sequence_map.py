"""Differential cases of SequenceMap (onnx_extensions/kernels/sequence_map_kernels.cc): the
body runs once per position of the first input; sequence inputs give it their element
there, tensors are passed whole; each body output makes an output sequence."""
import numpy as np
from onnx import TensorProto, helper

from differential import Case

CASES = []


def add(**kwargs):
    CASES.append(Case(**kwargs))


def body(nodes, inputs, outputs):
    """A body graph: inputs and outputs as (name, element type, shape)."""
    return helper.make_graph(nodes, "body", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                             [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs])


F, I64 = TensorProto.FLOAT, TensorProto.INT64
ragged = [np.arange(3, dtype=np.float32), np.arange(5, dtype=np.float32) - 2, np.array([7], np.float32)]

add(op="SequenceMap", opset=17, name="sequencemap_identity_one_sequence",
    attrs={"body": body([helper.make_node("Identity", ["a"], ["b"])], [("a", F, ["N"])], [("b", F, ["N"])])},
    inputs=[("s", ragged)])
add(op="SequenceMap", opset=17, name="sequencemap_add_sequence_and_tensor",
    attrs={"body": body([helper.make_node("Add", ["a", "w"], ["b"])], [("a", F, [3]), ("w", F, [3])],
                        [("b", F, [3])])},
    inputs=[("s", [np.arange(3, dtype=np.float32) * k for k in range(4)]), ("t", np.array([10, 20, 30], np.float32))])
add(op="SequenceMap", opset=17, name="sequencemap_two_sequences_two_outputs", outputs=2,
    attrs={"body": body([helper.make_node("Mul", ["a", "c"], ["p"]), helper.make_node("Shape", ["a"], ["n"])],
                        [("a", F, ["N"]), ("c", F, ["N"])], [("p", F, ["N"]), ("n", I64, [1])])},
    inputs=[("s", ragged), ("u", [r * 2 + 1 for r in ragged])])
add(op="SequenceMap", opset=17, name="sequencemap_int64_reduce",
    attrs={"body": body([helper.make_node("ReduceSum", ["a"], ["b"], keepdims=0)], [("a", I64, ["N"])],
                        [("b", I64, [])])},
    inputs=[("s", [np.arange(k, dtype=np.int64) for k in (1, 4, 2)])])
add(op="SequenceMap", opset=17, name="sequencemap_lengths_differ", expect="error",
    attrs={"body": body([helper.make_node("Add", ["a", "c"], ["b"])], [("a", F, ["N"]), ("c", F, ["N"])],
                        [("b", F, ["N"])])},
    inputs=[("s", ragged), ("u", ragged[:2])])
add(op="SequenceMap", opset=17, name="sequencemap_first_input_not_a_sequence", expect="error",
    attrs={"body": body([helper.make_node("Identity", ["a"], ["b"])], [("a", F, [3])], [("b", F, [3])])},
    inputs=[("t", np.zeros([3], np.float32))])
add(op="SequenceMap", opset=17, name="sequencemap_body_arity_differs", expect="error",
    attrs={"body": body([helper.make_node("Identity", ["a"], ["b"])], [("a", F, ["N"])], [("b", F, ["N"])])},
    inputs=[("s", ragged), ("t", np.zeros([3], np.float32))])
