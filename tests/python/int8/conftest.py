"""The `call` fixture of the int8 kernel tests (see int8_harness.py)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import int8_harness  # noqa: E402


@pytest.fixture
def call(tmp_path):
    return int8_harness.make_call(tmp_path)
