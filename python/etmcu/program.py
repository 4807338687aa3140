"""The result of an export: the .pte bytes plus what the exporter decided (for reports/tests)."""

from dataclasses import dataclass, field
from typing import Optional
from pathlib import Path

from .lowering.emit import Method
from .memory_planner import MemoryPlan


@dataclass
class ExportedProgram:
    buffer: bytes
    method: Method
    plan: MemoryPlan
    constant_bytes: int          # de-duplicated constant payload (without alignment padding)
    segment_bytes: int           # constant segment size in the file (with padding)
    verified_error: Optional[float] = None   # reference interpreter vs eager (x output scale)
    quantization: Optional[str] = None       # "int8" for quantized exports
    fp32_ops: list = field(default_factory=list)   # (op, source) left in fp32 by int8 export
    calibration_samples: int = 0
    external_data: Optional[bytes] = None    # the .ptd of an export with external constants
    io_quant: Optional[dict] = None          # int8 I/O: {"inputs"/"outputs": [(scale, zp)]}

    def ptd_path(self, path):
        """Where save() writes the .ptd: beside the .pte, same stem."""
        return Path(path).with_suffix(".ptd")

    def save(self, path):
        Path(path).write_bytes(self.buffer)
        if self.external_data is not None:
            self.ptd_path(path).write_bytes(self.external_data)
        return path

    @property
    def ops(self):
        return self.method.op_counts()

    def summary(self):
        lines = [f"method '{self.method.name}': {len(self.method.instructions)} instructions, "
                 f"{len(self.method.values)} values"]
        for name, count in sorted(self.ops.items()):
            lines.append(f"  {count:4d} x {name}")
        ratio = self.plan.planned_bytes / self.plan.lower_bound if self.plan.lower_bound else 1.0
        regions = ", ".join(f"mem{i + 1}={s}" for i, s in enumerate(self.plan.region_sizes))
        if self.external_data is not None:
            lines.append(f"constant bytes: {self.constant_bytes} in the .ptd ({len(self.external_data)} bytes)")
        else:
            lines.append(f"constant bytes: {self.constant_bytes} (segment {self.segment_bytes})")
        lines.append(f"planned bytes: {self.plan.planned_bytes} [{regions}], lower bound "
                     f"{self.plan.lower_bound} ({ratio:.3f}x), {self.plan.buffers} buffers, "
                     f"{self.plan.inplace_reuses} in-place reuses")
        floor = self.plan.naive_floor
        if floor:
            lines.append(f"activation memory: planned {self.plan.planned_bytes} B, naive floor "
                         f"{floor} B (largest inputs+outputs of one op, instruction "
                         f"{self.plan.floor_instruction}), planned/floor "
                         f"{self.plan.planned_bytes / floor:.3f}"
                         + (f", {self.plan.overlaps} offset overlaps" if self.plan.overlaps else ""))
        if self.io_quant is not None:
            for kind in ("inputs", "outputs"):
                for i, (s, z) in enumerate(self.io_quant[kind]):
                    lines.append(f"int8 I/O: {kind[:-1]} {i} scale {s:.9g} zero_point {z}")
        lines.append(f"file bytes: {len(self.buffer)}")
        if self.quantization:
            lines.append(f"{self.quantization}: calibrated on {self.calibration_samples} samples")
            if self.fp32_ops:
                lines.append(f"{self.quantization}: {len(self.fp32_ops)} ops stay in fp32:")
                for entry in self.fp32_ops:
                    if hasattr(entry, "describe"):
                        lines.append(f"  {entry.describe()}")
                    else:
                        op, src = entry
                        lines.append(f"  {op}" + (f"  ({src})" if src else ""))
            else:
                lines.append(f"{self.quantization}: every op runs in int8")
        if self.verified_error is not None:
            lines.append(f"verified: reference interpreter vs eager max |err| = "
                         f"{self.verified_error:.1e} x output scale")
        return "\n".join(lines)
