"""onnxopt.optimize gives the same model as `onnxopt optimize M -o X` on every corpus model."""

import glob
import os
import subprocess

import onnx
import pytest

import onnxopt

SOURCE_DIR = os.environ.get("ONNXOPT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS_DIR = os.environ.get("ONNXOPT_CORPUS_DIR", os.path.join(SOURCE_DIR, "..", "shared", "corpus"))
EXE = os.environ.get("ONNXOPT_EXE", os.path.join(SOURCE_DIR, "build", "onnxopt"))
MODELS = sorted(glob.glob(os.path.join(CORPUS_DIR, "*.onnx")))


def test_corpus_is_there():
    assert MODELS, f"no model in {CORPUS_DIR}"


@pytest.mark.parametrize("path", MODELS, ids=[os.path.basename(p) for p in MODELS])
def test_same_graph_as_command_line(path, tmp_path):
    out = tmp_path / "cli.onnx"
    subprocess.run([EXE, "optimize", path, "-o", str(out), "-q"], check=True)
    with open(out, "rb") as f:
        cli_bytes = f.read()
    from_path = onnxopt.optimize(path)
    from_proto = onnxopt.optimize(onnx.load(path))
    expected = onnx.ModelProto.FromString(cli_bytes)
    assert from_path == expected
    assert from_proto == expected
    # The command line writes deterministic bytes; so does to_model().
    builder = onnxopt.GraphBuilder(path)
    onnxopt.GraphGraph(builder, fold_constants_first=True).optimize()
    assert builder.to_model_bytes() == cli_bytes
