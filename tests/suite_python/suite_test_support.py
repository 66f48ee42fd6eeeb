"""What the suite_python tests share: the source folder, the harness's Python folder, and a check
that this interpreter has PyTorch (a missing torch fails the test with the way to install it: the
project's scripts install it, so a skip would hide a broken machine)."""

import os
import subprocess
import sys

SOURCE_DIR = os.environ.get("SOCRATIC_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
HARNESS_PYTHON = os.path.join(SOURCE_DIR, "kernels", "harness", "python")
HERE = os.path.join(SOURCE_DIR, "tests", "suite_python")


def require_torch():
    try:
        import torch  # noqa: F401
    except ImportError as error:
        sys.stderr.write(f"FAILED: {sys.executable} cannot import torch ({error}); "
                         "scripts/install-deps.sh --tests installs Debian's python3-torch, or point "
                         "CMake's SOCRATIC_REFERENCE_PYTHON at a python3 that has PyTorch\n")
        sys.exit(1)


def run_tool(script, *args, stdin=None, timeout=120):
    """Runs kernels/harness/python/SCRIPT with this interpreter; returns the CompletedProcess."""
    return subprocess.run([sys.executable, os.path.join(HARNESS_PYTHON, script), *args],
                          input=stdin, capture_output=True, text=True, timeout=timeout)
