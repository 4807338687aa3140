"""Kernels under hostile arguments on zoo exports: the deterministic kernel-argument mutant pass
(tests/fuzz/test_kernel_arg_mutants.cpp) over the f32 and int8 MLP and the int8 DS-CNN, on the
ASan+UBSan build when it exists (./etmcu test builds it before pytest), else the plain one."""
import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARIES = [ROOT / "build" / b / "tests" / "fuzz" / "kernel_arg_mutants_tests" for b in ("host-asan", "host")]
ZOO = {"mlp": ["models/mlp.py:Model"],
       "ds_cnn_int8": ["models/ds_cnn.py:Model", "--quantize", "int8", "--calibration", "4"],
       "mlp_int8": ["models/mlp.py:Model", "--quantize", "int8", "--calibration", "4"]}


def test_zoo_kernel_argument_mutants(tmp_path):
    binary = next((b for b in BINARIES if b.exists()), None)
    if binary is None:
        pytest.skip("kernel_arg_mutants_tests not built")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    for name, args in ZOO.items():
        subprocess.run(["/usr/bin/python3", "-m", "etmcu.cli", "export", args[0], "-o", str(tmp_path / f"{name}.pte"),
                        *args[1:]], cwd=ROOT, env=env, check=True, capture_output=True)
    p = subprocess.run([str(binary), "--gtest_filter=KernelArgMutants.ZooPrograms"], capture_output=True, text=True,
                       env=dict(os.environ, ETMCU_ZOO_DIR=str(tmp_path)), timeout=900)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    m = re.search(r"kernel-argument mutants \(zoo\): (\d+) programs, \d+ methods, (\d+) kernel calls, \d+ argument "
                  r"sites, (\d+) mutants", p.stdout)
    assert m, p.stdout
    assert int(m.group(1)) == len(ZOO) and int(m.group(2)) > 15 and int(m.group(3)) > 1000, m.group(0)
    print(m.group(0))
