"""PTE writer: program JSON -> flatbuffer (Debian's flatc) -> eh00 header + constant segment.

We let `flatc` encode the flatbuffer from JSON against the repo's schema/program.fbs, the way
upstream's exir/_serialize does: the schema is the single source of truth, and the JSON we hand
to flatc is exactly what `flatc --json` prints back for the same file (tests rely on that).

File layout (see docs pte-format.md §1-4, §10):
  [0:4] root offset, [4:8] "ET12", [8:40] eh00 header (32-byte form), flatbuffer ...,
  zero padding to a 128-byte boundary, then the constant segment: constants de-duplicated by
  content, each starting at a 16-byte aligned offset inside the segment (zero padding between,
  none after the last). constant_segment.offsets[0] is the 0 placeholder ("not a constant").
  As upstream, a program with no constant bytes gets no header and one empty segment {0,0}.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from ..errors import ExportError
from ..memory_planner import align_up

SEGMENT_ALIGNMENT = 128
CONSTANT_ALIGNMENT = 16
HEADER_LENGTH = 32           # eh00 length field (magic .. segment_data_size)
HEADER_PADDED = 32           # padded to the schema's largest force_align (16)

_SCALAR_TYPES = {
    np.dtype(np.uint8): "BYTE", np.dtype(np.int8): "CHAR", np.dtype(np.int16): "SHORT",
    np.dtype(np.int32): "INT", np.dtype(np.int64): "LONG", np.dtype(np.float16): "HALF",
    np.dtype(np.float32): "FLOAT", np.dtype(np.float64): "DOUBLE", np.dtype(np.bool_): "BOOL",
}

_LEAF = {"type": None, "context": None, "children_spec": []}


def schema_path():
    env = os.environ.get("ETMCU_SCHEMA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "schema" / "program.fbs"


def flatc_path():
    path = os.environ.get("ETMCU_FLATC") or shutil.which("flatc")
    if not path:
        raise ExportError("flatc not found (install Debian's flatbuffers-compiler)", op="serialize")
    return path


def container_meta(n_inputs, n_outputs):
    """Pytree treespec strings as upstream writes them: inputs = ((x, y, ...), {})."""
    inp = {"type": "builtins.tuple", "context": "null", "children_spec": [
        {"type": "builtins.tuple", "context": "null", "children_spec": [_LEAF] * n_inputs},
        {"type": "builtins.dict", "context": "[]", "children_spec": []}]}
    out = _LEAF if n_outputs == 1 else {"type": "builtins.tuple", "context": "null",
                                        "children_spec": [_LEAF] * n_outputs}
    return json.dumps([1, inp]), json.dumps([1, out])


class ConstantPool:
    """De-duplicates constant bytes; data_buffer_idx k >= 1 indexes `offsets[k]`."""

    def __init__(self):
        self.blobs = []
        self.index = {}

    def add(self, data: np.ndarray):
        raw = np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<"), copy=False).tobytes()
        key = (raw,)
        if key not in self.index:
            self.blobs.append(raw)
            self.index[key] = len(self.blobs)
        return self.index[key]

    def layout(self):
        """(offsets incl. placeholder, segment bytes)."""
        offsets, out = [0], bytearray()
        for i, blob in enumerate(self.blobs):
            if i:
                out += b"\0" * (align_up(len(out), CONSTANT_ALIGNMENT) - len(out))
            offsets.append(len(out))
            out += blob
        return offsets, bytes(out)

    @property
    def nbytes(self):
        return sum(len(b) for b in self.blobs)


def _tensor_json(t, pool, placement, external=None):
    d = {
        "scalar_type": _SCALAR_TYPES[np.dtype(t.dtype)],
        "storage_offset": 0,
        "sizes": list(t.shape),
        "dim_order": list(t.order),
        "requires_grad": False,
        "data_buffer_idx": 0,
        "layout": 0,
        "shape_dynamism": "STATIC",
    }
    if t.is_const and external is not None:
        # In the .ptd, found by name at method load (upstream's TensorDataLocation.EXTERNAL).
        d["extra_tensor_info"] = {"fully_qualified_name": external.add(t), "location": "EXTERNAL"}
    elif t.is_const:
        d["data_buffer_idx"] = pool.add(t.data)
    else:
        mem_id, offset = placement[t.id]
        d["allocation_info"] = {"memory_id": mem_id, "memory_offset_low": offset & 0xFFFFFFFF,
                                "memory_offset_high": offset >> 32}
    return d


def _value_json(kind, payload, pool, placement, external=None):
    if kind == "Tensor":
        val = _tensor_json(payload, pool, placement, external)
    elif kind == "Null":
        val = {}
    elif kind == "Int":
        val = {"int_val": payload}
    elif kind == "Bool":
        val = {"bool_val": payload}
    elif kind == "Double":
        val = {"double_val": payload}
    elif kind in ("IntList", "DoubleList", "TensorList"):
        val = {"items": list(payload)}
    else:
        raise ExportError(f"internal: unknown value kind {kind}", op="serialize")
    return {"val_type": kind, "val": val}


def stacktrace_json(method):
    """One FrameList per instruction (upstream's Chain.stacktrace) naming the layer it computes:
    Frame.name = the module path ("net.0", "" at top level), filename (base name only: no
    machine's paths in a program) and line of the user's source. Profiles and tools read it to
    print layer names; the runtime does not need it."""
    lists = []
    n = len(method.instructions)
    modules = getattr(method, "modules", None) or [""] * n
    sources = method.sources or [""] * n
    refs = getattr(method, "refs", None) or [None] * n
    for module, source, ref in zip(modules, sources, refs):
        frame = {"name": module}
        m = _SOURCE_RE.match(source or "")
        if m:
            frame["filename"] = os.path.basename(m.group(1))
            frame["lineno"] = int(m.group(2))
        if ref is not None:
            # int8: the fp32 layer this output approximates and its (scale, zero point)
            frame["context"] = (f"ref={layer_key(ref[0], ref[1])};scale={ref[2]!r};"
                                f"zero_point={ref[3]}")
        lists.append({"items": [frame]})
    return lists


_SOURCE_RE = re.compile(r"(.*?):(\d+): ")


def layer_key(module, source):
    """How profiles and `etmcu compare` name a layer: its module path, or for a top-level op
    '@file.py:line' of its source."""
    if module:
        return module
    m = _SOURCE_RE.match(source or "")
    return f"@{os.path.basename(m.group(1))}:{m.group(2)}" if m else ""


def program_json(methods, pool, external=None, debug_info=True):
    """methods: list of (Method, MemoryPlan). Fills `pool` (or, for external constants, `external`:
    an ExternalConstants of serialize/ptd.py); returns the Program JSON dict."""
    plans = []
    for method, plan in methods:
        inp, out = container_meta(len(method.inputs), len(method.outputs))
        plans.append({
            "name": method.name,
            "container_meta_type": {"encoded_inp_str": inp, "encoded_out_str": out},
            "values": [_value_json(k, p, pool, plan.placement, external) for k, p in method.values],
            "inputs": method.inputs,
            "outputs": method.outputs,
            "chains": [{
                "inputs": [], "outputs": [],
                "instructions": [{"instr_args_type": "KernelCall",
                                  "instr_args": {"op_index": op, "args": args}}
                                 for op, args in method.instructions],
                **({"stacktrace": stacktrace_json(method)} if debug_info else {}),
            }],
            "operators": [{"name": n, "overload": o} for n, o in method.operators],
            "delegates": [],
            "non_const_buffer_sizes": [0] + list(plan.region_sizes),
        })
    offsets, _ = pool.layout()
    return {
        "execution_plan": plans,
        "constant_buffer": [],          # deprecated inline constants: present but empty, as upstream
        "backend_delegate_data": [],
        "segments": [],                 # filled by build_pte
        "constant_segment": {"segment_index": 0, "offsets": offsets},
    }


def flatc_encode(doc, schema=None):
    """`doc` (JSON-able) encoded by flatc against `schema` (default: schema/program.fbs)."""
    with tempfile.TemporaryDirectory(prefix="etmcu-pte-") as tmp:
        src = Path(tmp) / "program.json"
        src.write_text(json.dumps(doc, indent=1, sort_keys=False))
        proc = subprocess.run([flatc_path(), "--binary", "-o", tmp, str(schema or schema_path()), str(src)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise ExportError(f"flatc failed: {proc.stderr.strip() or proc.stdout.strip()}",
                              op="serialize")
        outs = [p for p in Path(tmp).iterdir() if p.suffix != ".json"]
        if len(outs) != 1:
            raise ExportError(f"flatc produced {outs}", op="serialize")
        return outs[0].read_bytes()


IO_QUANT_MAGIC = b"IOQ1"


def io_quant_key(method_name):
    """Named-data key of a method's int8 I/O quantization (see io_quant_blob)."""
    return f"etmcu.io_quant.{method_name}"


def io_quant_blob(io):
    """Little-endian: "IOQ1", u16 inputs, u16 outputs, then per input then per output
    {f32 scale, i32 zero_point}. Read by MethodMeta::input_quant/output_quant."""
    out = IO_QUANT_MAGIC + struct.pack("<HH", len(io["inputs"]), len(io["outputs"]))
    for s, z in list(io["inputs"]) + list(io["outputs"]):
        out += struct.pack("<fi", float(s), int(z))
    return out


def read_io_quant(blob):
    """Inverse of io_quant_blob: {"inputs": [(scale, zp)], "outputs": [...]}."""
    if blob[:4] != IO_QUANT_MAGIC:
        raise ValueError("io_quant blob lacks its IOQ1 magic")
    ni, no = struct.unpack_from("<HH", blob, 4)
    vals = [struct.unpack_from("<fi", blob, 8 + 8 * k) for k in range(ni + no)]
    return {"inputs": vals[:ni], "outputs": vals[ni:]}


def build_pte(methods, external=None, debug_info=True):
    """Serialise lowered+planned methods into .pte bytes. Returns (bytes, ConstantPool). With
    `external` (an ExternalConstants), the constants go there instead, for the .ptd.
    Segment 0 is the constant segment; methods with int8 I/O add one small segment each, named
    by io_quant_key (Program.named_data)."""
    pool = ConstantPool()
    doc = program_json(methods, pool, external, debug_info)
    offsets, segment = pool.layout()
    doc["segments"] = [{"offset": 0, "size": len(segment)}]
    data = bytearray(segment)
    named = []
    for method, _ in methods:
        if getattr(method, "io_quant", None) is None:
            continue
        blob = io_quant_blob(method.io_quant)
        data += b"\0" * (align_up(len(data), 16) - len(data))
        named.append({"key": io_quant_key(method.name), "segment_index": len(doc["segments"])})
        doc["segments"].append({"offset": len(data), "size": len(blob)})
        data += blob
    if named:
        doc["named_data"] = named
    segment = bytes(data)
    fb = flatc_encode(doc)
    if fb[4:8] != b"ET12":
        raise ExportError("flatc output lacks the ET12 identifier", op="serialize")
    if not segment:
        return fb, pool
    program_size = len(fb) + HEADER_PADDED
    base = align_up(program_size, SEGMENT_ALIGNMENT)
    header = b"eh00" + struct.pack("<IQQQ", HEADER_LENGTH, program_size, base, len(segment))
    out = insert_header(fb, header, HEADER_PADDED)
    out += b"\0" * (base - len(out)) + segment
    return out, pool


def insert_header(fb: bytes, header: bytes, padded: int) -> bytes:
    """`header` zero-padded to `padded` bytes, inserted after the flatbuffer's 8-byte prefix (root
    offset + identifier); the root offset moves by `padded`, every other offset is relative, and
    a multiple of 16 keeps every alignment intact."""
    header += b"\0" * (padded - len(header))
    root = struct.unpack_from("<I", fb, 0)[0] + padded
    return struct.pack("<I", root) + fb[4:8] + header + fb[8:]


def parse_header(data: bytes):
    """Decode the eh00 header (or None): dict with program_size, segment_base_offset, ..."""
    if data[8:12] != b"eh00":
        return None
    length, psize, base = struct.unpack_from("<IQQ", data, 12)
    seg = struct.unpack_from("<Q", data, 32)[0] if length >= 32 else None
    return {"length": length, "program_size": psize, "segment_base_offset": base,
            "segment_data_size": seg}


def decode_json(data: bytes, schema=None):
    """Decode .pte bytes (or another flatbuffer, with its `schema`) with `flatc --json` (the same
    way the corpus JSON was made)."""
    with tempfile.TemporaryDirectory(prefix="etmcu-dec-") as tmp:
        src = Path(tmp) / "p.pte"
        src.write_bytes(data)
        proc = subprocess.run([flatc_path(), "--json", "--raw-binary", "--strict-json",
                               "--defaults-json", "-o", tmp, str(schema or schema_path()), "--", str(src)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise ExportError(f"flatc --json failed: {proc.stderr.strip()}", op="decode")
        text = (Path(tmp) / "p.json").read_text()
        # flatc prints non-finite doubles as bare inf/nan, which is not JSON.
        text = re.sub(r'(?<=[:\[,\s])(-?(?:inf|nan))(?=[\s,\]}])', r'"\1"', text)
        return json.loads(text)
