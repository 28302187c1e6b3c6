#!/usr/bin/python3
"""Synthetic LLaMA-style decoder, in the style of PyTorch's exporters (unoptimized:
shape chains recomputed at every view, Identity and Cast round trips), for benchmarks
and shape-inference checks.

Usage: make_decoder.py --layers L [--hidden 64] [--heads 4] [--intermediate 128]
                       [--vocab 256] [--weights-as-inputs] [--seed 0] OUT.onnx

Graph (opset 18, dynamic dims `batch` and `seq`):
  input_ids int64 [batch, seq]  ->  logits float [batch, seq, vocab]
  prologue: embedding Gather; positions Range(0, seq) from Shape/Gather; rotary tables
            cos/sin [seq, head_dim] from MatMul/Concat/Cos/Sin; causal mask [seq, seq]
            from ConstantOfShape/Trilu/Equal/Where
  per layer (255 nodes):
    RMSNorm as Cast/Pow/ReduceMean/Add/Sqrt/Reciprocal/Mul/Mul/Cast, twice
    Q, K, V, O projections and the MLP's gate/up/down: view to [batch*seq, hidden]
      through Shape/Gather/Mul/Unsqueeze/Concat/Reshape, Transpose of the [out, in]
      weight, MatMul, view back to [batch, seq, out]
    heads: Reshape to [batch, seq, heads, head_dim] with a recomputed shape, Transpose
    rotary embedding: Gather(cos/sin, positions), Unsqueeze, Slice halves, Neg, Concat,
      Mul, Mul, Add (q and k)
    attention: Transpose(k), MatMul, Div by sqrt(head_dim), causal mask Slice (bounds
      from Shape/Gather/Unsqueeze), Add, Cast/Softmax/Cast round trip, MatMul,
      Transpose, Reshape back
      (mask Expand-ed to [batch, 1, q, k] with a recomputed shape)
    MLP: SiLU as Sigmoid/Mul, Cast float16 round trip, Mul, residual Adds; Identity
      nodes after most steps
  epilogue: RMSNorm, lm_head.
Weights are initializers of small random values (hidden 64: ~40k floats a layer), or
graph inputs with --weights-as-inputs (static shapes). 40 layers give 10.2k nodes,
400 layers 102k.
Prints the node count.
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 18


class Builder:
    def __init__(self, rng, weights_as_inputs):
        self.nodes = []
        self.inits = []
        self.inputs = []
        self.rng = rng
        self.weights_as_inputs = weights_as_inputs
        self.counter = 0
        self.consts = {}

    def name(self, base):
        self.counter += 1
        return f"{base}_{self.counter}"

    def op(self, op_type, inputs, n_out=1, base=None, **attrs):
        base = base or op_type.lower()
        outs = [self.name(base) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=self.name("n_" + op_type), **attrs))
        return outs[0] if n_out == 1 else outs

    def ident(self, x):
        return self.op("Identity", [x], base="clone")

    def const_i64(self, values, scalar=False):
        key = ("i64", tuple(values), scalar)
        if key not in self.consts:
            arr = np.array(values[0] if scalar else values, dtype=np.int64)
            name = self.name("const_i64")
            self.inits.append(numpy_helper.from_array(arr, name))
            self.consts[key] = name
        return self.consts[key]

    def const_f32(self, value):
        key = ("f32", value)
        if key not in self.consts:
            name = self.name("const_f32")
            self.inits.append(numpy_helper.from_array(np.array(value, dtype=np.float32), name))
            self.consts[key] = name
        return self.consts[key]

    def weight(self, base, shape, scale=0.05):
        name = self.name(base)
        if self.weights_as_inputs:
            self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))
        else:
            arr = (self.rng.standard_normal(shape) * scale).astype(np.float32)
            self.inits.append(numpy_helper.from_array(arr, name))
        return name

    # shape helpers, exporter style: recomputed at every use
    def dim(self, x, axis):
        s = self.op("Shape", [x], base="sym_size")
        return self.op("Gather", [s, self.const_i64([axis], scalar=True)], base="sym_size_int", axis=0)

    def unsq(self, scalar):
        return self.op("Unsqueeze", [scalar, self.const_i64([0])], base="unsqueeze")

    def view(self, x, parts):
        """Reshape x to the concatenation of parts: ints or 0-d int64 values."""
        pieces = [self.unsq(p) if isinstance(p, str) else self.const_i64([p]) for p in parts]
        shape = self.op("Concat", pieces, base="view_shape", axis=0)
        return self.op("Reshape", [x, shape], base="view")


def rms_norm(b, x, hidden):
    w = b.weight("norm_weight", [hidden], scale=1.0)
    xf = b.op("Cast", [x], base="to_copy", to=TensorProto.FLOAT)
    p = b.op("Pow", [xf, b.const_f32(2.0)], base="pow")
    m = b.op("ReduceMean", [p, b.const_i64([-1])], base="mean", keepdims=1)
    a = b.op("Add", [m, b.const_f32(1e-6)], base="add")
    s = b.op("Sqrt", [a], base="sqrt")
    r = b.op("Reciprocal", [s], base="rsqrt")
    y = b.op("Mul", [xf, r], base="mul")
    y = b.op("Cast", [y], base="to_copy", to=TensorProto.FLOAT)
    return b.op("Mul", [w, y], base="mul")


def linear(b, x, n_in, n_out):
    """x [batch, seq, n_in] -> [batch, seq, n_out], through a 2-D view."""
    w = b.weight("proj_weight", [n_out, n_in])
    wt = b.op("Transpose", [w], base="t", perm=[1, 0])
    bsz = b.dim(x, 0)
    seq = b.dim(x, 1)
    rows = b.op("Mul", [bsz, seq], base="mul_sym")
    x2 = b.view(x, [rows, n_in])
    y = b.op("MatMul", [x2, wt], base="mm")
    bsz2 = b.dim(x, 0)
    seq2 = b.dim(x, 1)
    y = b.view(y, [bsz2, seq2, n_out])
    return b.ident(y)


def heads(b, x, n_heads, head_dim):
    """[batch, seq, hidden] -> [batch, heads, seq, head_dim]"""
    bsz = b.dim(x, 0)
    seq = b.dim(x, 1)
    y = b.view(x, [bsz, seq, n_heads, head_dim])
    y = b.op("Transpose", [y], base="transpose", perm=[0, 2, 1, 3])
    return b.ident(y)


def rotary(b, x, cos, sin, positions, head_dim):
    c = b.op("Gather", [cos, positions], base="index", axis=0)      # [1, seq, hd]
    s = b.op("Gather", [sin, positions], base="index", axis=0)
    c = b.ident(b.op("Unsqueeze", [c, b.const_i64([1])], base="unsqueeze"))  # [1, 1, seq, hd]
    s = b.ident(b.op("Unsqueeze", [s, b.const_i64([1])], base="unsqueeze"))
    half = head_dim // 2
    x1 = b.op("Slice", [x, b.const_i64([0]), b.const_i64([half]), b.const_i64([3]), b.const_i64([1])], base="slice")
    x2 = b.op("Slice", [x, b.const_i64([half]), b.const_i64([9223372036854775807]), b.const_i64([3]),
                        b.const_i64([1])], base="slice")
    n = b.op("Neg", [x2], base="neg")
    rot = b.op("Concat", [n, x1], base="cat", axis=-1)
    a = b.op("Mul", [x, c], base="mul")
    r = b.op("Mul", [rot, s], base="mul")
    return b.op("Add", [a, r], base="add")


def layer(b, x, cos, sin, positions, mask, cfg):
    hidden, n_heads, inter = cfg.hidden, cfg.heads, cfg.intermediate
    head_dim = hidden // n_heads
    residual = x
    h = rms_norm(b, x, hidden)
    h = b.ident(h)
    q = heads(b, linear(b, h, hidden, hidden), n_heads, head_dim)
    k = heads(b, linear(b, h, hidden, hidden), n_heads, head_dim)
    v = heads(b, linear(b, h, hidden, hidden), n_heads, head_dim)
    q = b.ident(rotary(b, q, cos, sin, positions, head_dim))
    k = b.ident(rotary(b, k, cos, sin, positions, head_dim))
    kt = b.op("Transpose", [k], base="transpose", perm=[0, 1, 3, 2])
    scores = b.op("MatMul", [q, kt], base="matmul")
    scores = b.op("Div", [scores, b.const_f32(float(np.sqrt(head_dim)))], base="div")
    # causal mask [seq, seq] sliced to the query and key lengths
    qlen = b.dim(q, 2)
    klen = b.dim(k, 2)
    m = b.op("Slice", [mask, b.const_i64([0, 0]),
                       b.op("Concat", [b.unsq(qlen), b.unsq(klen)], base="cat", axis=0),
                       b.const_i64([0, 1]), b.const_i64([1, 1])], base="slice")
    # expanded to [batch, 1, qlen, klen], as the exporter does for the 4-D mask
    bsz = b.dim(q, 0)
    full = b.op("Concat", [b.unsq(bsz), b.const_i64([1]), b.unsq(qlen), b.unsq(klen)], base="cat", axis=0)
    m = b.op("Expand", [m, full], base="expand")
    scores = b.op("Add", [scores, m], base="add")
    scores = b.op("Cast", [scores], base="to_copy", to=TensorProto.FLOAT)
    probs = b.op("Softmax", [scores], base="softmax", axis=-1)
    probs = b.op("Cast", [probs], base="to_copy", to=TensorProto.FLOAT)
    probs = b.ident(probs)
    o = b.op("MatMul", [probs, v], base="matmul")
    o = b.op("Transpose", [o], base="transpose", perm=[0, 2, 1, 3])
    bsz = b.dim(o, 0)
    seq = b.dim(o, 1)
    o = b.view(o, [bsz, seq, hidden])
    o = linear(b, o, hidden, hidden)
    x = b.op("Add", [residual, o], base="add")
    x = b.ident(x)
    residual = x
    h = b.ident(rms_norm(b, x, hidden))
    gate = linear(b, h, hidden, inter)
    sg = b.op("Sigmoid", [gate], base="sigmoid")
    act = b.op("Mul", [gate, sg], base="silu")
    up = linear(b, h, hidden, inter)
    act = b.op("Cast", [act], base="to_copy", to=TensorProto.FLOAT16)
    act = b.op("Cast", [act], base="to_copy", to=TensorProto.FLOAT)
    mlp = b.op("Mul", [act, up], base="mul")
    down = linear(b, mlp, inter, hidden)
    x = b.op("Add", [residual, down], base="add")
    x = b.op("Cast", [x], base="to_copy", to=TensorProto.FLOAT)
    return b.ident(x)


def build(cfg):
    rng = np.random.default_rng(cfg.seed)
    b = Builder(rng, cfg.weights_as_inputs)
    head_dim = cfg.hidden // cfg.heads
    ids = "input_ids"
    b.inputs.append(helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "seq"]))
    emb = b.weight("embed_tokens_weight", [cfg.vocab, cfg.hidden], scale=1.0)
    x = b.op("Gather", [emb, ids], base="embedding", axis=0)
    # positions [1, seq]
    seq = b.dim(ids, 1)
    pos = b.op("Range", [b.const_i64([0], scalar=True), seq, b.const_i64([1], scalar=True)], base="arange")
    positions = b.op("Unsqueeze", [pos, b.const_i64([0])], base="unsqueeze")
    # rotary tables [seq, head_dim]
    inv_freq = 1.0 / (10000 ** (np.arange(0, head_dim, 2, dtype=np.float32) / head_dim))
    inv = b.name("inv_freq")
    b.inits.append(numpy_helper.from_array(inv_freq.reshape(1, -1).astype(np.float32), inv))
    pf = b.op("Cast", [pos], base="to_copy", to=TensorProto.FLOAT)
    pf = b.op("Unsqueeze", [pf, b.const_i64([1])], base="unsqueeze")
    freqs = b.op("MatMul", [pf, inv], base="matmul")
    embp = b.op("Concat", [freqs, freqs], base="cat", axis=-1)
    cos = b.op("Cos", [embp], base="cos")
    sin = b.op("Sin", [embp], base="sin")
    # causal mask [seq, seq]: 0 on and below the diagonal, -inf above
    seq2 = b.dim(ids, 1)
    sq = b.op("Concat", [b.unsq(seq2), b.unsq(seq2)], base="cat", axis=0)
    ones = b.op("ConstantOfShape", [sq], base="full",
                value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]))
    tri = b.op("Trilu", [ones], base="tril", upper=0)
    keep = b.op("Equal", [tri, b.const_f32(1.0)], base="eq")
    mask = b.op("Where", [keep, b.const_f32(0.0), b.const_f32(float("-inf"))], base="where")
    for _ in range(cfg.layers):
        x = layer(b, x, cos, sin, positions, mask, cfg)
    x = rms_norm(b, x, cfg.hidden)
    logits = linear(b, x, cfg.hidden, cfg.vocab)
    out = helper.make_tensor_value_info(logits, TensorProto.FLOAT, ["batch", "seq", cfg.vocab])
    graph = helper.make_graph(b.nodes, f"decoder_{cfg.layers}", b.inputs, [out], initializer=b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="onnxopt bench/make_decoder.py")
    model.ir_version = 8
    return model


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, required=True)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--intermediate", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=256)
    ap.add_argument("--weights-as-inputs", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("out")
    cfg = ap.parse_args(argv[1:])
    if cfg.hidden % cfg.heads or (cfg.hidden // cfg.heads) % 2:
        ap.error("hidden must be a multiple of 2*heads")
    model = build(cfg)
    onnx.save(model, cfg.out)
    print(len(model.graph.node))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
