"""The upstream int8 KWS program as bare-metal firmware (tools/firmware/etmcu_fw.py) on the four
targets (and the CV32E40P with its PULP extensions, whose int8 kernels use cv.sdotsp.b): the logits
for yes/no/up must carry upstream + CMSIS-NN's exact float bits
(kws_reference), and every real input its label. Firmware builds are cached under build/firmware/."""
import json
import pathlib
import struct
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
UPSTREAM = ROOT.parent / "shared" / "pte-corpus" / "upstream"
KWS = UPSTREAM / "examples__arduino__examples__KeywordSpotting__model.pte"
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
SIM = ROOT / "build" / "host" / "sim" / "etmcu-sim"
FW = ROOT / "tools" / "firmware" / "etmcu_fw.py"

pytestmark = [pytest.mark.skipif(not (CLI.exists() and SIM.exists() and FW.exists()),
                                 reason="host tools or firmware tool not built"),
              pytest.mark.corpus]

TARGETS = [("cv32e40p", []), ("cv32e40p", ["--board", "cv32e40p-pulp"]), ("cortex-m55", []),
           ("cortex-m4", []),
           ("cortex-m0", ["--board", "mps2-an385"])]  # the micro:bit's 16 KiB RAM is too small


def run_fw(target, extra, word):
    p = subprocess.run(["/usr/bin/python3", str(FW), str(KWS), "--target", target, *extra,
                        "--kernel-paths", "program",  # what a user ships: only the paths KWS takes
                        "--input", str(UPSTREAM / "kws_test_inputs" / f"mfcc_{word}.f32.bin"),
                        "--json", "--quiet"], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])["outputs"][0]["values"]


@pytest.mark.parametrize("target,extra", TARGETS, ids=[" ".join([t] + e) for t, e in TARGETS])
def test_kws_bit_exact_on_target(target, extra):
    ref = json.loads((UPSTREAM / "kws_reference" / "kws_reference.json").read_text())
    for case in ref["cases"]:
        word = case["input"][len("mfcc_"):-len(".f32.bin")]
        values = run_fw(target, extra, word)
        bits = ["0x%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in values]
        assert bits == case["outputs_f32_hex"], (target, word)


def run_json(target, extra):
    p = subprocess.run(["/usr/bin/python3", str(FW), str(KWS), "--target", target, *extra,
                        "--input", str(UPSTREAM / "kws_test_inputs" / "mfcc_yes.f32.bin"),
                        "--json", "--quiet"], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("board", ["cv32e40p", "cv32e40p-pulp"])
def test_plane_from_the_temp_pool_the_device_declared(board):
    """Upstream's KWS plans CMSIS-NN's scratch sizes (none for its depthwise layers), so our
    depthwise plane comes from the temp pool (docs/kernels.md "Buffers"). Its size is what the
    device's own method load declared (the tool asked it once), the kernels take exactly that,
    and a firmware that checks the program itself (--device-verification: the declarations are
    asked again at load) accepts that pool."""
    r = run_json("cv32e40p", ["--board", board])
    mem = r["memory"]
    from etmcu.quantize import DW_PLANE_BYTES  # util/depthwise_planes.h kDwPlaneBytes
    assert 0 < mem["temp_bytes"] <= DW_PLANE_BYTES, mem  # one plane
    assert mem["temp_used"] == mem["temp_bytes"], mem
    assert r["ram"]["temp"] == mem["temp_bytes"]
    checked = run_json("cv32e40p", ["--board", board, "--device-verification"])
    assert checked["memory"]["temp_bytes"] == mem["temp_bytes"]
    assert checked["outputs"] == r["outputs"]
    assert checked["cycles"]["method_load"] > r["cycles"]["method_load"]


def firmware_symbols(elf):
    p = subprocess.run(["riscv64-unknown-elf-nm", "-C", elf], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_kernel_argument_checks_only_where_the_device_checks_the_program():
    """The firmware of an embedded program (checked by the host runtime when it was built) links
    kernels without their argument checks (kernels/api/tensor_check.h): the shared checkers are not
    in it and its code is smaller (the portable kernels keep theirs); with --device-verification the device checks the program, and
    the kernels their arguments, themselves. Both give the same bits."""
    trusted = run_json("cv32e40p", [])
    checked = run_json("cv32e40p", ["--device-verification"])
    assert trusted["outputs"] == checked["outputs"]
    checkers = ("int8::args_are(", "int8::valid_per_channel(", "int8::offsets_in_range(",
                "int8::conv_out_size(")
    syms = firmware_symbols(trusted["firmware"])
    assert not any(c in syms for c in checkers), [c for c in checkers if c in syms]
    syms = firmware_symbols(checked["firmware"])
    assert all(c in syms for c in checkers), [c for c in checkers if c not in syms]
    assert trusted["flash"]["shipped_text"] + 1500 < checked["flash"]["shipped_text"]


def test_kws_ten_labels_on_cv32e40p():
    """All ten real inputs on the soft-float target (quantize/dequantize through picolibc)."""
    labels = json.loads((UPSTREAM / "kws_test_inputs" / "labels.json").read_text())
    classes = labels["_labels_in_output_index_order"]
    for name, info in labels.items():
        if not name.startswith("mfcc_"):
            continue
        values = run_fw("cv32e40p", [], name[len("mfcc_"):-len(".f32.bin")])
        assert classes[max(range(len(values)), key=values.__getitem__)] == info["label"], name


def test_xpulp_board_uses_the_extension():
    """The cv32e40p-pulp firmware is faster, and traps on a core without the PULP extensions (so
    the plain cv32e40p board, which the simulator runs as such, cannot be using them)."""
    def fw_json(extra):
        p = subprocess.run(["/usr/bin/python3", str(FW), str(KWS), "--target", "cv32e40p", *extra,
                            "--json", "--quiet"], capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout.strip().splitlines()[-1])
    plain, pulp = fw_json([]), fw_json(["--board", "cv32e40p-pulp"])
    assert plain["outputs"] == pulp["outputs"]
    assert pulp["cycles"]["execute"] < 0.8 * plain["cycles"]["execute"]
    p = subprocess.run([str(SIM), "--config", "nopulp", pulp["firmware"]], capture_output=True, text=True)
    assert p.returncode == 3 and "X 00000002" in p.stdout, (p.returncode, p.stdout[-300:])


def test_int8_kernel_choice_on_m55():
    """--int8-kernels ref builds the reference kernels for the board (its own build directory); they
    and the default (the mve micro-kernels on the M55) give the same bits, and the JSON names the variant."""
    def fw_json(extra):
        p = subprocess.run(["/usr/bin/python3", str(FW), str(KWS), "--target", "cortex-m55", *extra,
                            "--input", str(UPSTREAM / "kws_test_inputs" / "mfcc_no.f32.bin"),
                            "--json", "--quiet"], capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout.strip().splitlines()[-1])
    ref, mve = fw_json(["--int8-kernels", "ref"]), fw_json([])
    assert (ref["int8_kernels"], mve["int8_kernels"]) == ("ref", "mve")
    assert ref["outputs"] == mve["outputs"]
    assert mve["instructions"]["execute"] < 0.5 * ref["instructions"]["execute"]
