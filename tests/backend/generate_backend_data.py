"""Runs onnx's `backend-test-tools generate-data` (Debian python3-onnx) with numpy >= 1.24.

numpy 1.24 removed the deprecated aliases np.float, np.int, np.bool and np.object that
onnx 1.12's test case definitions still use; they are restored before the tool's main
runs. Arguments are passed through: generate_backend_data.py generate-data -o DIR.
"""
import sys
import warnings

import numpy as np

for _name, _type in (("float", float), ("int", int), ("bool", bool), ("object", object)):
    if _name not in np.__dict__:
        setattr(np, _name, _type)
warnings.simplefilter("ignore")

from onnx.backend.test.cmd_tools import main  # noqa: E402

if __name__ == "__main__":
    sys.argv[0] = "backend-test-tools"
    main()
