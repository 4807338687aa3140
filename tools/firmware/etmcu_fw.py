#!/usr/bin/python3
"""etmcu run MODEL.pte --target T: build bare-metal firmware for one .pte and run it.

Steps: inspect the program with the host CLI (operators, inputs, planned sizes); check every
operator has a kernel for the target; prepare a model directory (the .pte and inputs embedded with
.incbin, the op list for the selective kernel table) under the target's cached CMake build of
boards/; build and run the sizing firmware (what the method needs from the method allocator on
this target's ABI); write the exact pool sizes; build the firmware; run it on the etmcu simulator
(CV32E40P) or QEMU (Cortex-M, -icount shift=0); decode its hex protocol (boards/common/runner.cpp).
Builds are cached by content hash under build/firmware/<board>/models/<hash>/.
"""
import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "build", "host", "tools", "etmcu-cli")
SIM = os.path.join(ROOT, "build", "host", "sim", "etmcu-sim")
KERNEL_LIBS = ("portable", "quantized", "cortex_m")  # kernels/<lib>/ops.txt: what firmware can link
sys.path.insert(0, os.path.join(ROOT, "python"))
from etmcu.layers import format_profile, program_layers  # noqa: E402  (layer names, MACs)

# target -> (toolchain file, default board, other boards that run the same code)
TARGETS = {
    "cv32e40p": ("cv32e40p", "cv32e40p", ("cv32e40p-pulp",)),
    "cortex-m55": ("cortex-m55", "mps3-an547", ()),
    "cortex-m4": ("cortex-m4", "mps2-an386", ()),
    "cortex-m33": ("cortex-m33", "mps2-an505", ()),
    "cortex-m0": ("cortex-m0", "microbit", ("mps2-an385",)),
}
OBJCOPY = {"cv32e40p": "riscv64-unknown-elf-objcopy"}
SIZE_TOOL = {"cv32e40p": "riscv64-unknown-elf-size"}

# ScalarType codes (runtime/core/scalar_type.h) -> (name, struct format, element bytes)
DTYPES = {
    0: ("uint8", "B", 1), 1: ("int8", "b", 1), 2: ("int16", "h", 2), 3: ("int32", "i", 4),
    4: ("int64", "q", 8), 5: ("float16", "e", 2), 6: ("float32", "f", 4), 7: ("float64", "d", 8),
    11: ("bool", "?", 1), 12: ("qint8", "b", 1), 13: ("quint8", "B", 1), 14: ("qint32", "i", 4),
    27: ("uint16", "H", 2), 28: ("uint32", "I", 4), 29: ("uint64", "Q", 8),
}
DTYPE_BY_NAME = {v[0]: (k, v[1], v[2]) for k, v in DTYPES.items()}
ERRORS = {
    0x01: "Internal", 0x02: "InvalidState", 0x03: "EndOfMethod", 0x10: "NotSupported",
    0x11: "NotImplemented", 0x12: "InvalidArgument", 0x13: "InvalidType", 0x14: "OperatorMissing",
    0x20: "NotFound", 0x21: "MemoryAllocationFailed", 0x22: "AccessFailed", 0x23: "InvalidProgram",
    0x24: "InvalidExternalData", 0x25: "OutOfResources", 0x30: "DelegateInvalidCompatibility",
    0x31: "DelegateMemoryAllocationFailed", 0x32: "DelegateInvalidHandle",
}
PHASES = {"a": "program load", "b": "method lookup", "c": "method load", "d": "set inputs", "e": "execute"}


class FwError(Exception):
    """A clean, user-facing failure (printed without a traceback)."""


def log(msg, quiet):
    if not quiet:
        print(f"[etmcu-fw] {msg}", file=sys.stderr)


def run_cmd(cmd, what, timeout=None, check=True, cwd=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise FwError(f"{what}: timed out after {timeout} s ({' '.join(cmd)})")
    if check and p.returncode != 0:
        raise FwError(f"{what} failed (exit {p.returncode}):\n{p.stdout}{p.stderr}")
    return p


# ---------------------------------------------------------------------------------------------
# Program facts (host CLI)


def inspect(model, method):
    if not os.path.exists(CLI):
        raise FwError(f"host CLI not built ({CLI}); run ./etmcu build")
    p = run_cmd([CLI, "inspect", model, "--json"], f"inspect {model}", check=False)
    if p.returncode != 0:
        raise FwError(f"cannot read '{model}': {(p.stderr or p.stdout).strip()}")
    info = json.loads(p.stdout)
    for m in info["methods"]:
        if m["name"] == method:
            return info, m
    names = ", ".join(m["name"] for m in info["methods"])
    raise FwError(f"'{model}' has no method '{method}' (methods: {names}); pass --method NAME")


def target_ops():
    ops = set()
    for lib in KERNEL_LIBS:
        path = os.path.join(ROOT, "kernels", lib, "ops.txt")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    ops.add(line)
    return ops


def fill_ones(dtype, numel):
    code, fmt, size = DTYPE_BY_NAME[dtype]
    if fmt == "e":
        return struct.pack("<H", 0x3C00) * numel
    if fmt in "fd":
        return struct.pack("<" + fmt, 1.0) * numel
    return (b"\x01" + b"\x00" * (size - 1)) * numel


def read_input(path, info, index):
    data = open(path, "rb").read()
    if path.endswith(".npy"):
        import numpy as np  # only needed for .npy inputs

        a = np.load(path)
        want = np.dtype(info["dtype"] if info["dtype"] != "bool" else np.bool_)
        if a.dtype == np.float32 and want == np.int8 and "scale" in info:
            # int8 I/O: quantize as the host CLI and cortex_m::quantize_per_tensor do (float32
            # reciprocal, ties to even)
            inv = np.float32(1.0) / np.float32(info["scale"])
            q = np.rint(a * inv).astype(np.int64) + int(info["zero_point"])
            a = np.clip(q, -128, 127).astype(np.int8)
        if a.dtype != want:
            raise FwError(f"input {index} ('{path}') has dtype {a.dtype}, the program expects {info['dtype']}")
        want_shape = [int(d) for d in info["shape"]]
        if [d for d in a.shape if d != 1] != [d for d in want_shape if d != 1]:
            same = a.size * a.itemsize == info["nbytes"]
            raise FwError(f"input {index} ('{path}') has shape {list(a.shape)}, the program expects "
                          f"{want_shape} ({info['dtype']})" +
                          (": the same number of elements in another layout (transpose the array to the "
                           "expected axis order, e.g. a.transpose(...), rather than reshape it)" if same else ""))
        a = a.reshape(want_shape)
        order = info.get("dim_order") or list(range(len(want_shape)))
        if list(order) != list(range(len(want_shape))):
            a = a.transpose(order)   # .npy is logical order; the device reads the dim order's bytes
        data = np.ascontiguousarray(a).tobytes()
    if len(data) != info["nbytes"]:
        raise FwError(f"input {index} ('{path}') has {len(data)} bytes, the program expects "
                      f"{info['nbytes']} ({info['dtype']}{info['shape']})")
    return data


def host_run(model, method, input_files, data=None):
    cmd = [CLI, "run", model, "--method", method, "--json"] + (["--data", data] if data else [])
    for f in input_files:
        cmd += ["--input", f]
    p = run_cmd(cmd, "host run", check=False)
    if p.returncode != 0:
        raise FwError(f"the host runtime cannot run '{model}': {(p.stderr or p.stdout).strip()}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# Build


class Build:
    def __init__(self, target, board, build_root, runtime_opt, kernel_opt, lto, quiet, int8_variant="",
                 libs_march=""):
        self.target, self.board, self.quiet = target, board, quiet
        self.toolchain = os.path.join(ROOT, "cmake", f"toolchain-{TARGETS[target][0]}.cmake")
        suffix = ""
        # (a profile is a model directory's setting, FW_PROFILE: it shares the board's libraries)
        if runtime_opt != "-Os" or kernel_opt != "-O2" or not lto or int8_variant or libs_march:
            key = f"{runtime_opt}|{kernel_opt}|{lto}" + (f"|{int8_variant}" if int8_variant else "") + \
                (f"|libs={libs_march}" if libs_march else "")
            suffix = "-" + hashlib.sha256(key.encode()).hexdigest()[:8]
        self.int8_variant, self.libs_march = int8_variant, libs_march
        self.dir = os.path.join(build_root, f"{board}{suffix}")
        self.models = os.path.join(self.dir, "models")
        self.runtime_opt, self.kernel_opt, self.lto = runtime_opt, kernel_opt, lto
        os.makedirs(self.models, exist_ok=True)
        self.lock = open(os.path.join(self.dir, ".lock"), "w")

    def __enter__(self):
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.lock, fcntl.LOCK_UN)

    def configure(self):
        cmd = ["cmake", "-S", os.path.join(ROOT, "boards"), "-B", self.dir, "-G", "Ninja",
               f"-DCMAKE_TOOLCHAIN_FILE={self.toolchain}", f"-DETMCU_BOARD={self.board}",
               f"-DETMCU_RUNTIME_OPT={self.runtime_opt}", f"-DETMCU_KERNEL_OPT={self.kernel_opt}",
               f"-DETMCU_LTO={'ON' if self.lto else 'OFF'}", f"-DETMCU_FW_MODELS_DIR={self.models}",
               f"-DETMCU_FW_CORTEX_M_VARIANT={self.int8_variant}"]
        if self.libs_march:
            cmd.append(f"-DETMCU_LIBS_MARCH={self.libs_march}")
        log(f"configuring {self.dir}", self.quiet)
        run_cmd(cmd, "cmake configure")
        with open(os.path.join(self.dir, "board.json")) as f:
            self.info = json.load(f)

    def prune(self, keep, limit=64):
        """Keeps the cache bounded: drops the least recently used model directories beyond `limit`."""
        dirs = [os.path.join(self.models, n) for n in os.listdir(self.models) if n != keep]
        if len(dirs) < limit:
            return
        dirs.sort(key=lambda d: os.path.getmtime(d))
        for d in dirs[: len(dirs) - limit + 1]:
            shutil.rmtree(d, ignore_errors=True)

    def kernel_paths(self, key):
        """The kernel-path mask recorded for a program (key) by an earlier run on this build, or None."""
        f = os.path.join(self.dir, "kernel-paths.json")
        if not os.path.exists(f):
            return None
        with open(f) as fh:
            return json.load(fh).get(key)

    def kernel_temp(self, key):
        """The temp bytes this build's kernels declared for a program (key), or None if not asked yet
        with these kernel sources (an answer recorded with other kernels is not reused)."""
        return self.kernel_paths(f"{key}:temp:{kernel_sources_digest()}")

    def store_kernel_temp(self, key, nbytes):
        self.store_kernel_paths(f"{key}:temp:{kernel_sources_digest()}", nbytes)

    def store_kernel_paths(self, key, mask):
        f = os.path.join(self.dir, "kernel-paths.json")
        known = {}
        if os.path.exists(f):
            with open(f) as fh:
                known = json.load(fh)
        known[key] = mask
        write_if_changed(f, json.dumps(known, sort_keys=True))

    def ensure_configured(self, name):
        listed = os.path.join(self.dir, "configured-models.txt")
        known = set(open(listed).read().split()) if os.path.exists(listed) else set()
        stale = True
        if os.path.exists(os.path.join(self.dir, "board.json")):
            with open(os.path.join(self.dir, "board.json")) as f:
                cfg = json.load(f)
            stale = (cfg.get("lto") != ("ON" if self.lto else "OFF") or cfg.get("runtime_opt") != self.runtime_opt
                     or cfg.get("kernel_opt") != self.kernel_opt or cfg.get("board") != self.board)
        if stale or not os.path.exists(os.path.join(self.dir, "build.ninja")) or name not in known:
            self.configure()
            known = {d for d in os.listdir(self.models) if os.path.exists(os.path.join(self.models, d, "firmware.cmake"))}
            with open(listed, "w") as f:
                f.write("\n".join(sorted(known)) + "\n")
        with open(os.path.join(self.dir, "board.json")) as f:
            self.info = json.load(f)

    def build(self, target, what):
        cmd = ["cmake", "--build", self.dir, "--target", target, "-j", os.environ.get("ETMCU_JOBS", "2")]
        p = run_cmd(cmd, what, check=False)
        if p.returncode != 0 and f"unknown target '{target}'" in p.stdout + p.stderr:
            # configured-models.txt named a model whose directory was removed and made again since
            # CMake last globbed (pruned, or deleted by hand): configure once more and retry.
            self.configure()
            p = run_cmd(cmd, what, check=False)
        if p.returncode != 0:
            out = p.stdout + p.stderr
            m = re.search(r"region `(\w+)' overflowed by (\d+) bytes", out)
            if m:
                raise MemoryOverflow(m.group(1), int(m.group(2)))
            m = re.search(r"will not fit in region `(\w+)'", out)
            if m:
                raise MemoryOverflow(m.group(1), None)
            m = re.search(r"undefined reference to `etmcu::kernels::(\w+)", out)
            if m:
                raise FwError(f"no kernel function etmcu::kernels::{m.group(1)} for target {self.target}: "
                              "add it to kernels/portable (and ops.txt)")
            raise FwError(f"{what} failed:\n{out[-4000:]}")


class MemoryOverflow(Exception):
    def __init__(self, region, excess):
        super().__init__(region)
        self.region, self.excess = region, excess


def write_if_changed(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    if os.path.exists(path):
        with open(path, "rb" if mode == "wb" else "r") as f:
            if f.read() == data:
                return
    with open(path, mode) as f:
        f.write(data)


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def prepare_model_dir(d, model_bytes, inputs, method, ops, stack_bytes, planned_inputs, dtype_mask=None,
                      features=None, ptd_bytes=None, kernel_paths=None, embed_inputs=True, profile=False):
    """Writes what the build of model directory d reads. The inputs are embedded as given when
    embed_inputs (a fresh directory); otherwise the bytes embedded first stay (the directory is keyed
    by the inputs' sizes, not their bytes: a run with other inputs patches a copy of the firmware,
    with_inputs)."""
    os.makedirs(os.path.join(d, "size"), exist_ok=True)
    os.makedirs(os.path.join(d, "run"), exist_ok=True)
    write_if_changed(os.path.join(d, "model.pte"), model_bytes)
    asm = ["/* Generated by tools/firmware/etmcu_fw.py: the .pte and the inputs, embedded. */",
           '    .section .rodata.fw_model, "a"', "    .balign 16", "    .globl fw_model", "    .globl fw_model_end",
           "fw_model:", '    .incbin "model.pte"', "fw_model_end:"]
    if ptd_bytes is not None:
        # The .ptd (external constants) in flash too: the runtime points its tensors into it.
        write_if_changed(os.path.join(d, "data.ptd"), ptd_bytes)
        asm += ['    .section .rodata.fw_data, "a"', "    .balign 16", "    .globl fw_data", "    .globl fw_data_end",
                "fw_data:", '    .incbin "data.ptd"', "fw_data_end:"]
    for i, data in enumerate(inputs):
        if data is None:
            continue
        if embed_inputs or not os.path.exists(os.path.join(d, f"input{i}.bin")):
            write_if_changed(os.path.join(d, f"input{i}.bin"), data)
        # A planned input is copied into its arena (constant data suffices); an unplanned one is used
        # in place by the program, so it lives in RAM (.data).
        section = f'.rodata.fw_input{i}, "a"' if planned_inputs[i] else f'.data.fw_input{i}, "aw"'
        asm += [f"    .section {section}", "    .balign 16", f"    .globl fw_input{i}",
                f"fw_input{i}:", f'    .incbin "input{i}.bin"']
    asm.append("")
    write_if_changed(os.path.join(d, "model.S"), "\n".join(asm))
    # In plan order: a runtime without operator names (KERNEL_NAMES=0, runtime_features) binds
    # kernels by operator index; boards/CMakeLists.txt sorts the list for a runtime with names.
    cm = ["# Generated by tools/firmware/etmcu_fw.py", f"set(FW_OPS {' '.join(ops)})"]
    if stack_bytes is not None:  # else the board's default
        cm.append(f"set(FW_STACK_BYTES {stack_bytes})")
    if dtype_mask:  # kernels compiled only for the tensor dtypes the program uses
        cm.append(f"set(FW_KERNEL_DTYPES {dtype_mask:#x})")
    if kernel_paths is not None:  # only the kernel paths this program takes (kernels/api/kernel_paths.h)
        cm.append(f"set(FW_KERNEL_PATHS {kernel_paths:#x})")
    if profile:  # the runtime with instruction hooks, a runner that times each (boards/CMakeLists.txt)
        cm.append("set(FW_PROFILE ON)")
    if features:  # the runtime compiled with only the optional features the program uses
        items = " ".join(f"{name}={int(bool(on))}" for name, on in sorted(features.items()))
        cm.append(f"set(FW_RUNTIME_FEATURES {items})")
    cm.append("")
    write_if_changed(os.path.join(d, "firmware.cmake"), "\n".join(cm))
    write_if_changed(os.path.join(d, "size", "fw_config.h"),
                     f"// Generated: sizing firmware.\n#pragma once\n#define FW_METHOD_NAME {c_string(method)}\n"
                     f"#define FW_EXTERNAL_DATA {int(ptd_bytes is not None)}\n")


_KERNEL_DIGEST = None
ASK_TEMP_POOL = 1024  # the asking firmware's temp pool (at least the largest declaration a kernel makes)


def kernel_sources_digest():
    """A digest of the kernel sources (kernels/): the key under which a program's temp declaration
    is kept, so that kernels that declare otherwise are asked again."""
    global _KERNEL_DIGEST
    if _KERNEL_DIGEST is None:
        h = hashlib.sha256()
        base = os.path.join(ROOT, "kernels")
        for d, dirs, files in sorted(os.walk(base)):
            dirs.sort()
            for f in sorted(files):
                path = os.path.join(d, f)
                h.update(os.path.relpath(path, base).encode() + b"\0")
                with open(path, "rb") as fh:
                    h.update(fh.read())
        _KERNEL_DIGEST = h.hexdigest()[:16]
    return _KERNEL_DIGEST


def runtime_features(info, args, check_temp=False):
    """The runtime's optional features for this program (from `inspect --features`), and whether
    method load checks every value: not for an embedded program loaded with Verification::Minimal
    (the host CLI checked its values when it was built); always when the device verifies it in full
    (--device-verification, --program-in-ram). check_temp: this build is the one that asks the
    linked kernels for their temp declarations (KERNEL_TEMP, below)."""
    features = info.get("features")
    if features is None:
        return None
    features = dict(features)
    device_checks = bool(args.device_verification or args.program_in_ram)
    # Method load asks the kernels how much temp their calls take (runtime/core/features.h
    # KERNEL_TEMP): about 10,000 cycles per declaring call on the CV32E40P (each call's arguments
    # are bound and checked). The tool asks once per program on this build, on the device, with
    # the kernels it links (the firmware reports the answer); the firmware that ships sizes its
    # temp pool from that answer and repeats the question only when it verifies the program itself.
    features["KERNEL_TEMP"] = bool(check_temp or device_checks)
    features["LOAD_VALUE_CHECKS"] = device_checks
    # The load-time alias check (a plan whose outs overlap inputs, against the kernels' alias
    # contracts) follows the same rule: the host runtime ran it on the embedded program when the
    # firmware was built (host_run: a plan it refuses stops the build), so the device repeats it
    # only when it verifies the program itself.
    features["ALIAS_CHECK"] = bool(features.get("ALIAS_CHECK")) and device_checks
    # An embedded program is the one the kernel table was generated from: kernels by operator
    # index, no names (runtime/core/features.h KERNEL_NAMES). A program handed over at run time
    # (--program-in-ram) may be another: its operators are looked up by name. (The alias check
    # reads each operator's name for its in-place contract: names stay with it too.)
    features["KERNEL_NAMES"] = bool(args.program_in_ram or features["ALIAS_CHECK"])
    return features


def output_formats(outputs):
    """The runner's print formats these outputs need (boards/common/runner.cpp FW_OUTPUT_FORMATS):
    bits 0-3 tensor element sizes 1/2/4/8, 4 Int, 5 Double, 6 Bool."""
    bits = 0
    for x in outputs:
        if x["kind"] == "tensor":
            bits |= 1 << {1: 0, 2: 1, 4: 2, 8: 3}[DTYPE_BY_NAME[x["dtype"]][2]]
        elif x["kind"] in (3, 4, 5):  # Tag::Double, Int, Bool
            bits |= 1 << {4: 4, 3: 5, 5: 6}[x["kind"]]
    return bits


def write_run_config(d, method, method_bytes, temp_bytes, planned, inputs, outputs, device_verification=False,
                     external_data=False, program_in_ram=None):
    offsets, total = [], 0
    for size in planned:
        offsets.append(total)
        total += (size + 15) // 16 * 16
    lines = ["// Generated by tools/firmware/etmcu_fw.py: pools sized exactly for this method on this target.",
             "#pragma once", "#include <stdint.h>", f"#define FW_METHOD_NAME {c_string(method)}",
             f"#define FW_METHOD_POOL_BYTES {method_bytes}", f"#define FW_TEMP_POOL_BYTES {temp_bytes}",
             f"#define FW_NUM_PLANNED {len(planned)}",
             f"#define FW_PLANNED_SIZES {''.join(f'{s}u, ' for s in planned)}",
             f"#define FW_PLANNED_OFFSETS {''.join(f'{o}u, ' for o in offsets)}",
             f"#define FW_PLANNED_TOTAL_BYTES {total}",
             f"#define FW_DEVICE_VERIFICATION {int(bool(device_verification))}",
             f"#define FW_EXTERNAL_DATA {int(bool(external_data))}",
             f"#define FW_OUTPUT_FORMATS 0x{output_formats(outputs):x}",
             # non-tensor inputs: without any, the runner links no Method::set_input
             f"#define FW_SCALAR_INPUTS {sum(1 for x in inputs if x is None)}",
             f"#define FW_PROGRAM_IN_RAM {int(program_in_ram is not None)}",
             f"#define FW_PROGRAM_CAPACITY {((program_in_ram or 0) + 15) // 16 * 16}u"]
    rows = []
    for i, data in enumerate(inputs):
        if data is None:
            rows.append("{nullptr, 0}")
        else:
            lines.append(f'extern "C" const uint8_t fw_input{i}[];')
            rows.append(f"{{fw_input{i}, {len(data)}u}}")
    rows.append("{nullptr, 0}")
    lines += ["struct FwInput {", "  const void* data;", "  uint32_t size;", "};",
              f"static const FwInput kInputs[] = {{{', '.join(rows)}}};"]
    # Unplanned tensor outputs get caller memory (.noinit, exactly their size).
    rows = []
    for i, x in enumerate(outputs):
        if x["kind"] == "tensor" and not x["planned"]:
            lines.append(f'__attribute__((section(".noinit"), aligned(16))) static uint8_t fw_output{i}'
                         f'[{max(1, x["nbytes"])}];')
            rows.append(f"{{{i}u, fw_output{i}, {x['nbytes']}u}}")
    rows.append("{0, nullptr, 0}")
    lines += ["struct FwOutput {", "  uint32_t index;", "  void* data;", "  uint32_t size;", "};",
              f"static const FwOutput kOutputs[] = {{{', '.join(rows)}}};", ""]
    write_if_changed(os.path.join(d, "run", "fw_config.h"), "\n".join(lines))


# ---------------------------------------------------------------------------------------------
# Run and decode


def elf_symbol_file_offset(blob, name):
    """(file offset, bytes to the end of its section) of symbol `name` in a little-endian ELF32 image:
    where its initial bytes are in the file (the load image, also for a .data symbol whose startup
    copy reads it from flash). None when the symbol is missing or has no bytes in the file."""
    if blob[:4] != b"\x7fELF" or blob[4] != 1 or blob[5] != 1:
        raise FwError("not a little-endian ELF32 firmware")
    shoff, = struct.unpack_from("<I", blob, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", blob, 0x2E)
    secs = [struct.unpack_from("<10I", blob, shoff + k * shentsize) for k in range(shnum)]
    for sh in secs:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = secs[sh[6]]
        for off in range(sh[4], sh[4] + sh[5], 16):
            st_name, value, _size, _info, _other, shndx = struct.unpack_from("<IIIBBH", blob, off)
            end = blob.index(b"\0", strtab[4] + st_name)
            if blob[strtab[4] + st_name:end].decode() != name:
                continue
            if shndx == 0 or shndx >= len(secs) or secs[shndx][1] == 8:  # undefined, special, NOBITS
                return None
            sec = secs[shndx]
            return sec[4] + (value - sec[3]), sec[3] + sec[5] - value
    return None


def with_inputs(build, elf, inputs, dst_dir):
    """A copy of the firmware `elf` with these input bytes in place of the embedded ones
    (fw_input<i>), at dst_dir/firmware.elf (and .hex on the CV32E40P), written atomically: a
    firmware is built once per program and input sizes, and each set of inputs is a copy of it, not
    a link. Called with the build's lock held."""
    blob = bytearray(open(elf, "rb").read())
    for i, data in enumerate(inputs):
        if data is None:
            continue
        at = elf_symbol_file_offset(blob, f"fw_input{i}")
        if at is None or at[1] < len(data):
            raise FwError(f"{elf} has no room for input {i} (fw_input{i}): rebuild it (delete {os.path.dirname(elf)})")
        blob[at[0]:at[0] + len(data)] = data
    os.makedirs(dst_dir, exist_ok=True)
    out = os.path.join(dst_dir, "firmware.elf")
    tmp = f"{out}.{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(blob)
    os.replace(tmp, out)
    if build.info["family"] == "cv32e40p":
        run_cmd([OBJCOPY["cv32e40p"], "-O", "verilog", out, tmp], "objcopy -O verilog")
        os.replace(tmp, os.path.join(dst_dir, "firmware.hex"))
    return out


INPUT_VARIANTS_KEPT = 16  # patched copies (with_inputs) kept per model directory, the least recent dropped


def elf_memo(elf, key, compute):
    """compute() for this ELF, kept beside it (<elf>.memo.json) until the file changes: a cached
    firmware's second run skips the disassembly and symbol reads (0.1 to 0.3 s each) it did before."""
    st = os.stat(elf)
    stamp = [st.st_mtime_ns, st.st_size]
    path = elf + ".memo.json"
    memo = {}
    try:
        with open(path) as f:
            memo = json.load(f)
    except (OSError, ValueError):
        pass
    if memo.get("stamp") != stamp:
        memo = {"stamp": stamp}
    if key not in memo:
        memo[key] = compute()
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(memo, f)
        os.replace(tmp, path)
    return memo[key]


def stack_bound_of(build, target, elf):
    """The static worst-case stack of the firmware (tools/firmware/stack_bound.py); FwError when the
    analysis cannot bound it (recursion, a dynamic frame, an unresolved indirect jump)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import stack_bound

    family = "cv32e40p" if build.info["family"] == "cv32e40p" else "cortex-m"
    ci = stack_bound.ci_files_for(elf)
    if not ci:
        raise FwError(f"no call-graph files (.ci) beside {elf}: the LTO link writes them (-fcallgraph-info=su)")
    fp = target in ("cortex-m4", "cortex-m33", "cortex-m55")
    try:
        return elf_memo(elf, f"stack_bound:{family}:{fp}", lambda: stack_bound.bound(elf, family, ci, fp=fp))
    except stack_bound.BoundError as e:
        raise FwError(f"cannot bound the stack of {elf}: {e}")


def run_firmware(build, elf, timeout, load=None):
    """Runs the firmware; `load` = (file, address): bytes a loader writes into memory before start."""
    info = build.info
    if info["runner"] == "etmcu-sim":
        if not os.path.exists(SIM):
            raise FwError(f"simulator not built ({SIM}); run ./etmcu build")
        config = ["--config", info["sim_config"]] if info.get("sim_config") else []
        extra = ["--load", f"{load[0]}@{load[1]:#x}"] if load else []
        p = run_cmd([SIM, *config, *extra, elf], "etmcu-sim", timeout=timeout, check=False)
        m = re.search(r"^cycles=(\d+) instret=(\d+)$", p.stdout, re.M)
        counts = {"cycles": int(m.group(1)), "instret": int(m.group(2))} if m else {}
        out = p.stdout[: m.start()] if m else p.stdout
        return p.returncode, out, p.stderr, counts
    # Semihosting console output goes to a file chardev (without one QEMU writes it to the tty).
    import tempfile

    with tempfile.TemporaryDirectory(prefix="etmcu-qemu-") as tmp:
        out_path = os.path.join(tmp, "console.txt")
        cmd = ["qemu-system-arm", "-M", info["qemu_machine"], "-display", "none", "-monitor", "none",
               "-serial", "none", "-chardev", f"file,id=fwout,path={out_path}",
               "-semihosting-config", "enable=on,target=native,chardev=fwout", "-icount", "shift=0",
               "-kernel", elf]
        if load:
            cmd += ["-device", f"loader,file={load[0]},addr={load[1]:#x},force-raw=on"]
        plugin = insn_plugin(os.path.dirname(build.dir))
        counts_path = os.path.join(tmp, "insns.txt")
        mark = symbol_address(elf, "board_ticks")
        if plugin and mark is not None:
            cmd += ["-plugin", f"{plugin},mark={mark:#x},out={counts_path}"]
        p = run_cmd(cmd, "qemu", timeout=timeout, check=False)
        out = open(out_path).read() if os.path.exists(out_path) else ""
        counts = {}
        if os.path.exists(counts_path):
            for line in open(counts_path):
                f = line.split()
                if f and f[0] == "total":
                    counts["instructions"] = int(f[1])
                elif f and f[0] == "marks":
                    counts["marks"] = [int(x) for x in f[1:]]
    return p.returncode, out, p.stdout + p.stderr, counts


def insn_plugin(build_root):
    """Builds (once) the TCG plugin that counts guest instructions exactly; None without a host gcc."""
    src = os.path.join(ROOT, "tools", "firmware", "qemu_insn_plugin.c")
    lib = os.path.join(build_root, "qemu_insn_plugin.so")
    if os.path.exists(lib) and os.path.getmtime(lib) >= os.path.getmtime(src):
        return lib
    if shutil.which("gcc") is None:
        return None
    tmp = lib + f".{os.getpid()}"
    p = subprocess.run(["gcc", "-shared", "-fPIC", "-O2", src, "-o", tmp], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    os.replace(tmp, lib)
    return lib


def symbol_address(elf, name):
    def read():
        p = subprocess.run(["arm-none-eabi-nm", elf], capture_output=True, text=True)
        for line in p.stdout.splitlines():
            f = line.split()
            if len(f) == 3 and f[2] == name:
                return int(f[0], 16) & ~1
        return None
    return elf_memo(elf, f"symbol:{name}", read)


def parse_output(text):
    res = {"outputs": [], "T": None, "M": None, "E": None, "Z": None, "X": None, "S": False, "P": [], "Q": None,
           "K": None}
    for line in text.splitlines():
        if not line:
            continue
        if line[0] == "O":
            head, _, data = line.partition(":")
            f = head[1:].split()
            index, tag = int(f[0], 16), int(f[1], 16)
            entry = {"index": index, "tag": tag, "data": data}
            if tag == 1:
                dtype, dim = int(f[2], 16), int(f[3], 16)
                entry.update(dtype=dtype, sizes=[int(x, 16) for x in f[4:4 + dim]],
                             dim_order=[int(x, 16) for x in f[4 + dim:4 + 2 * dim]])
            res["outputs"].append(entry)
        elif line[0] in "TMZQK":
            res[line[0]] = [int(x, 16) for x in line[1:].split()]
        elif line[0] == "P":
            res["P"].append([int(x, 16) for x in line[1:].split()])
        elif line[0] == "E":
            f = line.split(" ", 6)
            res["E"] = {"phase": f[1], "error": int(f[2], 16), "index": int(f[3], 16), "got": int(f[4], 16),
                        "expected": int(f[5], 16), "name": f[6] if len(f) > 6 else ""}
        elif line[0] == "X":
            res["X"] = line
        elif line == "S":
            res["S"] = True
    return res


def to_json_number(x, dtype_name):
    if dtype_name == "bool":
        return bool(x)
    if dtype_name.startswith("float"):
        x = float(x)
        if x != x:
            return "nan"
        if x in (float("inf"), float("-inf")):
            return "inf" if x > 0 else "-inf"
        return x
    return int(x)


def decode_tensor(entry):
    name, fmt, size = DTYPES[entry["dtype"]]
    hexdata = entry["data"]
    width = 2 * size
    words = [int(hexdata[k:k + width], 16) for k in range(0, len(hexdata), width)]
    raw = b"".join(w.to_bytes(size, "little") for w in words)
    numel = len(words)
    values = list(struct.unpack(f"<{numel}{fmt}", raw)) if numel else []
    sizes, order = entry["sizes"], entry["dim_order"]
    if order != list(range(len(order))) and numel:
        # memory order is sizes permuted by dim_order; gather in logical (row-major) order
        mem_sizes = [sizes[d] for d in order]
        mem_strides = [1] * len(order)
        for k in range(len(order) - 2, -1, -1):
            mem_strides[k] = mem_strides[k + 1] * mem_sizes[k + 1]
        stride_of = {order[k]: mem_strides[k] for k in range(len(order))}
        logical = []
        for idx in range(numel):
            rem, off = idx, 0
            for d in range(len(sizes) - 1, -1, -1):
                off += (rem % sizes[d]) * stride_of[d]
                rem //= sizes[d]
            logical.append(values[off])
        values = logical
    return {"kind": "tensor", "dtype": name, "shape": sizes, "dim_order": order,
            "values": [to_json_number(v, name) for v in values]}


def decode_value(entry):
    tag, data = entry["tag"], entry["data"]
    if data == "?":
        raise FwError(f"output {entry['index']}: the firmware was built without a print format for it "
                      "(FW_OUTPUT_FORMATS); rebuild with ./etmcu run")
    if tag == 1:
        return decode_tensor(entry)
    if tag == 4:
        return {"kind": "int", "value": struct.unpack("<q", int(data, 16).to_bytes(8, "little"))[0]}
    if tag == 3:
        return {"kind": "double", "value": struct.unpack("<d", int(data, 16).to_bytes(8, "little"))[0]}
    if tag == 5:
        return {"kind": "bool", "value": bool(int(data, 16))}
    if tag == 0:
        return {"kind": "none"}
    return {"kind": "list"}


def section_sizes(build, elf):
    def read():
        tool = SIZE_TOOL.get(build.target, "arm-none-eabi-size")
        p = run_cmd([tool, "-A", "-d", elf], "size")
        sec = {}
        for line in p.stdout.splitlines():
            f = line.split()
            if len(f) >= 3 and f[0].startswith(".") and f[1].isdigit():
                sec[f[0]] = int(f[1])
        return sec
    return elf_memo(elf, "sections", read)


def runner_report_bytes(mapfile):
    """Bytes of the runner's printing and measurement code: the input sections named .text.fw_report
    (boards/common/runner.cpp, FW_REPORT) in the link map. The rest of .text is what a product built
    on the same runtime, kernels and board code would ship."""
    total, pending = 0, False
    with open(mapfile) as f:
        for line in f:
            m = re.match(r"^ (\.text\.fw_report\S*)(?:\s+0x[0-9a-f]+\s+0x([0-9a-f]+))?", line)
            if m:
                if m.group(2) is not None:
                    total += int(m.group(2), 16)
                else:
                    pending = True  # a long name: address and size on the next line
                continue
            if pending:
                m = re.match(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)", line)
                if m:
                    total += int(m.group(1), 16)
                pending = False
    return total


def text_of(value):
    if value["kind"] != "tensor":
        return f"{value['kind']} {json.dumps(value.get('value'))}"
    vals = value["values"]
    shown = vals if len(vals) <= 64 else vals[:32]
    body = ", ".join(f"{v:.7g}" if isinstance(v, float) else str(v).lower() if isinstance(v, bool) else str(v)
                     for v in shown)
    if len(vals) > 64:
        body += f", ... ({len(vals)} values)"
    return f"{value['dtype']}[{', '.join(str(s) for s in value['shape'])}] = [{body}]"


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(prog="etmcu run MODEL.pte --target T",
                                 description="Build bare-metal firmware for a .pte and run it on the "
                                             "CV32E40P simulator or QEMU.")
    ap.add_argument("model")
    ap.add_argument("--target", required=True, choices=sorted(TARGETS))
    ap.add_argument("--board", help="board for the target (cortex-m0: microbit [default] or mps2-an385)")
    ap.add_argument("--input", action="append", default=[], help="input file (.npy or raw .bin), one per input")
    ap.add_argument("--data", metavar="FILE.ptd",
                    help="external data (.ptd) the program's external tensors come from; embedded in flash")
    ap.add_argument("--method", default="forward")
    ap.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    ap.add_argument("--keep", metavar="DIR", help="copy the firmware build (sources, ELF, map) to DIR")
    ap.add_argument("--build-root", default=os.environ.get("ETMCU_FW_BUILD_ROOT", os.path.join(ROOT, "build", "firmware")),
                    help="cache of firmware builds (default: $ETMCU_FW_BUILD_ROOT or build/firmware)")
    ap.add_argument("--runtime-opt", default="-Os", help="runtime/board/runner optimisation flags (default -Os)")
    ap.add_argument("--kernel-opt", default="-O2", help="kernel optimisation flags (default -O2)")
    ap.add_argument("--no-lto", dest="lto", action="store_false",
                    help="no link-time optimisation (default: LTO, smaller and faster)")
    ap.add_argument("--stack-bytes", type=int, help="stack reserved (default: the board's)")
    ap.add_argument("--stack-fit", choices=["exact", "grow"],
                    default=os.environ.get("ETMCU_FW_STACK_FIT", "exact"),
                    help="without --stack-bytes, the stack reserved once the static bound is known: exact "
                         "(default, or $ETMCU_FW_STACK_FIT): the bound plus the overflow guard, relinking "
                         "the firmware whenever that differs from the build's; grow: the board's default "
                         "unless the bound needs more (a relink only then: the tests' setting, one LTO "
                         "link per firmware fewer)")
    ap.add_argument("--libs-march", default="", choices=["", "rv32imc", "rv32imac"],
                    help="cv32e40p: the -march of the link, which picks the libgcc/picolibc multilib "
                         "(default rv32imac: compressed, smaller; rv32imc: the rv32im libraries, faster "
                         "soft-float, ~1.1 KiB more)")
    ap.add_argument("--profile", action="store_true",
                    help="time every instruction of the execution on the device (a build with the runtime's "
                         "instruction hooks; JSON 'profile': instruction, operator, cycles or ticks)")
    ap.add_argument("--int8-kernels", default="", choices=["", "ref", "scalar", "rv32", "xpulp", "dsp", "mve"],
                    help="cortex_m kernel variant (default: the board's preference, docs/int8.md)")
    ap.add_argument("--device-verification", action="store_true",
                    help="verify the program's flatbuffer in full on the device at every start (default: "
                         "the host and the sizing firmware verify it at build time; the firmware checks "
                         "the header, root and segment bounds)")
    ap.add_argument("--program-in-ram", action="store_true",
                    help="do not embed the program: a loader writes it into a RAM buffer before start (the "
                         "simulator's --load, QEMU's generic loader), and the device verifies it in full")
    ap.add_argument("--kernel-paths", choices=["program", "all"],
                    default=os.environ.get("ETMCU_FW_KERNEL_PATHS", "program"),
                    help="int8 kernel branches compiled in: program (default, or $ETMCU_FW_KERNEL_PATHS): only "
                         "those this program takes (recorded by a first build with all of them, whose outputs "
                         "the final firmware must match); all: every branch (one build)")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    try:
        return run(args)
    except BrokenPipeError:  # e.g. piped into head
        return 0
    except FwError as e:
        print(f"etmcu run --target {args.target}: error: {e}", file=sys.stderr)
        return 1


def run(args):
    t0 = time.time()
    target = args.target
    board = args.board or TARGETS[target][1]
    if board not in (TARGETS[target][1],) + TARGETS[target][2]:
        raise FwError(f"board '{board}' is not a {target} board (use "
                      f"{' or '.join((TARGETS[target][1],) + TARGETS[target][2])})")
    if args.libs_march and target != "cv32e40p":
        raise FwError("--libs-march applies to the cv32e40p target only")
    model = os.path.abspath(args.model)
    if not os.path.exists(model):
        raise FwError(f"no such file: {args.model}")
    info, meth = inspect(model, args.method)
    if meth["delegates"]:
        raise FwError(f"method '{args.method}' uses delegates ({', '.join(map(str, meth['delegates']))}); "
                      "no backend is linked into firmware yet")
    ops = meth["operators"]
    quantized = any(op.startswith("cortex_m::") or op.startswith("quantized_decomposed::") for op in ops)
    missing = [op for op in ops if op not in target_ops()]
    if missing:
        raise FwError(f"no kernel for operator(s) {', '.join(missing)} on target {target} "
                      f"(kernels/{{portable,quantized,cortex_m}}/ops.txt list what firmware can link); export the model without "
                      f"them or add the kernels")
    # Inputs: from files, else all ones (as the host CLI does).
    if args.input and len(args.input) != len(meth["inputs"]):
        raise FwError(f"method '{args.method}' takes {len(meth['inputs'])} inputs, {len(args.input)} --input given")
    inputs = []
    for i, x in enumerate(meth["inputs"]):
        if x["kind"] != "tensor":
            inputs.append(None)
        elif args.input:
            inputs.append(read_input(args.input[i], x, i))
        else:
            numel = 1
            for s in x["shape"]:
                numel *= s
            inputs.append(fill_ones(x["dtype"], numel))

    model_bytes = open(model, "rb").read()
    ptd = os.path.abspath(args.data) if args.data else None
    if ptd and not os.path.exists(ptd):
        raise FwError(f"no such file: {args.data}")
    ptd_bytes = open(ptd, "rb").read() if ptd else None
    # The build is keyed by the inputs' sizes, not their bytes: other inputs are patched into a copy
    # of the firmware (with_inputs), so a program run on many inputs links once.
    h = hashlib.sha256()
    for part in [model_bytes, args.method.encode(), str(args.stack_bytes).encode(),
                 b"device-verification" if args.device_verification else b"",
                 b"program-in-ram" if args.program_in_ram else b"",
                 b"kernel-paths-all" if args.kernel_paths == "all" else b"",
                 b"profile" if args.profile else b"",
                 b"" if ptd_bytes is None else b"ptd:" + ptd_bytes] + \
            [b"" if d is None else b"input bytes: %d" % len(d) for d in inputs]:
        h.update(hashlib.sha256(part).digest())
    name = h.hexdigest()[:16]
    inputs_key = hashlib.sha256(b"".join(hashlib.sha256(d or b"").digest() for d in inputs)).hexdigest()[:16]

    # Kernel paths (kernels/api/kernel_paths.h): with --kernel-paths program (the default) the
    # firmware keeps only the kernel branches this program takes. The first build has every path
    # and reports the ones its run took; the firmware is then rebuilt with that mask and run again,
    # and both runs' outputs must be the same. The mask is kept in sizes.json for later runs.
    trims = args.kernel_paths == "program"
    # Paths follow from shapes, not data: one mask per program and method on this build, recorded
    # with these kernel sources (a kernel change can move a layer to other paths: a mask recorded
    # before it may lack one, which the run reports below, or keep one no layer takes any more,
    # whose code would stay linked).
    paths_key = hashlib.sha256(model_bytes + b"\0" + args.method.encode()).hexdigest()[:16]
    mask_key = f"{paths_key}:{kernel_sources_digest()}"
    paths = None
    full_outputs = None
    kernel_temp = None  # the temp the linked kernels declare for this program (asked on the device)
    ask_without_room = False
    for attempt in range(4):
        with Build(target, board, args.build_root, args.runtime_opt, args.kernel_opt, args.lto, args.quiet,
                   args.int8_kernels, args.libs_march) as b:
            d = os.path.join(b.models, name)
            fresh = not os.path.exists(os.path.join(d, "run", "firmware.elf"))
            fw_json = os.path.join(d, "run", "sizes.json")
            # The stack: as given, else sized from the static bound of the last build of this firmware
            # (sizes.json), else the board's default until the first bound is known.
            stack = None if args.stack_bytes is None else (args.stack_bytes + 63) & ~63  # paint steps 64 bytes
            if not fresh and os.path.exists(fw_json):
                with open(fw_json) as f:
                    prev = json.load(f)
                if stack is None:
                    stack = prev.get("stack_reserve")
                if trims and attempt == 0 and prev.get("kernel_digest") == kernel_sources_digest():
                    paths = prev.get("kernel_paths")
            if trims and attempt == 0 and paths is None:
                paths = b.kernel_paths(mask_key)  # recorded for this program with other inputs
            if kernel_temp is None:
                kernel_temp = b.kernel_temp(paths_key)
            # Only the optimised int8 kernels declare temp: other programs and builds need not ask.
            ask_temp = kernel_temp is None and b.int8_variant != "ref" and \
                any(op.startswith("cortex_m::") for op in ops)
            features = runtime_features(info, args, ask_temp)
            if fresh:
                b.prune(name)
            prepare_model_dir(d, model_bytes, inputs, args.method, ops, stack,
                              [x.get("planned", True) for x in meth["inputs"]],
                              info.get("kernel_dtypes_mask"), features, ptd_bytes, paths, embed_inputs=fresh,
                              profile=args.profile)
            os.utime(d)
            b.ensure_configured(name)
            size_elf = os.path.join(d, "size", "firmware.elf")
            try:
                b.build(f"fw-{name}-size", "sizing firmware build")  # a no-op when cached
            except MemoryOverflow as e:
                raise FwError(too_big_message(b, model_bytes, e, None, ptd_bytes, quantized))
            if fresh or not os.path.exists(fw_json) or os.path.getmtime(size_elf) > os.path.getmtime(fw_json):
                # Sizes on this target's ABI (redone whenever the runtime changed), and the temp pool: the
                # kernels' scratch peak, measured by the host runtime with the same inputs.
                in_files = [] if not args.input else [os.path.join(d, f"input{i}.bin") for i in range(len(inputs))]
                temp = host_run(model, args.method, in_files, ptd)["memory"]["temp_used"]
                log(f"sizing the method on {board}", args.quiet)
                rc, out, err, _ = run_firmware(b, size_elf, args.timeout)
                res = parse_output(out)
                if res["E"]:
                    raise small_stack(args, b, device_error(res["E"])) or FwError(device_error(res["E"]))
                if rc != 0 or not res["Z"]:
                    raise small_stack(args, b, f"the sizing firmware exited with {rc}") or \
                        FwError(f"sizing firmware failed on {board} (exit {rc}): {out}{err}")
                z = res["Z"]
                sizes = {"method_allocator_bytes": z[0], "planned": z[2:2 + z[1]], "temp_bytes": temp,
                         "host_method_allocator_bytes": meth["method_allocator_bytes"]}
            else:
                with open(fw_json) as f:
                    sizes = json.load(f)
            if kernel_temp is not None and kernel_temp > sizes["temp_bytes"]:
                sizes["temp_bytes"] = kernel_temp
            if paths is None:
                sizes.pop("kernel_paths", None)
            else:
                sizes["kernel_paths"] = paths
                sizes["kernel_digest"] = kernel_sources_digest()
            # The firmware that asks the kernels' temp declarations is not shipped: it gets room for the
            # largest a kernel makes today (the depthwise plane, 720 B), so that it normally answers in
            # the same run that records the kernel paths, without a rebuild after a refused load.
            pool = sizes["temp_bytes"]
            if ask_temp and not ask_without_room:
                pool = max(pool, ASK_TEMP_POOL)
            # (re)written on every run: a newer runner always finds a matching header; unchanged -> no rebuild
            write_run_config(d, args.method, sizes["method_allocator_bytes"], pool, sizes["planned"],
                             inputs, meth["outputs"], args.device_verification, ptd_bytes is not None,
                             len(model_bytes) if args.program_in_ram else None)
            if fresh:
                log(f"building firmware (method pool {sizes['method_allocator_bytes']} B, planned {sizes['planned']}, "
                    f"temp {pool} B)", args.quiet)
            try:
                b.build(f"fw-{name}", "firmware build")  # a no-op when cached
            except MemoryOverflow as e:
                if pool != sizes["temp_bytes"]:  # the asking firmware's extra room did not fit: ask without it
                    ask_without_room = True
                    continue
                raise FwError(too_big_message(b, model_bytes, e, sizes, ptd_bytes, quantized))
            elf = os.path.join(d, "run", "firmware.elf")
            bound = stack_bound_of(b, target, elf) if args.lto else None
            if bound is not None and args.stack_bytes is None:
                # Reserve the bound plus the 256-byte guard the runner's overflow check watches; a new
                # reserve only relinks (the code, hence the bound, does not depend on it).
                want = (bound["bound"] + 256 + 63) & ~63
                have = section_sizes(b, elf).get(".stack")
                if args.stack_fit == "grow" and have is not None and want <= have:
                    want = have  # the bound fits in the reserve this build has: no relink
                if want != have:
                    prepare_model_dir(d, model_bytes, inputs, args.method, ops, want,
                                      [x.get("planned", True) for x in meth["inputs"]],
                                      info.get("kernel_dtypes_mask"), features, ptd_bytes, paths,
                                      embed_inputs=False, profile=args.profile)
                    b.ensure_configured(name)
                    try:
                        b.build(f"fw-{name}", "firmware build (stack sized by its bound)")
                    except MemoryOverflow as e:
                        raise FwError(too_big_message(b, model_bytes, e, sizes, ptd_bytes, quantized))
                    bound = stack_bound_of(b, target, elf)
                sizes["stack_reserve"] = want
            with open(fw_json, "w") as f:
                json.dump(sizes, f)
            if b.info["family"] == "cv32e40p":
                hexfile = os.path.join(d, "run", "firmware.hex")
                if not os.path.exists(hexfile) or os.path.getmtime(hexfile) < os.path.getmtime(elf):
                    run_cmd([OBJCOPY["cv32e40p"], "-O", "verilog", elf, hexfile], "objcopy -O verilog")
            secs = section_sizes(b, elf)
            # The firmware runs with this run's inputs: the built one when they are the bytes it
            # embeds, else a patched copy (run/inputs-<key>/), kept for the next run with them.
            run_elf = elf
            embedded = [None if x is None else open(os.path.join(d, f"input{i}.bin"), "rb").read()
                        for i, x in enumerate(inputs)]
            if embedded != inputs:
                variant = os.path.join(d, "run", f"inputs-{inputs_key}")
                run_elf = os.path.join(variant, "firmware.elf")
                if not os.path.exists(run_elf) or os.path.getmtime(run_elf) < os.path.getmtime(elf):
                    with_inputs(b, elf, inputs, variant)
                os.utime(variant)
                kept = sorted((os.path.join(d, "run", n) for n in os.listdir(os.path.join(d, "run"))
                               if n.startswith("inputs-")), key=os.path.getmtime)
                for old in kept[: max(0, len(kept) - INPUT_VARIANTS_KEPT)]:
                    shutil.rmtree(old, ignore_errors=True)
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                shutil.copytree(d, args.keep, dirs_exist_ok=True,
                                ignore=lambda _src, names: [n for n in names if n.startswith("inputs-")])
                shutil.copy(os.path.join(b.dir, "board.json"), args.keep)
                for i, x in enumerate(inputs):  # the kept firmware embeds this run's inputs
                    if x is not None:
                        write_if_changed(os.path.join(args.keep, f"input{i}.bin"), x)
                if run_elf != elf:
                    with_inputs(b, elf, inputs, os.path.join(args.keep, "run"))
                with open(os.path.join(args.keep, "README.txt"), "w") as f:
                    f.write(f"Firmware for {model} ({args.method}) on {board}, kept by ./etmcu run --keep.\n"
                            f"run/firmware.elf (+ .map, fw_config.h: the exact pool sizes), size/: the sizing firmware,\n"
                            f"model.S / firmware.cmake / *.bin: what the build embedded. It was built in {b.dir}:\n"
                            f"  cmake --build {b.dir} --target fw-{name}\n")
                elf = run_elf = os.path.join(os.path.abspath(args.keep), "run", "firmware.elf")

        t_build = time.time()
        load = None
        if args.program_in_ram:
            # What a loader hands over: "ETPB", the length, 8 bytes zero, the .pte (runner.cpp).
            blob = os.path.join(os.path.dirname(run_elf), "program.blob")
            write_if_changed(blob, b"ETPB" + struct.pack("<I", len(model_bytes)) + bytes(8) + model_bytes)
            addr = symbol_address(elf, "fw_program_buffer")
            if addr is None:
                raise FwError(f"no fw_program_buffer in {elf}")
            load = (blob, addr)
        rc, out, err, counts = run_firmware(b, run_elf, args.timeout, load)
        res = parse_output(out)
        if res["S"]:
            default = b.info.get("stack_bytes") or 0
            if args.stack_bytes is not None and args.stack_bytes < default:
                raise FwError(f"stack too small on {board}: --stack-bytes {args.stack_bytes} is below the board's default "
                              f"of {default} bytes, and the stack overflow check fired (the firmware's stack came within "
                              f"256 bytes of its bottom or ran past it; results are not trustworthy); rerun without "
                              f"--stack-bytes, or with --stack-bytes {2 * secs.get('.stack', 2048)} or more")
            raise FwError(f"stack overflow on {board}: the firmware's stack ({secs.get('.stack')} bytes) came within 256 "
                          f"bytes of its bottom or ran past it (results are not trustworthy); rerun with --stack-bytes {2 * secs.get('.stack', 2048)}")
        if res["E"] and paths is not None and attempt == 0 and res["E"]["phase"] == "e" and \
                ERRORS.get(res["E"]["error"]) == "NotSupported":
            # A kernel needed a path this build left out (its message is not kept on the device): a
            # mask from an earlier build whose kernels chose otherwise. Record the paths again (a
            # kernel that rejects its call for another reason fails the same way with every path).
            log("the kernel paths recorded for this program are stale: recording them again", args.quiet)
            paths = None
            continue
        e = res["E"]
        if e and ask_temp and e["phase"] == "c" and ERRORS.get(e["error"]) == "MemoryAllocationFailed" and \
                e["index"] < (1 << 63) and e["expected"] > e["got"] == pool:
            # The kernels this firmware links declared more temp than the host's run took (its
            # reference kernels; kernels/api/kernel.h temp_bytes): method load refused the pool and
            # said how much the call at `index` needs. Rebuild with that pool (only the runner's
            # config changes) and keep it for this program's later runs.
            log(f"the linked kernels declare a {e['expected']} B temp pool (instruction {e['index']}): rebuilding",
                args.quiet)
            kernel_temp = e["expected"]
            with b:
                b.store_kernel_temp(paths_key, kernel_temp)
            continue
        if res["E"]:
            raise small_stack(args, b, device_error(res["E"])) or FwError(device_error(res["E"]))
        if res["X"]:
            raise small_stack(args, b, f"a trap ({res['X']})") or \
                FwError(f"the firmware trapped on {board}: {res['X']} (X <cause> <pc>)")
        m = re.search(r"R13=([0-9a-f]{8})", err)
        if "Lockup" in err and m:
            limit = symbol_address(elf, "__stack_limit")
            if limit is not None and int(m.group(1), 16) < limit:
                # A --stack-bytes below the board's default is the cause to name (the run asked for it).
                raise small_stack(args, b, "a stack overflow that locked up the core") or \
                    FwError(f"stack overflow on {board}: SP 0x{m.group(1)} ran below the stack's bottom "
                            f"(0x{limit:08x}) and the core locked up; rerun with --stack-bytes "
                            f"{2 * secs.get('.stack', 2048)}")
            raise small_stack(args, b, "a lock-up (a fault inside the fault handler)") or \
                FwError(f"the firmware locked up on {board} (a fault inside the fault handler): {err.strip()}")
        if rc != 0 or res["T"] is None:
            raise small_stack(args, b, f"exit code {rc}, no timing report") or \
                FwError(f"firmware on {board} exited with {rc}:\n{out}{err}")

        if ask_temp:
            # The answer to the temp question (M's fourth field); the firmware that ships does not ask.
            kernel_temp = res["M"][3] if res["M"] and len(res["M"]) > 3 else 0
            with b:
                b.store_kernel_temp(paths_key, kernel_temp)
            if kernel_temp > pool:
                raise FwError(f"the device's method load declared {kernel_temp} B of temp for a "
                              f"{pool} B pool and did not refuse it; please report it")
        # (the firmware that ships is built again without the question, after any path recording)
        ask_again = ask_temp and not (args.device_verification or args.program_in_ram)
        if trims and paths is not None and attempt == 0 and res["K"] and len(res["K"]) > 1 and res["K"][1]:
            # A kernel asked for paths this build left out and fell back to a slower form with the
            # same results (K's second field): the mask is stale too. Record the paths again.
            log("the kernel paths recorded for this program are stale (the run wanted "
                f"{res['K'][1]:#x}): recording them again", args.quiet)
            paths = None
            continue
        if trims and paths is None and res["K"]:
            paths = res["K"][0]
            full_outputs = res["outputs"]
            sizes["kernel_paths"] = paths
            sizes["kernel_digest"] = kernel_sources_digest()
            with open(fw_json, "w") as f:
                json.dump(sizes, f)
            with b:
                b.store_kernel_paths(mask_key, paths)
            continue
        if ask_again:
            continue
        break
    if full_outputs is not None and full_outputs != res["outputs"]:
        raise FwError(f"the firmware built with this program's kernel paths ({paths:#x}) printed other outputs "
                      "than the one with every path; please report it (rerun with --kernel-paths all)")

    outputs = [decode_value(e) for e in sorted(res["outputs"], key=lambda e: e["index"])]
    t = res["T"]
    ticks = {"startup": t[0], "program_load": t[1] - t[0], "method_load": t[2] - t[1], "set_inputs": t[3] - t[2],
             "execute": t[4] - t[3], "print_outputs": t[5] - t[4]}
    method_used, temp_peak, stack_peak = res["M"][:3]
    if bound is not None and stack_peak > bound["bound"]:
        raise FwError(f"the painted stack peak ({stack_peak} B) exceeds the static bound ({bound['bound']} B): "
                      "tools/firmware/stack_bound.py missed a frame or a call; please report it")
    model_len = len(model_bytes)
    text = sum(v for k, v in secs.items() if k in (".text", ".text.start", ".vectors", ".init"))
    report_text = runner_report_bytes(os.path.splitext(elf)[0] + ".map")
    rodata = secs.get(".rodata", 0) + secs.get(".srodata", 0)
    data = secs.get(".data", 0) + secs.get(".sdata", 0) + secs.get(".tdata", 0)
    planned_total = sum((s + 15) // 16 * 16 for s in sizes["planned"])
    result = {
        "method": args.method,
        "outputs": outputs,
        "memory": {"planned": sizes["planned"], "method_allocator_used": method_used, "temp_used": temp_peak,
                   "method_allocator_bytes": sizes["method_allocator_bytes"], "temp_bytes": sizes["temp_bytes"],
                   "stack_peak": stack_peak},
        "target": target,
        "board": board,
        "firmware": run_elf,
        "device_verification": "internal_consistency" if args.device_verification or args.program_in_ram
        else "minimal",
        "program": "ram buffer" if args.program_in_ram else "embedded",
        "int8_kernels": b.info.get("cortex_m_variant", ""),
        # the kernel paths compiled in (kernels/api/kernel_paths.h): a mask, or "all"
        "kernel_paths": "all" if paths is None else f"{paths:#x}",
        "flash": {".text": text, ".rodata": rodata, ".data": data, "model": 0 if args.program_in_ram else model_len,
                  "external_data": len(ptd_bytes) if ptd_bytes is not None else 0,
                  "inputs": sum(len(x) for x in inputs if x), "total": text + rodata + data +
                  secs.get(".ARM.exidx", 0),
                  # .text without the runner's printing/measurement code (FW_REPORT in runner.cpp)
                  "runner_report": report_text, "shipped_text": text - report_text},
        "ram": {".data": data, ".bss": secs.get(".bss", 0), "planned": planned_total,
                "method": sizes["method_allocator_bytes"], "temp": sizes["temp_bytes"],
                "stack_reserved": secs.get(".stack", 0),
                "stack_fit": "given" if args.stack_bytes is not None else args.stack_fit,
                "stack_bound": bound["bound"] if bound is not None else None, "stack_peak": stack_peak,
                "total": data + secs.get(".bss", 0) + secs.get(".noinit", 0) + secs.get(".stack", 0)},
    }
    if bound is not None:
        result["stack_bound"] = {k: bound[k] for k in ("bound", "main", "interrupt", "trap", "path", "functions")}
    if args.profile:
        ops = {}
        p = run_cmd([CLI, "run", model, "--method", args.method, "--profile", "--json"] +
                    (["--data", ptd] if ptd else []), "host run", check=False)
        if p.returncode == 0:
            ops = {e["instruction"]: e["op"] for e in json.loads(p.stdout.strip().splitlines()[-1]).get("profile", [])}
        try:
            layers = {r["instruction"]: r for r in program_layers(model_bytes, args.method)}
        except Exception:  # noqa: BLE001 - no flatc, or an upstream program: names stay empty
            layers = {}
        result["profile"] = [{"instruction": i, "op": ops.get(i, "") or layers.get(i, {}).get("op", ""),
                              "layer": layers.get(i, {}).get("layer", ""),
                              "source": layers.get(i, {}).get("source", ""),
                              "macs": layers.get(i, {}).get("macs", 0), "start": start, "ticks": ticks}
                             for i, start, ticks in res["P"]]
        result["profile_dropped"] = (res["Q"] or [0])[0]
    if b.info["family"] == "cv32e40p":
        result["flash"]["note"] = "the testbench has one RAM: code and constants are loaded into it"
        total = counts["cycles"]
        result["cycles"] = dict(ticks, report_and_exit=total - t[5], total=total)
        result["instret"] = counts["instret"]
        result["verilog_hex"] = os.path.join(os.path.dirname(run_elf), "firmware.hex")
    else:
        marks = counts.get("marks", [])
        if len(marks) == 6 and "instructions" in counts:
            # exact, from the TCG plugin: the running count at each board_ticks() call
            names = list(ticks)
            result["instructions"] = {names[0]: marks[0]}
            result["instructions"].update({names[k]: marks[k] - marks[k - 1] for k in range(1, 6)})
            result["instructions"]["report_and_exit"] = counts["instructions"] - marks[5]
            result["instructions"]["total"] = counts["instructions"]
        else:
            ns_per_tick = 1e9 / b.info["tick_hz"]  # -icount shift=0: one instruction per virtual ns
            result["instructions"] = {k: round(v * ns_per_tick) for k, v in ticks.items()}
            result["instructions"]["resolution"] = ns_per_tick
        result["systick_ticks"] = ticks
    result["build_seconds"] = round(t_build - t0, 3)
    if args.json:
        print(json.dumps(result))
    else:
        for i, v in enumerate(outputs):
            print(f"output {i}: {text_of(v)}")
        if "cycles" in result:
            c = result["cycles"]
            print("cycles: " + ", ".join(f"{k} {v}" for k, v in c.items()))
        else:
            c = result["instructions"]
            how = f"SysTick, ±{c['resolution']:g}" if "resolution" in c else "exact, QEMU plugin"
            print(f"instructions ({how}): " + ", ".join(f"{k} {v}" for k, v in c.items() if k != "resolution"))
        print("flash: " + ", ".join(f"{k} {v}" for k, v in result["flash"].items() if k != "note"))
        print("ram: " + ", ".join(f"{k} {v}" for k, v in result["ram"].items()))
        print(f"firmware: {run_elf}")
        if args.profile:
            print_profile(result, b.info)
    return 0


def print_profile(result, info):
    """The per-instruction profile as a table: layer (module path), op, cycles (CV32E40P, exact)
    or instructions (QEMU: SysTick ticks x instructions per tick), MACs, MACs per cycle."""
    rows = []
    cv32 = info["family"] == "cv32e40p"
    per_tick = 1.0 if cv32 else 1e9 / info["tick_hz"]
    for r in result["profile"]:
        rows.append(dict(r, count=round(r["ticks"] * per_tick)))
    if cv32:
        note = ("profile (cycles per program instruction, exact; each includes the timing "
                "hooks' own ~100 cycles):")
        unit = "cycles"
    else:
        note = (f"profile (executed instructions per program instruction, from SysTick: "
                f"±{per_tick:g} each):")
        unit = "instr."
    print(format_profile(rows, unit, note))
    if result.get("profile_dropped"):
        print(f"({result['profile_dropped']} instructions not recorded: the profile buffer was full)")


def small_stack(args, b, what):
    """The error for a run that failed with a stack smaller than the board's default (--stack-bytes):
    such a stack overflows into the runtime's memory, which then fails in ways that do not say
    'stack' (InvalidProgram, traps, garbled output). None when the stack is not the likely cause."""
    default = b.info.get("stack_bytes") or 0
    if args.stack_bytes is None or args.stack_bytes >= default:
        return None
    return FwError(f"stack too small on {b.info['board']}: --stack-bytes {args.stack_bytes} is below the board's "
                   f"default of {default} bytes, and the run failed ({what.splitlines()[0]}): the stack overflowed "
                   f"into the runtime's memory. Rerun without --stack-bytes (or with --stack-bytes {default})")


def device_error(e):
    name = ERRORS.get(e["error"], hex(e["error"]))
    msg = f"{PHASES.get(e['phase'], e['phase'])} failed on the device: {name}"
    if e["index"] != (1 << 64) - 1 and e["index"] < (1 << 63):
        msg += f" (index {e['index']})"
    if e["got"] or e["expected"]:
        msg += f" (got {e['got']}, expected {e['expected']})"
    if e["name"]:
        msg += f" '{e['name']}'"
    return msg


def board_memory(board):
    """(flash bytes, RAM bytes) of a board from its boards/<board>/board.cmake (following its
    include of another board's file); flash 0 = one RAM holds code and data (CV32E40P)."""
    facts = {}

    def read(path):
        with open(path) as f:
            text = f.read()
        for inc in re.findall(r"include\(\$\{CMAKE_CURRENT_LIST_DIR\}/([^)]+)\)", text):
            read(os.path.normpath(os.path.join(os.path.dirname(path), inc)))
        for key, val in re.findall(r"set\((ETMCU_BOARD_(?:FLASH|RAM)_BYTES)\s+(\d+)\)", text):
            facts[key] = int(val)

    read(os.path.join(ROOT, "boards", board, "board.cmake"))
    return facts.get("ETMCU_BOARD_FLASH_BYTES", 0), facts.get("ETMCU_BOARD_RAM_BYTES", 0)


def too_big_message(b, model_bytes, e, sizes, ptd_bytes=None, quantized=True):
    """What does not fit, by how much, and what would: the boards (of any target) whose real
    memory holds it, and --quantize int8 for an fp32 program (about 4x fewer weight bytes)."""
    info = b.info
    region = {"RAM": "RAM", "FLASH": "flash"}.get(e.region, e.region)
    cap = info["ram_bytes"] if e.region == "RAM" else info["flash_bytes"]
    msg = (f"the model does not fit the {info['board']} board's {region} ({cap} bytes)"
           + (f": {e.excess} bytes too many" if e.excess else ""))
    msg += f"; the .pte is {len(model_bytes)} bytes" + (f", the .ptd {len(ptd_bytes)}" if ptd_bytes else "")
    if sizes:
        msg += (f", the method needs {sum(sizes['planned'])} B planned + {sizes['method_allocator_bytes']} B "
                f"method allocator + {sizes['temp_bytes']} B temp")
    # Which boards hold it (estimated from this overflow: the region's size + the excess).
    need = cap + (e.excess or 1)
    model_total = len(model_bytes) + (len(ptd_bytes) if ptd_bytes else 0)
    ram_part = (sum(sizes["planned"]) + sizes["method_allocator_bytes"] + sizes["temp_bytes"]) if sizes else 0
    one_ram_here = info["flash_bytes"] == 0
    fits = []
    for target, (_, default, alts) in TARGETS.items():
        for board in (default,) + alts:
            if board == info["board"]:
                continue
            try:
                flash, ram = board_memory(board)
            except OSError:
                continue
            if flash == 0:          # one RAM holds code, model and data
                ok = ram >= (need if one_ram_here else
                             need + (ram_part if e.region != "RAM" else model_total))
            elif one_ram_here:      # the model moves to flash, the data stays in RAM
                ok = flash >= model_total + 65536 and ram >= ram_part + 16384
            else:
                ok = (ram if e.region == "RAM" else flash) >= need
            if ok:
                fits.append(f"--target {target}" + ("" if board == default else f" --board {board}"))
    advice = []
    if not quantized:
        advice.append("export it with --quantize int8 (int8 weights: about 4x fewer constant bytes)")
    if fits:
        advice.append("run it on a board with more memory: " + ", ".join(fits))
    if not advice:
        advice.append("use a smaller model: no board etmcu supports has that much memory")
    msg += ". " + "; or ".join(a[0].upper() + a[1:] if i == 0 else a for i, a in enumerate(advice))
    return msg


if __name__ == "__main__":
    sys.exit(main())
