"""The upstream int8 KWS program as bare-metal firmware (tools/firmware/etmcu_fw.py) on the four
targets: the logits for yes/no/up must carry upstream + CMSIS-NN's exact float bits
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

pytestmark = pytest.mark.skipif(not (CLI.exists() and SIM.exists() and FW.exists()),
                                reason="host tools or firmware tool not built")

TARGETS = [("cv32e40p", []), ("cortex-m55", []), ("cortex-m4", []),
           ("cortex-m0", ["--board", "mps2-an385"])]  # the micro:bit's 16 KiB RAM is too small


def run_fw(target, extra, word):
    p = subprocess.run(["/usr/bin/python3", str(FW), str(KWS), "--target", target, *extra,
                        "--input", str(UPSTREAM / "kws_test_inputs" / f"mfcc_{word}.f32.bin"),
                        "--json", "--quiet"], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])["outputs"][0]["values"]


@pytest.mark.parametrize("target,extra", TARGETS, ids=[t for t, _ in TARGETS])
def test_kws_bit_exact_on_target(target, extra):
    ref = json.loads((UPSTREAM / "kws_reference" / "kws_reference.json").read_text())
    for case in ref["cases"]:
        word = case["input"][len("mfcc_"):-len(".f32.bin")]
        values = run_fw(target, extra, word)
        bits = ["0x%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in values]
        assert bits == case["outputs_f32_hex"], (target, word)


def test_kws_ten_labels_on_cv32e40p():
    """All ten real inputs on the soft-float target (quantize/dequantize through picolibc)."""
    labels = json.loads((UPSTREAM / "kws_test_inputs" / "labels.json").read_text())
    classes = labels["_labels_in_output_index_order"]
    for name, info in labels.items():
        if not name.startswith("mfcc_"):
            continue
        values = run_fw("cv32e40p", [], name[len("mfcc_"):-len(".f32.bin")])
        assert classes[max(range(len(values)), key=values.__getitem__)] == info["label"], name
