#!/usr/bin/python3
"""Writes a copy of a model where every intermediate value of the main graph is a graph
output, so that onnxruntime returns it (tests/shapes/check_shapes_with_ort.js).

Usage: expose_values.py MODEL OUT [--shape-of NAME ...] [--only FILE | --probes FILE]

Exposed values: every non-empty output of every node of the main graph (not the values
of nested graphs, which onnxruntime cannot expose), in node order, except those already
graph outputs. Each new graph output is a ValueInfoProto with a name and NO type:
onnxruntime accepts such outputs and only uses its own type inference to allocate them;
the checker reads the element type and the shape of the tensors the run returns, so
nothing of the oracle comes from a shape inference (ours or onnx's) -- the runtime
tensors are the oracle.

--shape-of NAME: instead of exposing NAME itself, add a node `Shape(NAME)` whose output
`NAME::shape` is exposed (for values of element types onnxruntime-node cannot hand to
JavaScript, e.g. bfloat16). The checker then reads NAME's shape from that int64 vector.

--only FILE: expose only the node outputs listed in FILE (one name a line), so that a
large model can be checked in chunks, each run holding only some values; the original
graph outputs not listed are removed too (e.g. sequences, which onnxruntime-node cannot
return). Removing outputs changes no computed value.

--probes FILE: as --only FILE, but every listed value (not given to --shape-of) is
exposed through two small probes instead of itself: `NAME::shape` = Shape(NAME) and
`NAME::type` = Slice(Reshape(NAME, [-1]), [0], [0]), an empty tensor of NAME's element
type. One run then returns the element type and the shape of every value without
holding the values (llama_forward's are ~6 GB): the checker reads the dims from the
first and the type from the second. No original graph output is kept (the listed ones
are probed). Needs opset 10 or later (Slice with inputs).

Everything else (nodes, value_info, initializers, functions, opsets) is kept as is, so
that the exposed model computes exactly what the original computes.

Prints one JSON object on stdout:
  {"inputs": [{"name", "elem_type", "dims": [int | str | null]}],      graph inputs
   "initializers": [{"name", "elem_type", "dims": [int]}],
   "values": [NAME, ...],      node outputs of the main graph, in node order
   "outputs": [NAME, ...],     graph outputs of the original model
   "exposed": [NAME, ...],     graph outputs of OUT (original ones first)
   "shape_of": {NAME: "NAME::shape"},
   "probes": {NAME: {"shape": "NAME::shape", "type": "NAME::type"}},
   "opset": INT}               default-domain opset
"""
import json
import sys

import onnx


def dims_of(type_proto):
    if not type_proto.HasField("tensor_type"):
        return None, None
    t = type_proto.tensor_type
    elem = t.elem_type if t.elem_type else None
    if not t.HasField("shape"):
        return elem, None
    dims = []
    for d in t.shape.dim:
        if d.HasField("dim_value"):
            dims.append(d.dim_value)
        elif d.HasField("dim_param") and d.dim_param:
            dims.append(d.dim_param)
        else:
            dims.append(None)
    return elem, dims


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, dst = argv[1], argv[2]
    shape_of = []
    only = None
    probing = False
    rest = argv[3:]
    i = 0
    while i < len(rest):
        if rest[i] == "--shape-of" and i + 1 < len(rest):
            shape_of.append(rest[i + 1])
            i += 2
        elif rest[i] in ("--only", "--probes") and i + 1 < len(rest):
            with open(rest[i + 1]) as f:
                only = {line.rstrip("\n") for line in f if line.rstrip("\n")}
            probing = rest[i] == "--probes"
            i += 2
        else:
            print(f"expose_values.py: unknown argument {rest[i]!r}", file=sys.stderr)
            return 2
    model = onnx.load(src)
    g = model.graph

    inputs = []
    for vi in g.input:
        elem, dims = dims_of(vi.type)
        inputs.append({"name": vi.name, "elem_type": elem, "dims": dims})
    initializers = [{"name": t.name, "elem_type": t.data_type, "dims": list(t.dims)} for t in g.initializer]
    for t in g.sparse_initializer:
        initializers.append({"name": t.values.name, "elem_type": t.values.data_type, "dims": list(t.dims)})

    values = []
    seen = set()
    for node in g.node:
        for o in node.output:
            if o and o not in seen:
                seen.add(o)
                values.append(o)
    outputs = [o.name for o in g.output]
    if only is not None:
        kept = [] if probing else [o for o in g.output if o.name in only]
        del g.output[:]
        g.output.extend(kept)
    exposed = [o.name for o in g.output]
    have = set(exposed)

    shape_names = {}
    wanted_shape_of = set(shape_of)
    probe_names = {}
    used = {n for n in seen} | {v["name"] for v in inputs} | {t["name"] for t in initializers}

    def fresh(name):
        while name in used:
            name += "_"
        used.add(name)
        return name

    def expose(name):
        vi = onnx.ValueInfoProto()
        vi.name = name
        g.output.append(vi)
        exposed.append(name)

    def add_shape_node(name):
        out = fresh(name + "::shape")
        g.node.append(onnx.helper.make_node("Shape", [name], [out], name=out + "_node"))
        expose(out)
        return out

    if probing:
        flat = fresh("::flat")
        zero = fresh("::zero")
        g.initializer.append(onnx.helper.make_tensor(flat, onnx.TensorProto.INT64, [1], [-1]))
        g.initializer.append(onnx.helper.make_tensor(zero, onnx.TensorProto.INT64, [1], [0]))
    for name in values:
        if only is not None and name not in only:
            continue
        if name in wanted_shape_of:
            shape_names[name] = add_shape_node(name)
            continue
        if probing:
            flattened = fresh(name + "::flat")
            empty = fresh(name + "::type")
            g.node.append(onnx.helper.make_node("Reshape", [name, flat], [flattened], name=flattened + "_node"))
            g.node.append(onnx.helper.make_node("Slice", [flattened, zero, zero], [empty], name=empty + "_node"))
            expose(empty)
            probe_names[name] = {"shape": add_shape_node(name), "type": empty}
            continue
        if name in have:
            continue
        expose(name)
        have.add(name)

    opset = None
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            opset = imp.version
    onnx.save(model, dst)
    json.dump({"inputs": inputs, "initializers": initializers, "values": values, "outputs": outputs,
               "exposed": exposed, "shape_of": shape_names, "probes": probe_names,
               "opset": opset}, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
