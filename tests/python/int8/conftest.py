"""The `call` fixture of the int8 kernel tests (see int8_harness.py)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import int8_harness  # noqa: E402


@pytest.fixture(params=["ref", "scalar", "rv32", "xpulp"])
def call(request, tmp_path):
    """Every int8 op test runs against each cortex_m variant (xpulp's cv.sdotsp.b is C on the
    host; the CV32E40P firmware tests run the instruction itself)."""
    return int8_harness.make_call(tmp_path, request.param)
