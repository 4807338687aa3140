"""./etmcu bundle and the examples built from bundles (examples/): an int8 DS-CNN exported here,
bundled for the Cortex-M4 and the CV32E40P outside the repository's build tree; every bundle
source compiles with -Wall -Wextra -Werror in C++17 and its header in C99; the CMake example runs
the model twice on QEMU mps2-an386, the Makefile example on the simulated CV32E40P, and both
print the class with the host runtime's exact output bits."""
import json
import os
import pathlib
import re
import shutil
import struct
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
SIM = ROOT / "build" / "host" / "sim" / "etmcu-sim"
M4 = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]

pytestmark = pytest.mark.skipif(not CLI.exists() or shutil.which("arm-none-eabi-g++") is None,
                                reason="host tools or arm-none-eabi toolchain missing")


def example_input(n):
    """The pattern the examples' main.c writes into their input buffer."""
    i = np.arange(n, dtype=np.uint32)
    return (((i * 37) % 101).astype(np.int32) - 50).astype(np.float32) / np.float32(25)


@pytest.fixture(scope="module")
def kws(tmp_path_factory):
    d = tmp_path_factory.mktemp("bundle")
    pte = d / "ds_cnn_int8.pte"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    subprocess.run(["/usr/bin/python3", "-m", "etmcu.cli", "export", "models/ds_cnn.py:Model", "-o", str(pte),
                    "--input-shape", "1,1,49,10", "--quantize", "int8", "--calibration", "16"],
                   cwd=ROOT, env=env, check=True, capture_output=True)
    out = d / "kws_m4"
    p = subprocess.run([str(ROOT / "etmcu"), "bundle", str(pte), "--target", "cortex-m4", "-o", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rv = d / "kws_cv32e40p"
    p = subprocess.run([str(ROOT / "etmcu"), "bundle", str(pte), "--target", "cv32e40p", "-o", str(rv)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    x = example_input(490).reshape(1, 1, 49, 10)
    np.save(d / "x.npy", x)
    host = subprocess.run([str(CLI), "run", str(pte), "--input", str(d / "x.npy"), "--json"],
                          capture_output=True, text=True, check=True)
    scores = json.loads(host.stdout.strip().splitlines()[-1])["outputs"][0]["values"]
    return {"dir": d, "pte": pte, "bundle": out, "bundle_cv32e40p": rv, "scores": scores}


def mk_vars(bundle):
    mk = bundle / "probe.mk"
    mk.write_text("include etmcu_model.mk\nprobe:\n\t@echo $(ETMCU_MODEL_SRCS)\n\t@echo $(ETMCU_MODEL_CPPFLAGS)\n"
                  "\t@echo $(ETMCU_MODEL_CXXFLAGS)\n")
    lines = subprocess.run(["make", "-s", "-f", "probe.mk", "probe"], cwd=bundle, capture_output=True, text=True,
                           check=True).stdout.splitlines()
    mk.unlink()
    return [s.split() for s in lines]


def test_bundle_holds_only_the_programs_kernels(kws):
    b = kws["bundle"]
    table = (b / "etmcu_kernel_table.cpp").read_text()
    ops = re.findall(r'\{"([^"]+)", kernels::', table)
    assert ops == sorted(ops) and "cortex_m::quantized_conv2d.out" in ops and len(ops) == 8
    kernels = sorted(p.name for p in (b / "src" / "kernels").rglob("*.cpp") if p.name != "kernel_lookup.cpp")
    assert len(kernels) == 8 and "op_add.cpp" not in kernels  # one file per operator, nothing else
    header = (b / "etmcu_model.h").read_text()
    assert "#define ETMCU_MODEL_INPUT0_BYTES 1960" in header
    assert "#define ETMCU_MODEL_OUTPUT0_BYTES 48" in header
    # The int8 edges: the output is cortex_m::softmax's, scale 1/256 and zero point -128.
    assert "#define ETMCU_MODEL_OUTPUT0_SCALE 0.00390625f" in header
    assert "#define ETMCU_MODEL_OUTPUT0_ZERO_POINT -128" in header
    assert re.search(r"#define ETMCU_MODEL_INPUT0_SCALE 0\.\d+f", header)
    assert "int etmcu_model_run(void);" in header
    assert "add_library(etmcu_model STATIC" in (b / "CMakeLists.txt").read_text()


@pytest.mark.parametrize("which,cxx,arch", [
    ("bundle", "arm-none-eabi-g++", M4),
    ("bundle_cv32e40p", "riscv64-unknown-elf-g++",
     ["-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32", "--specs=picolibc.specs"])])
def test_bundle_compiles_warning_free_and_header_is_c99(kws, tmp_path, which, cxx, arch):
    b = kws[which]
    srcs, cppflags, cxxflags = mk_vars(b)
    assert len(srcs) >= 20
    for src in srcs:
        p = subprocess.run([cxx, *arch, "-O2", "-Wall", "-Wextra", "-Werror", *cppflags, *cxxflags,
                            "-c", src, "-o", str(tmp_path / "x.o")], cwd=b, capture_output=True, text=True)
        assert p.returncode == 0, (src, p.stderr)
    for cc in ("gcc", cxx.replace("g++", "gcc")):
        p = subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-x", "c", "-c",
                            "etmcu_model.h", "-o", str(tmp_path / "h.o")], cwd=b, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr


def bits(values):
    return [f"{struct.unpack('<I', struct.pack('<f', v))[0]:08x}" for v in values]


def test_cortex_m4_cmake_example_prints_the_class(kws, tmp_path):
    src = ROOT / "examples" / "cortex-m4-cmake"
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", str(src), "-B", str(build), f"-DCMAKE_TOOLCHAIN_FILE={src}/toolchain-cortex-m4.cmake",
                    f"-DETMCU_BUNDLE={kws['bundle']}"], check=True, capture_output=True)
    p = subprocess.run(["cmake", "--build", str(build), "-j", "2"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    p = subprocess.run(["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting-config",
                        "enable=on,target=native", "-kernel", str(build / "app.elf")],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr  # QEMU writes the semihosting console to stderr when stdin is no tty
    assert p.returncode == 0, out
    check_runs(out, kws["scores"])


def check_runs(out, want):
    runs = re.findall(r"^run (\d): class (\d+) scores((?: [0-9a-f]{8})+)$", out, re.M)
    assert [r[0] for r in runs] == ["1", "2"] and "example: pass" in out, out
    for _, cls, scores in runs:
        assert int(cls) == int(np.argmax(want))
        assert scores.split() == bits(want)  # the host runtime's exact output bits


@pytest.mark.skipif(shutil.which("riscv64-unknown-elf-gcc") is None or not SIM.exists(),
                    reason="riscv64-unknown-elf toolchain or simulator missing")
def test_cv32e40p_make_example_prints_the_class(kws, tmp_path):
    src = ROOT / "examples" / "cv32e40p-make"
    p = subprocess.run(["make", "-C", str(src), "-j", "2", f"BUNDLE={kws['bundle_cv32e40p']}",
                        f"BUILD={tmp_path / 'build'}"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert not (src / "build").exists()  # everything went to BUILD
    p = subprocess.run([str(SIM), "--config", "nopulp", str(tmp_path / "build" / "app.elf")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert re.search(r"^cycles=\d+ instret=\d+$", p.stdout, re.M)
    check_runs(p.stdout, kws["scores"])


def test_bundle_errors_are_clean(tmp_path):
    p = subprocess.run([str(ROOT / "etmcu"), "bundle", str(tmp_path / "nope.pte"), "--target", "cortex-m4",
                        "-o", str(tmp_path / "b")], capture_output=True, text=True)
    assert p.returncode == 1 and "no such file" in p.stderr and "Traceback" not in p.stderr
