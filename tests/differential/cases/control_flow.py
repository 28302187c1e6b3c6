"""Differential cases of the control-flow kernels (onnx_extensions/kernels/control_flow_kernels.cc):
If, Loop, Scan, the sequence operators and the optionals. A list value is a sequence
input (built by SequenceConstruct); sequence outputs are observed through SequenceLength
and SequenceAt by the runner."""
import numpy as np
import onnx
from onnx import TensorProto, helper

from differential import Case, iota

CASES = []


def add(**kwargs):
    CASES.append(Case(**kwargs))


def graph(nodes, name, inputs, outputs, initializers=()):
    """A body graph: inputs / outputs as (name, elem_type, shape or None)."""
    def info(n, t, s):
        return helper.make_tensor_value_info(n, t, s)
    return helper.make_graph(nodes, name, [info(*i) for i in inputs], [info(*o) for o in outputs], list(initializers))


F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL

# --- If ----------------------------------------------------------------------------------------
# Branches hold their own data (an If has no data input; outer values would need a node).
X3 = helper.make_tensor("x", F, [3], [0.0, 1.0, 2.0])
THEN = graph([helper.make_node("Add", ["x", "x"], ["t"])], "then", [], [("t", F, None)], [X3])
ELSE = graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [("e", F, None)], [X3])
for cond in [True, False]:
    add(op="If", opset=16, name=f"if_{str(cond).lower()}", attrs={"then_branch": THEN, "else_branch": ELSE},
        inputs=[("c", np.array(cond))])
add(op="If", opset=16, name="if_cond_shape_one", attrs={"then_branch": THEN, "else_branch": ELSE},
    inputs=[("c", np.array([True]))])
add(op="If", opset=16, name="if_cond_int", attrs={"then_branch": THEN, "else_branch": ELSE},
    inputs=[("c", np.array(0, np.int64))], expect="error")
add(op="If", opset=16, name="if_cond_two_elements", attrs={"then_branch": THEN, "else_branch": ELSE},
    inputs=[("c", np.array([True, False]))], expect="error")
add(op="If", opset=16, name="if_cond_empty", attrs={"then_branch": THEN, "else_branch": ELSE},
    inputs=[("c", np.zeros([0], bool))], expect="error")
add(op="If", opset=16, name="if_branches_differ_in_shape",
    attrs={"then_branch": THEN,
           "else_branch": graph([helper.make_node("Concat", ["x", "x"], ["e"], axis=0)], "else", [], [("e", F, None)], [X3])},
    inputs=[("c", np.array(False))])
add(op="If", opset=16, name="if_missing_else", attrs={"then_branch": THEN}, inputs=[("c", np.array(False))], expect="error")
add(op="If", opset=16, name="if_output_count_mismatch", attrs={"then_branch": THEN, "else_branch": ELSE},
    inputs=[("c", np.array(True))], outputs=2, expect="error")

# --- Loop --------------------------------------------------------------------------------------------
# body(i, cond, acc) -> (cond, acc + i, i * 2 as a scan output)
# Body formal inputs are named apart from the outer values (the IR forbids shadowing).
LOOP_BODY = graph([
    helper.make_node("Cast", ["i"], ["fi"], to=F),
    helper.make_node("Add", ["acc_in", "fi"], ["acc_out"]),
    helper.make_node("Mul", ["fi", "two"], ["scan"]),
    helper.make_node("Identity", ["cond_in"], ["cond_out"]),
], "body", [("i", I64, []), ("cond_in", B, []), ("acc_in", F, [2])],
    [("cond_out", B, []), ("acc_out", F, [2]), ("scan", F, [])], [helper.make_tensor("two", F, [], [2.0])])
# body that stops when i == 2
STOP_BODY = graph([
    helper.make_node("Less", ["i", "two_i"], ["cond_out"]),
    helper.make_node("Identity", ["acc_in"], ["acc_out"]),
], "body", [("i", I64, []), ("cond_in", B, []), ("acc_in", F, [2])], [("cond_out", B, []), ("acc_out", F, [2])],
    [helper.make_tensor("two_i", I64, [], [2])])
ACC = np.zeros([2], np.float32)
for tag, trip, cond in [("trip_count", np.int64(4), None), ("zero_trips", np.int64(0), None),
                        ("cond_false", np.int64(5), np.array(False)), ("trip_and_cond", np.int64(3), np.array(True))]:
    add(op="Loop", opset=16, name=f"loop_{tag}", attrs={"body": LOOP_BODY},
        inputs=[("m", trip), ("c", cond), ("acc", ACC)], outputs=2)
add(op="Loop", opset=16, name="loop_condition_stops", attrs={"body": STOP_BODY},
    inputs=[("m", None), ("c", np.array(True)), ("acc", ACC)], outputs=1)
add(op="Loop", opset=16, name="loop_negative_trip_count", attrs={"body": LOOP_BODY},
    inputs=[("m", np.int64(-3)), ("c", None), ("acc", ACC)], outputs=2)
add(op="Loop", opset=16, name="loop_trip_count_empty", attrs={"body": LOOP_BODY},
    inputs=[("m", np.zeros([0], np.int64)), ("c", None), ("acc", ACC)], outputs=2, expect="error")
add(op="Loop", opset=16, name="loop_cond_not_scalar", attrs={"body": LOOP_BODY},
    inputs=[("m", np.int64(2)), ("c", np.array([True, True])), ("acc", ACC)], outputs=2, expect="error")
add(op="Loop", opset=16, name="loop_body_output_count_mismatch", attrs={"body": STOP_BODY},
    inputs=[("m", np.int64(2)), ("c", None), ("acc", ACC)], outputs=2, expect="error")
add(op="Loop", opset=11, name="loop_opset11", attrs={"body": LOOP_BODY},
    inputs=[("m", np.int64(2)), ("c", None), ("acc", ACC)], outputs=2)

# --- Scan ------------------------------------------------------------------------------------------------
# body(state, x) -> (state + x, state * x)
SCAN_BODY = graph([
    helper.make_node("Add", ["s_in", "x_in"], ["s_out"]),
    helper.make_node("Mul", ["s_in", "x_in"], ["y"]),
], "body", [("s_in", F, [2]), ("x_in", F, [2])], [("s_out", F, [2]), ("y", F, [2])])
XS = iota([3, 2]) + 1
for tag, attrs, data in [("forward", {}, XS), ("reverse_input", {"scan_input_directions": [1]}, XS),
                         ("reverse_output", {"scan_output_directions": [1]}, XS),
                         ("axis_1", {"scan_input_axes": [1]}, XS.T.copy()),
                         ("output_axis_1", {"scan_output_axes": [1]}, XS),
                         ("negative_axis", {"scan_input_axes": [-1], "scan_output_axes": [-1]}, XS.T.copy())]:
    add(op="Scan", opset=16, name=f"scan_{tag}", attrs={"body": SCAN_BODY, "num_scan_inputs": 1, **attrs},
        inputs=[("s", np.ones([2], np.float32)), ("x", data)], outputs=2)
add(op="Scan", opset=16, name="scan_empty", attrs={"body": SCAN_BODY, "num_scan_inputs": 1},
    inputs=[("s", np.ones([2], np.float32)), ("x", np.zeros([0, 2], np.float32))], outputs=2, expect="spec",
    expected=[np.ones([2], np.float32), np.zeros([0, 2], np.float32)],
    reason="zero iterations: the state is the initial one, the scan output stacks no [2] slice; onnxruntime fails "
           "to slice the empty input")
add(op="Scan", opset=16, name="scan_axis_out_of_range", attrs={"body": SCAN_BODY, "num_scan_inputs": 1, "scan_input_axes": [2]},
    inputs=[("s", np.ones([2], np.float32)), ("x", XS)], outputs=2, expect="error")
add(op="Scan", opset=16, name="scan_num_scan_inputs_too_large", attrs={"body": SCAN_BODY, "num_scan_inputs": 3},
    inputs=[("s", np.ones([2], np.float32)), ("x", XS)], outputs=2, expect="error")
add(op="Scan", opset=16, name="scan_num_scan_inputs_negative", attrs={"body": SCAN_BODY, "num_scan_inputs": -1},
    inputs=[("s", np.ones([2], np.float32)), ("x", XS)], outputs=2, expect="error")
add(op="Scan", opset=16, name="scan_directions_wrong_length",
    attrs={"body": SCAN_BODY, "num_scan_inputs": 1, "scan_input_directions": [0, 1]},
    inputs=[("s", np.ones([2], np.float32)), ("x", XS)], outputs=2, expect="error")
add(op="Scan", opset=9, name="scan_opset9", attrs={"body": SCAN_BODY, "num_scan_inputs": 1},
    inputs=[("s", np.ones([2], np.float32)), ("x", XS)], outputs=2)

# --- Sequences --------------------------------------------------------------------------------------------
SEQ = [iota([2]), iota([3]) + 10, iota([1]) - 5]
add(op="SequenceConstruct", opset=11, name="sequenceconstruct_three", inputs=[("a", iota([2])), ("b", iota([2, 2])),
                                                                             ("c", np.zeros([0], np.float32))])
add(op="SequenceConstruct", opset=11, name="sequenceconstruct_type_mismatch",
    inputs=[("a", iota([2])), ("b", iota([2], np.int64))], expect="error")
add(op="SequenceEmpty", opset=11, name="sequenceempty_default")
add(op="SequenceEmpty", opset=11, name="sequenceempty_int64", attrs={"dtype": I64})
for position in [0, 2, -1, -3]:
    add(op="SequenceAt", opset=11, name=f"sequenceat_{position}".replace("-", "m"),
        inputs=[("s", SEQ), ("p", np.int64(position))])
add(op="SequenceAt", opset=11, name="sequenceat_int32_position", inputs=[("s", SEQ), ("p", np.int32(1))])
add(op="SequenceAt", opset=11, name="sequenceat_out_of_range", inputs=[("s", SEQ), ("p", np.int64(3))], expect="error")
add(op="SequenceAt", opset=11, name="sequenceat_negative_out_of_range", inputs=[("s", SEQ), ("p", np.int64(-4))], expect="error")
add(op="SequenceAt", opset=11, name="sequenceat_position_empty", inputs=[("s", SEQ), ("p", np.zeros([0], np.int64))],
    expect="error")
add(op="SequenceAt", opset=11, name="sequenceat_position_float", inputs=[("s", SEQ), ("p", np.float32(0))], expect="error")
for position in [None, 0, 3, -1]:
    tag = "end" if position is None else str(position).replace("-", "m")
    add(op="SequenceInsert", opset=11, name=f"sequenceinsert_{tag}",
        inputs=[("s", SEQ), ("t", iota([4]) * 2)] + ([("p", np.int64(position))] if position is not None else []))
add(op="SequenceInsert", opset=11, name="sequenceinsert_out_of_range", inputs=[("s", SEQ), ("t", iota([4])), ("p", np.int64(4))],
    expect="error")
add(op="SequenceInsert", opset=11, name="sequenceinsert_type_mismatch", inputs=[("s", SEQ), ("t", iota([4], np.int64))],
    expect="error")
for position in [None, 0, -1, 1]:
    tag = "last" if position is None else str(position).replace("-", "m")
    add(op="SequenceErase", opset=11, name=f"sequenceerase_{tag}",
        inputs=[("s", SEQ)] + ([("p", np.int64(position))] if position is not None else []))
add(op="SequenceErase", opset=11, name="sequenceerase_out_of_range", inputs=[("s", SEQ), ("p", np.int64(3))], expect="error")
add(op="SequenceErase", opset=11, name="sequenceerase_empty_sequence", inputs=[("s", [])], expect="error")
add(op="SequenceLength", opset=11, name="sequencelength_three", inputs=[("s", SEQ)])
add(op="SequenceLength", opset=11, name="sequencelength_empty", inputs=[("s", [])])

X = iota([5, 2])
for tag, split, attrs in [("default", None, {}), ("scalar_split", np.int64(2), {}), ("sizes", np.array([1, 4], np.int64), {}),
                          ("no_keepdims", None, {"keepdims": 0}), ("axis_1", None, {"axis": 1}),
                          ("negative_axis", np.int64(1), {"axis": -1}), ("zero_size", np.array([0, 5], np.int64), {})]:
    add(op="SplitToSequence", opset=11, name=f"splittosequence_{tag}", attrs=attrs,
        inputs=[("x", X)] + ([("split", split)] if split is not None else []))
add(op="SplitToSequence", opset=11, name="splittosequence_keepdims_ignored_with_split", attrs={"keepdims": 0},
    inputs=[("x", X), ("split", np.int64(5))], expect="spec", expected=[[X]],
    reason="keepdims is ignored when split is given: one part [5, 2]; onnxruntime drops the axis and fails")
add(op="SplitToSequence", opset=11, name="splittosequence_sizes_wrong_sum", inputs=[("x", X), ("split", np.array([1, 2], np.int64))],
    expect="error")
add(op="SplitToSequence", opset=11, name="splittosequence_zero_scalar", inputs=[("x", X), ("split", np.int64(0))], expect="error")
add(op="SplitToSequence", opset=11, name="splittosequence_negative_size", inputs=[("x", X), ("split", np.array([6, -1], np.int64))],
    expect="error")
add(op="SplitToSequence", opset=11, name="splittosequence_axis_out_of_range", attrs={"axis": 2}, inputs=[("x", X)], expect="error")
add(op="SplitToSequence", opset=11, name="splittosequence_empty_axis", inputs=[("x", np.zeros([0, 2], np.float32))])

SAME = [iota([2, 3]), iota([2, 3]) + 6]
for tag, attrs in [("axis_0", {"axis": 0}), ("axis_1", {"axis": 1}), ("new_axis_0", {"axis": 0, "new_axis": 1}),
                   ("new_axis_last", {"axis": -1, "new_axis": 1}), ("negative_axis", {"axis": -2})]:
    add(op="ConcatFromSequence", opset=11, name=f"concatfromsequence_{tag}", attrs=attrs, inputs=[("s", SAME)])
add(op="ConcatFromSequence", opset=11, name="concatfromsequence_ragged", attrs={"axis": 0},
    inputs=[("s", [iota([1, 3]), iota([2, 3])])])
add(op="ConcatFromSequence", opset=11, name="concatfromsequence_missing_axis", inputs=[("s", SAME)], expect="error")
add(op="ConcatFromSequence", opset=11, name="concatfromsequence_axis_out_of_range", attrs={"axis": 2}, inputs=[("s", SAME)],
    expect="error")
add(op="ConcatFromSequence", opset=11, name="concatfromsequence_shape_mismatch", attrs={"axis": 0},
    inputs=[("s", [iota([1, 3]), iota([1, 2])])], expect="error")
add(op="ConcatFromSequence", opset=11, name="concatfromsequence_empty_sequence", attrs={"axis": 0}, inputs=[("s", [])],
    expect="error")

# --- Optionals -----------------------------------------------------------------------------------------------
add(op="Optional", opset=15, name="optional_with_tensor", inputs=[("x", iota([2]))])
add(op="Optional", opset=15, name="optional_empty", attrs={"type": helper.make_tensor_type_proto(F, [2])})
add(op="OptionalHasElement", opset=18, name="optionalhaselement_tensor", inputs=[("x", iota([2]))])
add(op="OptionalHasElement", opset=18, name="optionalhaselement_no_input", inputs=[("x", None)])
add(op="OptionalGetElement", opset=18, name="optionalgetelement_tensor", inputs=[("x", iota([2]))])
add(op="OptionalGetElement", opset=18, name="optionalgetelement_sequence", inputs=[("x", SEQ)])
