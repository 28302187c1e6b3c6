"""Differential cases of the ai.onnx.preview.training optimizers
(onnx_extensions/kernels/training_kernels.cc): Adagrad, Adam, Momentum. onnxruntime-node
is an inference build without these operators: every case compares onnxopt with the
spec's pseudo code, evaluated here in float64 and rounded to the tensors' type."""
import numpy as np

from differential import Case, uniform

CASES = []
DOMAIN = "ai.onnx.preview.training"
REASON = "onnxruntime-node (an inference build) has no kernel for the training operators"


def add(**kwargs):
    kwargs.setdefault("expect", "spec")
    kwargs.setdefault("reason", REASON)
    CASES.append(Case(domain=DOMAIN, opset=1, **kwargs))


def group_inputs(names, groups):
    """[(name, value)] for R, T and the groups (a list per input kind, one value per tensor)."""
    inputs = []
    for kind, tensors in zip(names, groups):
        inputs += [(f"{kind}{i}", t) for i, t in enumerate(tensors)]
    return inputs


def adagrad(r, t, x, g, h, norm_coefficient=0.0, epsilon=0.0, decay_factor=0.0):
    r_ = float(r) / (1 + float(t) * decay_factor)
    g_reg = norm_coefficient * x.astype(np.float64) + g
    h_new = h + g_reg * g_reg
    return (x - r_ * g_reg / (np.sqrt(h_new) + epsilon)).astype(x.dtype), h_new.astype(x.dtype)


def adam(r, t, x, g, v, h, alpha=0.9, beta=0.999, epsilon=0.0, norm_coefficient=0.0, norm_coefficient_post=0.0):
    g_reg = norm_coefficient * x.astype(np.float64) + g
    v_new = alpha * v + (1 - alpha) * g_reg
    h_new = beta * h + (1 - beta) * g_reg * g_reg
    t = int(t)
    r_adj = float(r) * np.sqrt(1 - beta ** t) / (1 - alpha ** t) if t > 0 else float(r)
    x_new = (1 - norm_coefficient_post) * (x - r_adj * v_new / (np.sqrt(h_new) + epsilon))
    return x_new.astype(x.dtype), v_new.astype(x.dtype), h_new.astype(x.dtype)


def momentum(r, t, x, g, v, alpha, beta, norm_coefficient, mode):
    g_reg = norm_coefficient * x.astype(np.float64) + g
    v_new = alpha * v + (beta if int(t) > 0 else 1.0) * g_reg
    step = g_reg + alpha * v_new if mode == "nesterov" else v_new
    return (x - float(r) * step).astype(x.dtype), v_new.astype(x.dtype)


# float32 attributes: the reference uses the values the node carries.
def f(value):
    return float(np.float32(value))


# --- Adagrad ---------------------------------------------------------------------------------
for tag, t, dtype in [("first_step", 0, np.float32), ("decayed", 5, np.float32), ("double", 3, np.float64)]:
    attrs = {"norm_coefficient": 0.01, "epsilon": 1e-5, "decay_factor": 0.1}
    r, x, g, h = np.array(0.1, dtype), uniform(1, [3, 2], dtype=dtype), uniform(2, [3, 2], dtype=dtype), uniform(3, [3, 2], 0, 1, dtype)
    expected = adagrad(r, t, x, g, h, *(f(attrs[k]) for k in ("norm_coefficient", "epsilon", "decay_factor")))
    add(op="Adagrad", name=f"adagrad_{tag}", attrs=attrs, outputs=2, expected=list(expected),
        inputs=[("r", r), ("t", np.array(t, np.int64)), ("x", x), ("g", g), ("h", h)])
xs = [uniform(4, [2]), uniform(5, [3, 1])]
gs = [uniform(6, [2]), uniform(7, [3, 1])]
hs = [uniform(8, [2], 0, 1), uniform(9, [3, 1], 0, 1)]
pairs = [adagrad(np.float32(0.5), 1, x, g, h) for x, g, h in zip(xs, gs, hs)]
add(op="Adagrad", name="adagrad_two_tensors_default_attributes", outputs=4,
    expected=[pairs[0][0], pairs[1][0], pairs[0][1], pairs[1][1]],
    inputs=[("r", np.float32(0.5)), ("t", np.int64(1))] + group_inputs(["x", "g", "h"], [xs, gs, hs]))
# Refused by both (onnxruntime knows no training operator): G and H must have X's shape.
add(op="Adagrad", name="adagrad_group_shapes_differ", expect="error", outputs=2,
    inputs=[("r", np.float32(0.5)), ("t", np.int64(1)), ("x", uniform(10, [2])), ("g", uniform(11, [3])),
            ("h", uniform(12, [2]))])

# --- Adam ----------------------------------------------------------------------------------------
for tag, t, attrs in [("first_step", 0, {"alpha": 0.95, "beta": 0.1, "epsilon": 1e-7, "norm_coefficient": 0.001}),
                      ("bias_corrected", 4, {"alpha": 0.9, "beta": 0.999, "epsilon": 1e-6,
                                             "norm_coefficient_post": 0.01}),
                      ("defaults", 2, {})]:
    x, g, v, h = uniform(13, [4]), uniform(14, [4]), uniform(15, [4]), uniform(16, [4], 0, 1)
    expected = adam(np.float32(0.1), t, x, g, v, h, **{k: f(val) for k, val in attrs.items()})
    add(op="Adam", name=f"adam_{tag}", attrs=attrs, outputs=3, expected=list(expected),
        inputs=[("r", np.float32(0.1)), ("t", np.int64(t)), ("x", x), ("g", g), ("v", v), ("h", h)])
xs = [uniform(17, [2], dtype=np.float64), uniform(18, [1, 2], dtype=np.float64)]
gs = [uniform(19, [2], dtype=np.float64), uniform(20, [1, 2], dtype=np.float64)]
vs = [uniform(21, [2], dtype=np.float64), uniform(22, [1, 2], dtype=np.float64)]
hs = [uniform(23, [2], 0, 1, np.float64), uniform(24, [1, 2], 0, 1, np.float64)]
triples = [adam(np.float64(0.05), 7, *args, alpha=f(0.8), beta=f(0.9), epsilon=f(0.01)) for args in zip(xs, gs, vs, hs)]
add(op="Adam", name="adam_two_double_tensors", attrs={"alpha": 0.8, "beta": 0.9, "epsilon": 0.01}, outputs=6,
    expected=[triples[0][0], triples[1][0], triples[0][1], triples[1][1], triples[0][2], triples[1][2]],
    inputs=[("r", np.float64(0.05)), ("t", np.int64(7))] + group_inputs(["x", "g", "v", "h"], [xs, gs, vs, hs]))
add(op="Adam", name="adam_t_not_int64", expect="error", outputs=3,
    inputs=[("r", np.float32(0.1)), ("t", np.float32(1)), ("x", uniform(25, [2])), ("g", uniform(26, [2])),
            ("v", uniform(27, [2])), ("h", uniform(28, [2], 0, 1))])

# --- Momentum -----------------------------------------------------------------------------------
for mode in ("standard", "nesterov"):
    for t in (0, 3):
        attrs = {"alpha": 0.95, "beta": 0.1, "mode": mode, "norm_coefficient": 0.001}
        x, g, v = uniform(30, [3]), uniform(31, [3]), uniform(32, [3])
        expected = momentum(np.float32(0.1), t, x, g, v, f(0.95), f(0.1), f(0.001), mode)
        add(op="Momentum", name=f"momentum_{mode}_t{t}", attrs=attrs, outputs=2, expected=list(expected),
            inputs=[("r", np.float32(0.1)), ("t", np.int64(t)), ("x", x), ("g", g), ("v", v)])
xs, gs, vs = [uniform(33, [2]), uniform(34, [2, 2])], [uniform(35, [2]), uniform(36, [2, 2])], [uniform(37, [2]), uniform(38, [2, 2])]
pairs = [momentum(np.float32(0.2), 1, x, g, v, f(0.9), f(0.5), f(0.0), "standard") for x, g, v in zip(xs, gs, vs)]
add(op="Momentum", name="momentum_two_tensors", outputs=4,
    attrs={"alpha": 0.9, "beta": 0.5, "mode": "standard", "norm_coefficient": 0.0},
    expected=[pairs[0][0], pairs[1][0], pairs[0][1], pairs[1][1]],
    inputs=[("r", np.float32(0.2)), ("t", np.int64(1))] + group_inputs(["x", "g", "v"], [xs, gs, vs]))
add(op="Momentum", name="momentum_unknown_mode", expect="error", outputs=2,
    attrs={"alpha": 0.9, "beta": 0.5, "mode": "heavy_ball", "norm_coefficient": 0.0},
    inputs=[("r", np.float32(0.2)), ("t", np.int64(1)), ("x", uniform(39, [2])), ("g", uniform(40, [2])),
            ("v", uniform(41, [2]))])
