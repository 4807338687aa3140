"""External constants: `etmcu export --external-constants` writes the constants to a .ptd (current
FlatTensor layout) that the reference interpreter and the C++ runtime (`etmcu-cli run --data`)
read, with the same outputs as the same model exported with its constants inside the .pte; a
missing, truncated or corrupted .ptd is a clean error."""
import json
import pathlib
import struct
import subprocess

import numpy as np
import pytest

import etmcu
from etmcu.reference import run_pte
from etmcu.serialize.ptd import read_ptd
from etmcu.serialize.pte import decode_json

from zoo_util import random_inputs, zoo_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"

pytestmark = pytest.mark.skipif(not CLI.exists(), reason="host CLI not built")


@pytest.fixture(scope="module", params=["mlp", "ds_cnn_int8"])
def pair(request, tmp_path_factory):
    """(embedded export, external export, inputs, directory, zoo model name) of one model."""
    name = request.param
    zoo = name.replace("_int8", "")
    model = zoo_module(zoo).Model().eval()
    ex = random_inputs(zoo, 0)
    kw = {"quantize": "int8"} if name.endswith("_int8") else {}
    embedded = etmcu.export(model, ex, **kw)
    external = etmcu.export(model, ex, external_constants=True, **kw)
    d = tmp_path_factory.mktemp(name)
    embedded.save(d / "embedded.pte")
    external.save(d / "external.pte")
    inputs = []
    for i, x in enumerate(random_inputs(zoo, 5)):
        np.save(d / f"in{i}.npy", x.numpy())
        inputs.append(d / f"in{i}.npy")
    return embedded, external, inputs, d, zoo


def cli(*args, check=True):
    p = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def cli_outputs(pte, inputs, *extra):
    args = sum((["--input", f] for f in inputs), [])
    out = cli("run", pte, *args, "--json", *extra).stdout.strip().splitlines()[-1]
    return [o["values"] for o in json.loads(out)["outputs"]]


def test_constants_move_to_the_ptd(pair):
    embedded, external, _, d, zoo = pair
    assert (d / "external.ptd").read_bytes() == external.external_data
    doc = decode_json(external.buffer)
    # No constant bytes left in the .pte: one empty segment, as upstream writes a program without any.
    assert doc["segments"] == [{"offset": 0, "size": 0}]
    blobs = read_ptd(external.external_data)
    # What the .pte still pays per external tensor: its key and the ExtraTensorInfo table.
    per_key = sum(len(k) + 48 for k in blobs)
    assert len(external.buffer) < len(embedded.buffer) - embedded.constant_bytes + 1024 + per_key
    refs = []
    for v in doc["execution_plan"][0]["values"]:
        t = v.get("val", {})
        info = t.get("extra_tensor_info")
        if v["val_type"] != "Tensor" or not info:
            continue
        assert info["location"] == "EXTERNAL" and t["data_buffer_idx"] == 0 and "allocation_info" not in t
        raw, layout = blobs[info["fully_qualified_name"]]
        # The layout the runtime matches exactly.
        assert layout["sizes"] == t["sizes"] and layout["dim_order"] == t["dim_order"]
        assert layout["scalar_type"] == t["scalar_type"]
        refs.append(info["fully_qualified_name"])
    assert refs and set(refs) == set(blobs), "every blob is used, every external tensor has one"
    # Keys name the module parameters they come from, as upstream's fully qualified names do.
    params = [n for n, _ in zoo_module(zoo).Model().named_parameters()]
    layers = {p.rsplit(".", 1)[0] for p in params}
    assert all(any(k.startswith(layer + ".") for layer in layers) for k in blobs), sorted(blobs)
    assert sum(len(raw) for raw, _ in blobs.values()) == external.constant_bytes
    # Header: FH01, flatbuffer right after the 48-byte padded header, segments 16-byte aligned.
    ptd = external.external_data
    assert ptd[4:8] == b"FT01" and ptd[8:12] == b"FH01"
    length, fb_offset, fb_size, base, size = struct.unpack_from("<IQQQQ", ptd, 12)
    assert (length, fb_offset) == (40, 48) and base % 16 == 0 and base + size == len(ptd)


def test_reference_and_runtime_agree_with_the_embedded_export(pair):
    embedded, external, inputs, d, _ = pair
    arrays = [np.load(f) for f in inputs]
    ref_embedded = run_pte(embedded.buffer, arrays)
    ref_external = run_pte(external.buffer, arrays, ptd=external.external_data)
    for a, b in zip(ref_embedded, ref_external):
        np.testing.assert_array_equal(a, b)
    host_embedded = cli_outputs(d / "embedded.pte", inputs)
    host_external = cli_outputs(d / "external.pte", inputs, "--data", d / "external.ptd")
    assert host_embedded == host_external


def test_missing_ptd_names_the_tensor(pair):
    _, external, _, d, _ = pair
    p = cli("run", d / "external.pte", check=False)
    assert p.returncode != 0 and "InvalidExternalData" in p.stderr and "pass the .ptd" in p.stderr
    # The message names the tensor by its key in the .ptd.
    assert any(f"'{key}'" in p.stderr for key in read_ptd(external.external_data)), p.stderr


def test_damaged_ptd_is_a_clean_error(pair, tmp_path):
    _, external, _, d, _ = pair
    ptd = external.external_data
    # Truncations (the flatbuffer, the segments) and corrupted bytes: always an error message,
    # never a crash (the sanitizer runs of the C++ suite cover the reader in depth).
    cuts = sorted(set(list(range(0, 128, 8)) + [len(ptd) // 2, len(ptd) - 1]))
    for n in cuts:
        (tmp_path / "bad.ptd").write_bytes(ptd[:n])
        p = cli("run", d / "external.pte", "--data", tmp_path / "bad.ptd", check=False)
        assert p.returncode == 1 and "etmcu:" in p.stderr, (n, p.returncode, p.stderr)
    for pos in (0, 5, 9, 16, 40):
        b = bytearray(ptd)
        b[pos] ^= 0xFF
        (tmp_path / "bad.ptd").write_bytes(bytes(b))
        p = cli("run", d / "external.pte", "--data", tmp_path / "bad.ptd", check=False)
        assert p.returncode == 1 and "etmcu:" in p.stderr, (pos, p.returncode, p.stderr)


def test_a_ptd_of_another_model_is_refused(pair, tmp_path):
    """Same keys, other layouts: the runtime checks dtype, sizes and dim_order of every blob."""
    _, external, _, d, _ = pair
    blobs = read_ptd(external.external_data)
    from etmcu.serialize.ptd import ExternalConstants, build_ptd

    class T:  # the fields ExternalConstants.add reads
        def __init__(self, name, data):
            self.name, self.data, self.dtype, self.shape = name, data, data.dtype, data.shape
            self.order = tuple(range(data.ndim))

    wrong = ExternalConstants()
    for key, (raw, layout) in blobs.items():
        wrong.add(T(key, np.zeros(len(raw) // 4 or 1, np.float32)))
    (tmp_path / "wrong.ptd").write_bytes(build_ptd(wrong))
    p = cli("run", d / "external.pte", "--data", tmp_path / "wrong.ptd", check=False)
    assert p.returncode == 1 and "InvalidExternalData" in p.stderr, p.stderr


def test_inspect_lists_the_named_blobs(pair):
    _, external, _, d, _ = pair
    info = json.loads(cli("inspect", d / "external.ptd", "--json").stdout)
    assert info["kind"] == "ptd" and info["bytes"] == len(external.external_data)
    blobs = read_ptd(external.external_data)
    assert {b["key"]: b["bytes"] for b in info["named_data"]} == {k: len(v[0]) for k, v in blobs.items()}
    for b in info["named_data"]:
        layout = blobs[b["key"]][1]
        assert b["shape"] == layout["sizes"] and b["dim_order"] == layout["dim_order"]
    text = cli("inspect", d / "external.ptd").stdout
    assert f"{len(blobs)} named blobs" in text
    p = cli("inspect", d / "external.ptd", "--ops", check=False)
    assert p.returncode == 1 and "external data" in p.stderr
