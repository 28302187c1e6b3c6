"""Differential cases of the random generators (onnx_extensions/kernels/random_kernels.cc):
RandomNormal, RandomUniform, RandomNormalLike, RandomUniformLike, Bernoulli, Multinomial.
The streams are not onnxruntime's (the spec leaves them open): outputs are compared by
type and shape, and `check` tests the distribution (range, moments within about five
standard errors, degenerate parameters giving exact values). onnxruntime-node 1.23 has no
float16 RandomNormal/RandomUniform(Like) and no opset-22 versions of these operators: the
C++ tests (random_kernels_test.cc) cover those."""
import numpy as np

from differential import Case

CASES = []


def add(**kwargs):
    kwargs.setdefault("expect", "shape")
    CASES.append(Case(**kwargs))


def moments(mean, std, mean_tolerance, std_tolerance):
    def check(outputs):
        y = outputs[0].astype(np.float64)
        assert abs(y.mean() - mean) <= mean_tolerance, f"mean {y.mean()} is not {mean} +- {mean_tolerance}"
        assert abs(y.std() - std) <= std_tolerance, f"std {y.std()} is not {std} +- {std_tolerance}"
    return check


def within(lo, hi, mean=None, mean_tolerance=None):
    def check(outputs):
        y = outputs[0].astype(np.float64)
        assert y.size == 0 or (y.min() >= lo and y.max() <= hi), f"values in [{y.min()}, {y.max()}], not in [{lo}, {hi}]"
        if mean is not None:
            assert abs(y.mean() - mean) <= mean_tolerance, f"mean {y.mean()} is not {mean} +- {mean_tolerance}"
    return check


def all_equal(value):
    def check(outputs):
        assert np.all(outputs[0] == value), f"values {np.unique(outputs[0])[:5]} are not all {value}"
    return check


# --- RandomNormal / RandomNormalLike ---------------------------------------------------------------
add(op="RandomNormal", opset=1, name="randomnormal_default_float", attrs={"shape": [4000]},
    check=moments(0.0, 1.0, 0.08, 0.06))
add(op="RandomNormal", opset=1, name="randomnormal_double_mean_scale_seeded",
    attrs={"shape": [50, 80], "dtype": 11, "mean": 5.0, "scale": 0.5, "seed": 3.0}, check=moments(5.0, 0.5, 0.04, 0.03))
add(op="RandomNormal", opset=1, name="randomnormal_rank3_mean", attrs={"shape": [2, 3, 500], "mean": -1.0},
    check=moments(-1.0, 1.0, 0.13, 0.08))
add(op="RandomNormal", opset=1, name="randomnormal_zero_scale", attrs={"shape": [7], "mean": 2.5, "scale": 0.0},
    expect="spec", expected=[np.full([7], 2.5, np.float32)],
    reason="a standard deviation of 0 gives the mean everywhere; onnxruntime aborts (its normal distribution "
           "requires a positive standard deviation)")
add(op="RandomNormal", opset=1, name="randomnormal_empty", attrs={"shape": [0, 3]})
add(op="RandomNormal", opset=1, name="randomnormal_scalar", attrs={"shape": []})
add(op="RandomNormal", opset=1, name="randomnormal_negative_dim", expect="error", attrs={"shape": [2, -1]})
add(op="RandomNormalLike", opset=1, name="randomnormallike_int_input_float_dtype", attrs={"dtype": 1},
    inputs=[("x", np.zeros([40, 50], np.int32))], check=moments(0.0, 1.0, 0.1, 0.06))
add(op="RandomNormalLike", opset=1, name="randomnormallike_double_input_seeded", attrs={"seed": 1.0, "scale": 3.0},
    inputs=[("x", np.zeros([2000], np.float64))], check=moments(0.0, 3.0, 0.3, 0.2))

# --- RandomUniform / RandomUniformLike ------------------------------------------------------------
add(op="RandomUniform", opset=1, name="randomuniform_default_float", attrs={"shape": [4000]},
    check=within(0.0, 1.0, 0.5, 0.03))
add(op="RandomUniform", opset=1, name="randomuniform_double_negative_range_seeded",
    attrs={"shape": [20, 100], "dtype": 11, "low": -5.0, "high": -2.0, "seed": 11.0}, check=within(-5.0, -2.0, -3.5, 0.1))
add(op="RandomUniform", opset=1, name="randomuniform_high_4", attrs={"shape": [1000], "high": 4.0},
    check=within(0.0, 4.0, 2.0, 0.2))
add(op="RandomUniform", opset=1, name="randomuniform_low_equals_high",
    attrs={"shape": [5], "low": 1.5, "high": 1.5}, check=all_equal(1.5))
add(op="RandomUniform", opset=1, name="randomuniform_empty", attrs={"shape": [3, 0]})
add(op="RandomUniform", opset=1, name="randomuniform_integer_dtype", expect="error",
    attrs={"shape": [2], "dtype": 6})
add(op="RandomUniformLike", opset=1, name="randomuniformlike_bool_input_double_dtype", attrs={"dtype": 11, "low": 10.0,
                                                                                              "high": 20.0},
    inputs=[("x", np.zeros([30, 30], np.bool_))], check=within(10.0, 20.0, 15.0, 0.5))
add(op="RandomUniformLike", opset=1, name="randomuniformlike_float_input", inputs=[("x", np.zeros([2, 5], np.float32))],
    check=within(0.0, 1.0))
add(op="RandomUniformLike", opset=1, name="randomuniformlike_empty_input", inputs=[("x", np.zeros([0], np.float32))])

# --- Bernoulli -------------------------------------------------------------------------------------
add(op="Bernoulli", opset=15, name="bernoulli_float_half", inputs=[("p", np.full([4000], 0.5, np.float32))],
    check=within(0.0, 1.0, 0.5, 0.04))
add(op="Bernoulli", opset=15, name="bernoulli_double_seeded", attrs={"seed": 5.0},
    inputs=[("p", np.full([50, 60], 0.2, np.float64))], check=within(0.0, 1.0, 0.2, 0.03))
# The spec's text draws 1 with probability p (as torch.bernoulli, the op's origin); its
# function body, Cast(Greater(RandomUniformLike(p), p)), draws 1 with probability 1 - p, and
# onnxruntime runs that body (its outputs fail the checks above).
BERNOULLI_REASON = ("onnxruntime runs the spec's function body Cast(Greater(RandomUniformLike(p), p)), which draws 1 "
                    "with probability 1 - p; the spec's text (followed here) says p")
add(op="Bernoulli", opset=15, name="bernoulli_certain_ones_bool", attrs={"dtype": 9}, expect="spec",
    expected=[np.ones([3, 4], np.bool_)], reason=BERNOULLI_REASON, inputs=[("p", np.ones([3, 4], np.float32))])
add(op="Bernoulli", opset=15, name="bernoulli_certain_zeros_int32", attrs={"dtype": 6}, expect="spec",
    expected=[np.zeros([6], np.int32)], reason=BERNOULLI_REASON, inputs=[("p", np.zeros([6], np.float32))])
add(op="Bernoulli", opset=15, name="bernoulli_float16_to_int64", attrs={"dtype": 7},
    inputs=[("p", np.full([2000], 0.75, np.float16))], check=within(0, 1, 0.75, 0.05))
add(op="Bernoulli", opset=15, name="bernoulli_empty", inputs=[("p", np.zeros([0, 2], np.float32))])
add(op="Bernoulli", opset=15, name="bernoulli_probability_above_one", expect="onnxopt-error",
    reason="the input values have to be in the range [0, 1] (spec); onnxruntime draws with them anyway",
    inputs=[("p", np.array([0.5, 1.5], np.float32))])

# --- Multinomial -----------------------------------------------------------------------------------


def class_frequencies(row_probabilities, tolerance):
    def check(outputs):
        y = outputs[0]
        for row, probabilities in enumerate(row_probabilities):
            counts = np.bincount(y[row], minlength=len(probabilities)) / y.shape[1]
            assert len(counts) == len(probabilities), f"row {row} draws a class out of range: {np.unique(y[row])}"
            assert np.all(np.abs(counts - probabilities) <= tolerance), f"row {row}: frequencies {counts}, not {probabilities}"
    return check


log_probabilities = np.log(np.array([[0.2, 0.3, 0.5], [0.9, 0.1, 1e-30]], np.float32))
add(op="Multinomial", opset=7, name="multinomial_frequencies_int64", attrs={"sample_size": 3000, "dtype": 7},
    inputs=[("x", log_probabilities)], check=class_frequencies([[0.2, 0.3, 0.5], [0.9, 0.1, 0.0]], 0.04))
add(op="Multinomial", opset=7, name="multinomial_default_int32_one_sample", inputs=[("x", log_probabilities)],
    check=lambda outputs: None if outputs[0].dtype == np.int32 and outputs[0].shape == (2, 1) else
    (_ for _ in ()).throw(AssertionError(f"{outputs[0].dtype}{list(outputs[0].shape)}")))
# Unnormalized: only differences of the log-probabilities matter.
add(op="Multinomial", opset=7, name="multinomial_unnormalized_seeded",
    attrs={"sample_size": 2000, "seed": 2.0}, inputs=[("x", np.array([[10.0, 10.0 + np.log(3.0)]], np.float32))],
    check=class_frequencies([[0.25, 0.75]], 0.04))
add(op="Multinomial", opset=7, name="multinomial_certain_class",
    attrs={"sample_size": 50}, inputs=[("x", np.array([[-np.inf, 0.0, -np.inf]], np.float32))], check=all_equal(1))
add(op="Multinomial", opset=7, name="multinomial_1d_input", expect="error", inputs=[("x", np.zeros([3], np.float32))])
