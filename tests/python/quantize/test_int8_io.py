"""int8 I/O (`export(..., quantize="int8", int8_io=True)`, `./etmcu export --int8-io`): the method's
inputs and outputs are the int8 tensors, their (scale, zero point) travel in the program, the host
runtime CLI quantizes float .npy inputs with them, and the results are the float-I/O program's
bit for bit (same quantize/dequantize arithmetic, moved off the device)."""

import json
import subprocess

import numpy as np
import pytest

import q_util
from etmcu import ExportError, export, quant_eval
from etmcu.quantize import dequantize_array, quantize_array
from etmcu.reference import run_pte
from etmcu.serialize.pte import decode_json, io_quant_key, parse_header, read_io_quant

MODELS = ["ds_cnn", "resnet8", "autoencoder"]   # every op int8: outputs quantized on device too
N = 8


def int8_io(name):
    mod, m = q_util.model(name)
    return export(m, quant_eval.example_inputs(mod), quantize="int8", int8_io=True)


def named_blob(buffer, key):
    doc = decode_json(buffer)
    hdr = parse_header(buffer)
    for nd in doc.get("named_data", []):
        if nd["key"] == key:
            seg = doc["segments"][nd["segment_index"]]
            base = hdr["segment_base_offset"] + int(seg["offset"])
            return buffer[base:base + int(seg["size"])]
    return None


@pytest.mark.parametrize("name", MODELS)
def test_int8_io_program_shape(name):
    p = int8_io(name)
    ins, outs = p.method.input_tensors, p.method.output_tensors
    assert all(np.dtype(t.dtype) == np.int8 for t in ins + outs)
    assert all(t.order == (0, 2, 3, 1) for t in ins if len(t.shape) == 4)   # channels-last
    assert "cortex_m::quantize_per_tensor.out" not in p.ops
    assert "cortex_m::dequantize_per_tensor.out" not in p.ops
    # The record in the file is the one the exporter used.
    blob = named_blob(p.buffer, io_quant_key("forward"))
    assert blob is not None
    rec = read_io_quant(blob)
    assert len(rec["inputs"]) == len(ins) and len(rec["outputs"]) == len(outs)
    for kind in ("inputs", "outputs"):
        for (s, z), (s2, z2) in zip(rec[kind], p.io_quant[kind]):
            assert np.float32(s) == np.float32(s2) and z == z2


@pytest.mark.parametrize("name", MODELS)
def test_int8_io_bit_identical_to_float_io(name):
    """Host-side quantize + int8 program + host-side dequantize == the float-I/O int8 program."""
    p, ref_p = int8_io(name), q_util.int8(name)
    io = p.io_quant
    for x in q_util.inputs(name)[:N]:
        xq = [quantize_array(v, s, z) for v, (s, z) in zip(x, io["inputs"])]
        outs = run_pte(p.buffer, xq)
        ref = run_pte(ref_p.buffer, list(x))
        for o, r, (s, z) in zip(outs, ref, io["outputs"]):
            assert o.dtype == np.int8
            assert dequantize_array(o, s, z).tobytes() == r.astype(np.float32).tobytes()


def test_int8_io_needs_quantize():
    mod, m = q_util.model("autoencoder")
    with pytest.raises(ExportError, match="int8_io"):
        export(m, quant_eval.example_inputs(mod), int8_io=True)


def test_autoencoder_int8_io_planned_bytes():
    # 640 int8 in + 128 int8 hidden (float I/O needed the 2,560 B float input).
    assert int8_io("autoencoder").plan.planned_bytes <= 768


@pytest.mark.parametrize("name", ["ds_cnn", "autoencoder"])
def test_runtime_cli_int8_io(name, tmp_path):
    """etmcu-cli: inspect shows scale/zero point; run quantizes float .npy inputs on the host and
    returns the int8 outputs the reference interpreter computes."""
    if not q_util.CLI.exists():
        pytest.fail(f"host runtime CLI not built: {q_util.CLI} (./etmcu build)")
    p = int8_io(name)
    pte = p.save(tmp_path / f"{name}.pte")
    proc = subprocess.run([str(q_util.CLI), "inspect", str(pte), "--json"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    meta = json.loads(proc.stdout)
    method = meta["methods"][0]
    for kind in ("inputs", "outputs"):
        for x, (s, z) in zip(method[kind], p.io_quant[kind]):
            assert x["dtype"] == "int8"
            assert np.float32(x["scale"]) == np.float32(s) and x["zero_point"] == z
    xs = q_util.inputs(name)[:3]
    outs = quant_eval.run_runtime(q_util.CLI, pte, xs, tmp_path)     # float .npy inputs
    io = p.io_quant
    for x, o in zip(xs, outs):
        xq = [quantize_array(v, s, zz) for v, (s, zz) in zip(x, io["inputs"])]
        ref = run_pte(p.buffer, xq)[0]
        assert o.dtype == np.int8 and o.tobytes() == ref.tobytes()
