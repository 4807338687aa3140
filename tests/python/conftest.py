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
# Likewise the stack: the tests' firmware keeps the board's default reserve where the static bound
# fits in it (--stack-fit grow); sizing it exactly, `./etmcu run`'s default, relinks the firmware
# (a second LTO link, about a third of a firmware build's time) and is tested where it is named
# (tests/python/firmware/test_firmware.py EXACT_STACK).
os.environ.setdefault("ETMCU_FW_STACK_FIT", "grow")

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


# pytest-xdist (--dist loadfile, tools/scripts/test.sh) hands out whole test files in collection
# order as workers become free: the files that take longest go first, so that the last file to
# finish is a short one (measured in `.ci/run` on a fresh clone, 2 workers: summed test time per
# file, s, as test.sh prints it after pytest (tools/scripts/pytest_file_times.py); the rest keep
# their order after these). Only the order changes; every test still runs.
LONGEST_FIRST = [
    "firmware/test_firmware.py",              # 448
    "int8/test_random_layers_targets.py",     # 398
    "user_models/test_user_targets.py",       # 198
    "int8/test_kws_targets.py",               # 129
    "int8/test_int8_ops_cortex_m.py",         # 107
    "quantize/test_quantize_runtime.py",      # 96
    "int8/test_overlap_targets.py",           # 82
    "bundle/test_bundle.py",                  # 54
    "firmware/test_kernel_paths.py",          # 53
    "user_models/test_upsample.py",           # 36
    "int8/test_linear_targets.py",            # 36
    "int8/test_add_targets.py",               # 33
    "bench/test_layer_table.py",              # 33 (its firmware new to the build cache)
    "test_user_errors.py",                    # 29
    "quantize/test_quantize_accuracy.py",     # 29
    "bench/test_bench.py",                    # 27
    "firmware/test_build_reuse.py",           # 26 (one run on an idle machine)
    "bench/test_arm_profile.py",              # 24
]


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).resolve().parent
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}

    def key(item):
        try:
            rel = Path(str(getattr(item, "path", None) or item.fspath)).resolve().relative_to(here).as_posix()
        except ValueError:
            rel = ""
        return rank.get(rel, len(LONGEST_FIRST))

    items.sort(key=key)  # stable: each file's tests keep their order
