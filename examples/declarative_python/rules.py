"""Declarative rules for `onnxopt optimize MODEL -o OUT --passes examples/declarative_python/rules.py`
(docs/declarative-rules.md walks through them)."""

from onnxopt.fusion import PassStage, PatternFusionPass, op, pattern, register_fusion_pass


@register_fusion_pass(name="AddZero", stage=PassStage.AFTER_SHAPE_INFERENCE)
class AddZero(PatternFusionPass):
    """x + 0 => x (either operand order) when the Add does not broadcast x."""

    @pattern
    def add_zero(self, inputs):
        return op.Add(inputs[0], op.Const(name="zero"))

    @pattern
    def zero_add(self, inputs):
        return op.Add(op.Const(name="zero"), inputs[0])

    def meet_requirements(self, match):
        g = match.graph
        x, y = match.captured(0), match.captured(1)  # auto captures: the input, then the output
        sx, sy = g.get_shape(x), g.get_shape(y)
        return bool((match.constant("zero") == 0).all()) and (sx.elem_type, sx.dims) == (sy.elem_type, sy.dims)

    def replacement(self, inputs):
        return inputs[0]  # a passthrough: the cleanup removes the Add


@register_fusion_pass(name="MatMulAddToGemm", stage=PassStage.AFTER_SHAPE_INFERENCE)
class MatMulAddToGemm(PatternFusionPass):
    """MatMul(a, w) + c => Gemm(a, w, c) for 2-D a and w and a bias vector."""

    @pattern
    def matmul_add(self, inputs):
        a, w, c = inputs[:3]
        return (a @ w) + c

    def meet_requirements(self, match):
        g = match.graph
        a, w, c = (g.get_shape(match.input(i)) for i in range(3))
        return a.rank == 2 and w.rank == 2 and c.rank == 1 and c.dims[0] == w.dims[1]

    def replacement(self, inputs):
        a, w, c = inputs[:3]
        return op.Gemm(a, w, c)
