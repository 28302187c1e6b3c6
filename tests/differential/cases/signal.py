"""Differential cases of the signal kernels (onnx_extensions/kernels/signal_kernels.cc):
DFT (17, 20), STFT, HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix.

onnxopt transforms in double by FFT (Bluestein for lengths that are not powers of two);
onnxruntime in the input's type, so float32 cases compare within a tolerance that scales
with the output's magnitude."""
import numpy as np

from differential import Case

CASES = []


def add(**kwargs):
    CASES.append(Case(**kwargs))


def signal(seed, shape, dtype=np.float32):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype)


def as_complex_last(z):
    """[..., 2] real/imaginary layout of a complex array."""
    return np.stack([z.real, z.imag], axis=-1)


FLOAT_SUM = ("onnxruntime sums in float32 (error about 1e-7 * sqrt(n) of the magnitude); onnxopt in double, "
             "rounded once")


def spectrum_atol(y):
    return float(1e-6 * max(1.0, np.abs(y).max()) * 4)


# --- Window functions ----------------------------------------------------------------------
def window(op, size, periodic):
    """The specification's cosine sums."""
    a0, a1, a2 = {"HannWindow": (0.5, 0.5, 0.0), "HammingWindow": (25 / 46, 21 / 46, 0.0),
                  "BlackmanWindow": (0.42, 0.5, 0.08)}[op]
    x = 2 * np.pi * np.arange(size) / (size if periodic else size - 1)
    return a0 - a1 * np.cos(x) + a2 * np.cos(2 * x)


WINDOWS = {"HannWindow": "hannwindow", "HammingWindow": "hammingwindow", "BlackmanWindow": "blackmanwindow"}
for op, prefix in WINDOWS.items():
    for size in [1, 2, 5, 10, 64]:
        for periodic in [1, 0]:
            add(op=op, opset=17, name=f"{prefix}_size{size}_periodic{periodic}", attrs={"periodic": periodic},
                inputs=[("size", np.int64(size))])
    for periodic in [1, 0]:
        add(op=op, opset=17, name=f"{prefix}_size0_periodic{periodic}", attrs={"periodic": periodic},
            inputs=[("size", np.int64(0))], expect="spec", expected=[np.zeros([0], np.float32)],
            reason="onnxruntime's shape inference refuses a constant size 0 (its kernel returns the empty window "
                   "for a computed 0)")
    add(op=op, opset=17, name=f"{prefix}_int32_size", inputs=[("size", np.int32(7))])
    add(op=op, opset=17, name=f"{prefix}_size_as_vector", inputs=[("size", np.array([6], np.int64))], expect="spec",
        expected=[window(op, 6, True).astype(np.float32)], atol=1e-6, rtol=1e-5,
        reason="onnxruntime's shape inference refuses a constant one-element size (its kernel accepts a computed "
               "one, as onnxopt does)")
    for dtype, code in [("float16", 10), ("int32", 6), ("int64", 7), ("uint8", 2), ("int8", 3)]:
        add(op=op, opset=17, name=f"{prefix}_output_{dtype}", attrs={"output_datatype": code},
            inputs=[("size", np.int64(9))])
    add(op=op, opset=17, name=f"{prefix}_output_double", attrs={"output_datatype": 11}, inputs=[("size", np.int64(9))],
        atol=1e-7, reason="onnxruntime computes the window in float32 and widens it; onnxopt in double")
    add(op=op, opset=17, name=f"{prefix}_negative_size", inputs=[("size", np.int64(-1))], expect="error")
    add(op=op, opset=17, name=f"{prefix}_output_bool", attrs={"output_datatype": 9}, inputs=[("size", np.int64(4))],
        expect="onnxopt-error", reason="output_datatype must be a numeric type (T2 excludes bool); onnxruntime "
                                       "writes value != 0")
    add(op=op, opset=17, name=f"{prefix}_float_size", inputs=[("size", np.float32(4))], expect="error")

# --- DFT ------------------------------------------------------------------------------------
for n in [1, 2, 8, 5, 12, 1024]:
    x = signal(n, [2, n, 1])
    y = as_complex_last(np.fft.fft(x[..., 0], axis=1))
    add(op="DFT", opset=17, name=f"dft_real_length{n}", attrs={"axis": 1}, inputs=[("x", x)],
        atol=spectrum_atol(y), rtol=1e-5, reason=FLOAT_SUM)
# Long transforms whose length is not a power of two: onnxruntime's float32 O(n^2) DFT
# drifts (3e-4 of the magnitude at n = 1000); onnxopt's Bluestein FFT in double matches
# numpy's double FFT to the float32 rounding of the output.
for n in [100, 1000, 4095]:
    x = signal(n, [2, n, 1])
    y = as_complex_last(np.fft.fft(x[..., 0].astype(np.float64), axis=1))
    add(op="DFT", opset=17, name=f"dft_real_length{n}", attrs={"axis": 1}, inputs=[("x", x)], expect="spec",
        expected=[y.astype(np.float32)], atol=float(1e-6 * np.abs(y).max()), rtol=1e-6,
        reason="onnxruntime's float32 DFT for lengths that are not powers of two errs by up to 3e-4 of the "
               "magnitude; expected: numpy's double FFT (tolerance: float32 rounding of the largest value)")
for n in [7, 16]:
    x = signal(20 + n, [1, n, 2])
    z = x[..., 0] + 1j * x[..., 1]
    add(op="DFT", opset=17, name=f"dft_complex_length{n}", attrs={"axis": 1}, inputs=[("x", x)],
        atol=spectrum_atol(np.fft.fft(z)), rtol=1e-5, reason=FLOAT_SUM)
    add(op="DFT", opset=17, name=f"dft_inverse_length{n}", attrs={"axis": 1, "inverse": 1}, inputs=[("x", x)],
        atol=1e-6, rtol=1e-5, reason=FLOAT_SUM)
    add(op="DFT", opset=17, name=f"dft_onesided_length{n}", attrs={"axis": 1, "onesided": 1},
        inputs=[("x", signal(30 + n, [3, n, 1]))], atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
X8 = signal(40, [2, 8, 1])
for length in [1, 3, 8, 13, 16]:
    add(op="DFT", opset=17, name=f"dft_length_input{length}", attrs={"axis": 1},
        inputs=[("x", X8), ("dft_length", np.int64(length))], atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
add(op="DFT", opset=17, name="dft_length_input_int32", attrs={"axis": 1},
    inputs=[("x", X8), ("dft_length", np.int32(6))], atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
add(op="DFT", opset=17, name="dft_onesided_padded", attrs={"axis": 1, "onesided": 1},
    inputs=[("x", X8), ("dft_length", np.int64(11))], atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
X3 = signal(41, [2, 3, 4, 1])
for axis in [0, 1, 2, -2, -3, -4]:
    add(op="DFT", opset=17, name=f"dft_axis{axis}".replace("-", "m"), attrs={"axis": axis}, inputs=[("x", X3)],
        atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
    add(op="DFT", opset=20, name=f"dft_opset20_axis{axis}".replace("-", "m"),
        inputs=[("x", X3), ("dft_length", None), ("axis", np.int64(axis))], atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
add(op="DFT", opset=20, name="dft_opset20_default_axis", inputs=[("x", X3)], atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
add(op="DFT", opset=20, name="dft_opset20_inverse_onesided0", attrs={"inverse": 1},
    inputs=[("x", signal(42, [3, 6, 2])), ("dft_length", np.int64(4)), ("axis", np.int64(1))],
    atol=1e-6, rtol=1e-5, reason=FLOAT_SUM)
add(op="DFT", opset=17, name="dft_double", attrs={"axis": 1}, inputs=[("x", signal(43, [2, 12, 2], np.float64))],
    rtol=1e-7, atol=1e-12, reason="onnxruntime sums in double in another order")
add(op="DFT", opset=17, name="dft_float16", attrs={"axis": 1}, inputs=[("x", signal(44, [2, 8, 1], np.float16))],
    atol=4e-3, rtol=1e-3, reason="onnxruntime sums in float16 steps; onnxopt in double, rounded once")
add(op="DFT", opset=17, name="dft_empty_batch", attrs={"axis": 1}, inputs=[("x", np.zeros([0, 4, 1], np.float32))])
add(op="DFT", opset=17, name="dft_length_zero", attrs={"axis": 1},
    inputs=[("x", X8), ("dft_length", np.int64(0))], expect="error")
add(op="DFT", opset=17, name="dft_length_negative", attrs={"axis": 1},
    inputs=[("x", X8), ("dft_length", np.int64(-3))], expect="error")
add(op="DFT", opset=17, name="dft_empty_axis", attrs={"axis": 1}, inputs=[("x", np.zeros([1, 0, 1], np.float32))],
    expect="error")
add(op="DFT", opset=17, name="dft_last_dim_three", attrs={"axis": 1}, inputs=[("x", np.zeros([1, 4, 3], np.float32))],
    expect="error")
add(op="DFT", opset=17, name="dft_axis_last", attrs={"axis": -1}, inputs=[("x", X8)], expect="error")
add(op="DFT", opset=17, name="dft_axis_out_of_range", attrs={"axis": 2}, inputs=[("x", X8)], expect="error")
add(op="DFT", opset=20, name="dft_opset20_axis_int32",
    inputs=[("x", X8), ("dft_length", None), ("axis", np.int32(1))], expect="error")
add(op="DFT", opset=17, name="dft_onesided_complex_input", attrs={"axis": 1, "onesided": 1},
    inputs=[("x", signal(45, [1, 8, 2]))], expect="onnxopt-error",
    reason="onesided=1 with inverse=0 takes a real input only (the spec); onnxruntime transforms the complex "
           "input and keeps the first half")
# A rank-2 input [n, 1] transformed along axis 0 keeps the shape [n, 2].
X2 = signal(46, [6, 1])
add(op="DFT", opset=20, name="dft_opset20_rank2", inputs=[("x", X2), ("dft_length", None), ("axis", np.int64(0))],
    expect="spec", expected=[as_complex_last(np.fft.fft(X2[:, 0])).astype(np.float32)], atol=1e-6, rtol=1e-5,
    reason="onnxruntime returns shape [6, 6, 2] for a rank-2 input")
# IRFFT (onesided=1, inverse=1): onnxruntime's shape inference refuses the combination.
for n_bins, length in [(5, None), (5, 7), (3, 8), (6, 10)]:
    spec = signal(47 + n_bins, [2, n_bins, 2])
    z = spec[..., 0] + 1j * spec[..., 1]
    n = length if length is not None else 2 * (n_bins - 1)
    expected = np.fft.irfft(z, n=n, axis=1)[..., None].astype(np.float32)
    inputs = [("x", spec)] + ([("dft_length", np.int64(length))] if length is not None else [])
    add(op="DFT", opset=17, name=f"dft_irfft_bins{n_bins}_length{length or 'default'}",
        attrs={"axis": 1, "onesided": 1, "inverse": 1}, inputs=inputs, expect="spec", expected=[expected],
        atol=1e-6, rtol=1e-5,
        reason="onnxruntime refuses onesided=1 with inverse=1 at load (its shape inference); expected: numpy's irfft")
add(op="DFT", opset=17, name="dft_irfft_real_input", attrs={"axis": 1, "onesided": 1, "inverse": 1},
    inputs=[("x", X8)], expect="error")

# --- STFT -----------------------------------------------------------------------------------
SIG = signal(60, [2, 64, 1])
HANN16 = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)).astype(np.float32)
add(op="STFT", opset=17, name="stft_frame_length", inputs=[("s", SIG), ("step", np.int64(8)), ("w", None),
                                                           ("n", np.int64(16))], atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
add(op="STFT", opset=17, name="stft_window", inputs=[("s", SIG), ("step", np.int64(8)), ("w", HANN16)],
    atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
add(op="STFT", opset=17, name="stft_window_and_length",
    inputs=[("s", SIG), ("step", np.int64(5)), ("w", HANN16), ("n", np.int64(16))], atol=1e-5, rtol=1e-5,
    reason=FLOAT_SUM)
add(op="STFT", opset=17, name="stft_two_sided", attrs={"onesided": 0},
    inputs=[("s", SIG), ("step", np.int64(8)), ("w", HANN16)], atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
COMPLEX_SIGNAL = signal(61, [1, 20, 2])


def stft_reference(x, step, n):
    z = x[0, :, 0] + 1j * x[0, :, 1]
    frames = [np.fft.fft(z[f * step:f * step + n].astype(np.complex128)) for f in range((len(z) - n) // step + 1)]
    return as_complex_last(np.stack(frames))[None].astype(np.float32)


add(op="STFT", opset=17, name="stft_complex_two_sided", attrs={"onesided": 0},
    inputs=[("s", COMPLEX_SIGNAL), ("step", np.int64(3)), ("w", None), ("n", np.int64(7))], expect="spec",
    expected=[stft_reference(COMPLEX_SIGNAL, 3, 7)], atol=1e-6, rtol=1e-5,
    reason="onnxruntime-node 1.23 returns garbage (values near 1e22) for a complex signal; expected: numpy's FFT of "
           "each frame")
add(op="STFT", opset=17, name="stft_odd_length",
    inputs=[("s", SIG), ("step", np.int64(3)), ("w", None), ("n", np.int64(7))], atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
add(op="STFT", opset=17, name="stft_int32", inputs=[("s", SIG), ("step", np.int32(4)), ("w", None), ("n", np.int32(5))],
    atol=1e-5, rtol=1e-5, reason=FLOAT_SUM)
add(op="STFT", opset=17, name="stft_whole_signal",
    inputs=[("s", SIG), ("step", np.int64(1)), ("w", None), ("n", np.int64(64))], atol=1e-5, rtol=1e-5,
    reason=FLOAT_SUM)
add(op="STFT", opset=17, name="stft_rank2_signal",
    inputs=[("s", SIG[..., 0]), ("step", np.int64(8)), ("w", None), ("n", np.int64(16))], atol=1e-5, rtol=1e-5,
    reason=FLOAT_SUM)
add(op="STFT", opset=17, name="stft_double",
    inputs=[("s", SIG.astype(np.float64)), ("step", np.int64(8)), ("w", HANN16.astype(np.float64))])
add(op="STFT", opset=17, name="stft_float16",
    inputs=[("s", SIG.astype(np.float16)), ("step", np.int64(8)), ("w", HANN16.astype(np.float16))],
    atol=4e-3, rtol=1e-3, reason="onnxruntime sums in float16 steps; onnxopt in double, rounded once")
add(op="STFT", opset=17, name="stft_empty_batch",
    inputs=[("s", np.zeros([0, 16, 1], np.float32)), ("step", np.int64(4)), ("w", None), ("n", np.int64(8))])
add(op="STFT", opset=17, name="stft_step_zero",
    inputs=[("s", SIG), ("step", np.int64(0)), ("w", None), ("n", np.int64(8))], expect="error")
add(op="STFT", opset=17, name="stft_frame_longer_than_signal",
    inputs=[("s", SIG), ("step", np.int64(1)), ("w", None), ("n", np.int64(65))], expect="error")
add(op="STFT", opset=17, name="stft_window_length_mismatch",
    inputs=[("s", SIG), ("step", np.int64(1)), ("w", HANN16), ("n", np.int64(8))], expect="error")
add(op="STFT", opset=17, name="stft_no_frame_length", inputs=[("s", SIG), ("step", np.int64(1))], expect="error")
add(op="STFT", opset=17, name="stft_frame_length_zero",
    inputs=[("s", SIG), ("step", np.int64(1)), ("w", None), ("n", np.int64(0))], expect="error")
add(op="STFT", opset=17, name="stft_window_other_type",
    inputs=[("s", SIG), ("step", np.int64(1)), ("w", HANN16.astype(np.float64))], expect="error")
add(op="STFT", opset=17, name="stft_complex_onesided",
    inputs=[("s", signal(62, [1, 16, 2])), ("step", np.int64(4)), ("w", None), ("n", np.int64(8))],
    expect="onnxopt-error", reason="a complex signal has no one-sided spectrum (the spec: 'onesided output is not "
                                   "possible'); onnxruntime returns half of the complex spectrum")
add(op="STFT", opset=17, name="stft_window_rank2",
    inputs=[("s", SIG), ("step", np.int64(4)), ("w", HANN16.reshape(4, 4))], expect="error")


# --- MelWeightMatrix ---------------------------------------------------------------------------
def mel(bins, dft, rate, lo, hi, int_type=np.int64, float_type=np.float32):
    return [("num_mel_bins", int_type(bins)), ("dft_length", int_type(dft)), ("sample_rate", int_type(rate)),
            ("lower_edge_hertz", float_type(lo)), ("upper_edge_hertz", float_type(hi))]


def mel_reference(bins, dft, rate, lo, hi):
    """The specification's reference (computed in float64)."""
    spectrogram_bins = dft // 2 + 1
    edges = np.arange(0, bins + 2)
    low = 2595 * np.log10(1 + lo / 700)
    high = 2595 * np.log10(1 + hi / 700)
    step = (high - low) / edges.shape[0]
    edges = 700 * (np.power(10, (edges * step + low) / 2595) - 1)
    edges = (((dft + 1) * edges) // rate).astype(int)
    out = np.zeros((spectrogram_bins, bins))
    for i in range(bins):
        left, center, right = edges[i], edges[i + 1], edges[i + 2]
        if center == left:
            out[center, i] = 1
        else:
            for j in range(left, center + 1):
                out[j, i] = (j - left) / (center - left)
        for j in range(center, right):
            out[j, i] = (right - j) / (right - center)
    return out


for name, args in [("spec_example", (8, 16, 8192, 0, 4096)), ("small", (4, 16, 8000, 0, 4000)),
                   ("speech", (40, 512, 16000, 20, 8000)), ("wide", (3, 1000, 16000, 20, 8000)),
                   ("equal_edges", (4, 16, 8000, 1000, 1000)), ("decreasing_edges", (4, 16, 8000, 3000, 1000)),
                   ("no_bands", (0, 16, 8000, 0, 4000)), ("dft_length_zero", (4, 0, 8000, 0, 4000)),
                   ("above_nyquist_same_bin", (4, 16, 8000, 0, 4100))]:
    add(op="MelWeightMatrix", opset=17, name=f"melweightmatrix_{name}", inputs=mel(*args))
add(op="MelWeightMatrix", opset=17, name="melweightmatrix_int32", inputs=mel(8, 64, 8000, 100, 3000, np.int32))
add(op="MelWeightMatrix", opset=17, name="melweightmatrix_float16_edges",
    inputs=mel(8, 64, 8000, 100, 3000, float_type=np.float16))
for dtype, code in [("int64", 7), ("double", 11), ("uint8", 2)]:
    add(op="MelWeightMatrix", opset=17, name=f"melweightmatrix_output_{dtype}", attrs={"output_datatype": code},
        inputs=mel(6, 32, 8000, 0, 4000))
add(op="MelWeightMatrix", opset=17, name="melweightmatrix_output_float16", attrs={"output_datatype": 10},
    inputs=mel(6, 32, 8000, 0, 4000), expect="spec", expected=[mel_reference(6, 32, 8000, 0.0, 4000.0).astype(np.float16)],
    reason="onnxruntime has no MelWeightMatrix kernel with a float16 output")
add(op="MelWeightMatrix", opset=17, name="melweightmatrix_double_edges",
    inputs=mel(8, 64, 8000, 100, 3000, float_type=np.float64), expect="spec",
    expected=[mel_reference(8, 64, 8000, 100.0, 3000.0).astype(np.float32)],
    reason="onnxruntime has no MelWeightMatrix kernel for double edges")
add(op="MelWeightMatrix", opset=17, name="melweightmatrix_upper_above_spectrogram", inputs=mel(4, 16, 8000, 0, 8000),
    expect="error")
add(op="MelWeightMatrix", opset=17, name="melweightmatrix_negative_lower", inputs=mel(4, 16, 8000, -100, 4000),
    expect="error")
add(op="MelWeightMatrix", opset=17, name="melweightmatrix_rate_zero", inputs=mel(4, 16, 0, 0, 4000), expect="error")
add(op="MelWeightMatrix", opset=17, name="melweightmatrix_negative_bins", inputs=mel(-1, 16, 8000, 0, 4000),
    expect="error")
add(op="MelWeightMatrix", opset=17, name="melweightmatrix_mixed_int_types",
    inputs=[("num_mel_bins", np.int32(4)), ("dft_length", np.int64(16)), ("sample_rate", np.int32(8000)),
            ("lower_edge_hertz", np.float32(0)), ("upper_edge_hertz", np.float32(4000))], expect="error")
