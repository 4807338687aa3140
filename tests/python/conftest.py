"""Make `etmcu` (python/) and `models` (repo root) importable for the exporter tests, and give tests
that read the shared .pte corpus (../shared beside the checkout) the `corpus` mark: without the
corpus they skip with one line naming it, or fail when ETMCU_REQUIRE_CORPUS is set (CI, .ci/run)."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, ROOT / "python"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

# Firmware built by the tests keeps every int8 kernel path (one build per program); the default of
# `./etmcu run`, only the paths the program takes, costs a second build and run per program, and is
# tested where it is named (--kernel-paths program: tests/python/firmware/test_kernel_paths.py, the
# KWS targets test).
os.environ.setdefault("ETMCU_FW_KERNEL_PATHS", "all")

SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "pte-corpus"


def have_corpus():
    return (CORPUS / "upstream").is_dir()


def corpus_required():
    return os.environ.get("ETMCU_REQUIRE_CORPUS", "") not in ("", "0")


def pytest_configure(config):
    config.addinivalue_line("markers", "corpus: reads the shared .pte corpus beside the checkout")


def pytest_runtest_setup(item):
    if item.get_closest_marker("corpus") is None or have_corpus():
        return
    if corpus_required():
        pytest.fail(f"ETMCU_REQUIRE_CORPUS is set and the .pte corpus is missing: {CORPUS}",
                    pytrace=False)
    pytest.skip(f"needs the .pte corpus {CORPUS}")
