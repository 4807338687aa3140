""".ptd writer and reader: the external-data file (FlatTensor, identifier FT01) that holds a
program's constants when it is exported with external constants (upstream's
`external_constants=True`).

Layout (shared/docs/pte-format.md §17, the current FlatTensor since 2025-06):
  [0:4] root offset, [4:8] "FT01", [8:56] the FH01 header padded to 48 bytes (magic, length 40,
  flatbuffer_offset = 48, flatbuffer_size, segment_base_offset, segment_data_size), the rest of
  the flatbuffer, zero padding to 16, then the segments: one per named blob, each at a 16-byte
  aligned offset from segment_base_offset. As for the .pte, flatc encodes the flatbuffer from JSON
  against the repo's schema (schema/flat_tensor.fbs).
"""

import struct

import numpy as np

from ..errors import ExportError
from ..memory_planner import align_up
from .pte import _SCALAR_TYPES, decode_json, flatc_encode, insert_header, schema_path

ALIGNMENT = 16                   # segments, the header and the flatbuffer padding
HEADER_LENGTH = 40               # FH01 length field: magic .. segment_data_size
HEADER_PADDED = align_up(HEADER_LENGTH, ALIGNMENT)


def ptd_schema_path():
    return schema_path().with_name("flat_tensor.fbs")


class ExternalConstants:
    """Named constant blobs for a .ptd. Blobs are de-duplicated by bytes *and* layout (the runtime
    requires the .ptd layout to equal the program tensor's exactly); keys are the tensors' names,
    made unique with a `#n` suffix."""

    def __init__(self):
        self.entries = []        # (key, raw bytes, scalar type name, sizes, dim_order)
        self.index = {}
        self.keys = set()

    def add(self, tensor):
        data = np.ascontiguousarray(tensor.data)
        raw = data.astype(data.dtype.newbyteorder("<"), copy=False).tobytes()
        layout = (_SCALAR_TYPES[np.dtype(tensor.dtype)], tuple(int(s) for s in tensor.shape),
                  tuple(int(d) for d in tensor.order))
        hit = self.index.get((raw, layout))
        if hit is not None:
            return hit
        base = tensor.name or "constant"
        key, n = base, 1
        while key in self.keys:
            key, n = f"{base}#{n}", n + 1
        self.keys.add(key)
        self.entries.append((key, raw) + layout)
        self.index[(raw, layout)] = key
        return key

    @property
    def nbytes(self):
        return sum(len(e[1]) for e in self.entries)


def build_ptd(external: ExternalConstants) -> bytes:
    segments, data = [], bytearray()
    for _, raw, *_ in external.entries:
        data += b"\0" * (align_up(len(data), ALIGNMENT) - len(data))
        segments.append({"offset": len(data), "size": len(raw)})
        data += raw
    doc = {"version": 0, "segments": segments,
           "named_data": [{"key": key, "segment_index": i,
                           "tensor_layout": {"scalar_type": st, "sizes": list(sizes), "dim_order": list(order)}}
                          for i, (key, _, st, sizes, order) in enumerate(external.entries)]}
    fb = flatc_encode(doc, ptd_schema_path())
    if fb[4:8] != b"FT01":
        raise ExportError("flatc output lacks the FT01 identifier", op="serialize")
    base = align_up(HEADER_PADDED + align_up(len(fb), ALIGNMENT), ALIGNMENT)
    header = b"FH01" + struct.pack("<IQQQQ", HEADER_LENGTH, HEADER_PADDED, len(fb), base, len(data))
    out = insert_header(fb, header, HEADER_PADDED)
    return out + b"\0" * (base - len(out)) + bytes(data)


def read_ptd(data: bytes):
    """{key: (raw bytes, tensor_layout dict)} of a .ptd written in the current layout (decoded with
    `flatc --json`; the reference interpreter's view of external data)."""
    if data[4:8] != b"FT01" or data[8:12] != b"FH01":
        raise ExportError("not a .ptd (FT01 identifier and FH01 header expected)", op="decode")
    _, fb_offset, fb_size, base, _ = struct.unpack_from("<IQQQQ", data, 12)
    doc = decode_json(data[:fb_offset + fb_size], ptd_schema_path())
    segs = doc.get("segments", [])
    out = {}
    for nd in doc.get("named_data", []):
        seg = segs[nd.get("segment_index", 0)]
        start = base + int(seg["offset"])
        out[nd["key"]] = (data[start:start + int(seg["size"])], nd.get("tensor_layout"))
    return out

