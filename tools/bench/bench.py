#!/usr/bin/python3
"""./etmcu bench: export the MLPerf Tiny zoo models (fp32 and int8), the seed's add model and the
upstream KeywordSpotting program, build bare-metal firmware for each, run it on the CV32E40P
simulator (exact cycles) and on the Cortex-M55 in QEMU (exact instruction counts), and write
bench/results/: results.csv, results.md, per_op.csv and PNG plots. docs/results.md explains them.

Nothing is estimated: a row whose export, build or run fails says so, with the error.
"""
import argparse
import csv
import hashlib
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
import opprof  # noqa: E402
from etmcu.layers import program_layers  # noqa: E402  (MACs of a user's program)

PY = "/usr/bin/python3"
ETMCU = os.path.join(ROOT, "etmcu")
FW = os.path.join(ROOT, "tools", "firmware", "etmcu_fw.py")
CLI = os.path.join(ROOT, "build", "host", "tools", "etmcu-cli")
SIM = os.path.join(ROOT, "build", "host", "sim", "etmcu-sim")
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
KWS = os.path.join(SHARED, "pte-corpus", "upstream", "examples__arduino__examples__KeywordSpotting__model.pte")
PUBLISHED = os.path.join(ROOT, "bench", "published.csv")
CLOCK_HZ = 400e6

ZOO = ["ds_cnn", "mobilenet_v1", "resnet8", "autoencoder"]
ALL_MODELS = ZOO + ["add", "kws_upstream"]
ALL_TARGETS = ["cv32e40p", "cv32e40p-pulp", "cortex-m55", "cortex-m33"]
# The firmware target (and board) behind each bench target. cv32e40p-pulp is the same core with its
# PULP extensions (Xpulp): only the int8 kernels use them (kernels/cortex_m/isa/xpulp), so it runs the
# int8 programs only; fp32 code would be the plain cv32e40p's, instruction for instruction.
TARGET_ARGS = {"cv32e40p": ["--target", "cv32e40p"],
               "cv32e40p-pulp": ["--target", "cv32e40p", "--board", "cv32e40p-pulp"],
               "cortex-m55": ["--target", "cortex-m55"],
               # the board added by following docs/porting.md (mps2-an505, DSP extension): int8 only
               "cortex-m33": ["--target", "cortex-m33"]}
TITLES = {"ds_cnn": "DS-CNN", "mobilenet_v1": "MobileNetV1-0.25", "resnet8": "ResNet-8",
          "autoencoder": "Autoencoder", "add": "add (seed)", "kws_upstream": "KWS (upstream .pte)"}
UNIT = {"cv32e40p": "cycles", "cv32e40p-pulp": "cycles", "cortex-m55": "instructions",
        "cortex-m33": "instructions"}


def runs_on(target, variant):
    return target not in ("cv32e40p-pulp", "cortex-m33") or "int8" in variant

T0 = time.time()


def progress(msg):
    print(f"[bench {int(time.time() - T0) // 60:02d}:{int(time.time() - T0) % 60:02d}] {msg}", file=sys.stderr,
          flush=True)


def one_line(text, limit=400):
    """The informative part of an error: the last non-empty lines, on one line."""
    lines = [ln.strip() for ln in (text or "").strip().splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith("[etmcu") or "error" in ln]
    s = " | ".join(lines[-3:]) if lines else "no output"
    return s if len(s) <= limit else s[: limit - 3] + "..."


def model_macs(name):
    """MAC count from the model file (MACS = ... in models/<name>.py), None if it has none."""
    path = os.path.join(ROOT, "models", f"{name}.py")
    if not os.path.exists(path):
        return None
    m = re.search(r"^MACS\s*=\s*([\d_]+)", open(path).read(), re.M)
    return int(m.group(1).replace("_", "")) if m else None


# ---------------------------------------------------------------------------------------------
# Programs


class Program:
    def __init__(self, model, variant, pte=None, macs=None):
        self.model, self.variant, self.pte, self.macs = model, variant, pte, macs
        self.error = None  # export error (then no target rows run)
        self.inputs = []
        self.ops = []
        self.host_profile = None
        self.naive_floor = None  # largest inputs+outputs of one op (bytes), from `./etmcu export`

    @property
    def key(self):
        return f"{self.model}/{self.variant}"


def export(prog, work, timeout):
    out = os.path.join(work, f"{prog.model}_{prog.variant}.pte")
    cmd = [ETMCU, "export", f"models/{prog.model}.py:Model", "-o", out]
    if prog.variant == "int8":
        # int8 I/O, as MLPerf Tiny feeds its int8 models: no float input buffer, no on-device
        # quantize/dequantize (the inputs below are quantized here with the program's scale).
        cmd += ["--quantize", "int8", "--int8-io"]
    if os.path.exists(out):
        os.remove(out)
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        prog.error = f"export timed out after {timeout} s"
        return
    if p.returncode != 0 or not os.path.exists(out):
        prog.error = f"export failed (`{' '.join(['./etmcu'] + cmd[1:])}`): {one_line(p.stderr + p.stdout)}"
        return
    prog.pte = out
    m = re.search(r"naive floor (\d+) B", p.stdout)
    prog.naive_floor = int(m.group(1)) if m else None


def inspect(prog):
    p = subprocess.run([CLI, "inspect", prog.pte, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        prog.error = f"inspect failed: {one_line(p.stderr + p.stdout)}"
        return None
    return json.loads(p.stdout)["methods"][0]


def make_inputs(prog, meth, work):
    """Seeded random inputs (standard normal floats, small ints), one raw .bin per input. An int8
    input with a recorded scale (int8 I/O) gets standard normal floats quantized with it, written
    in the tensor's dim order (raw .bin is the memory image)."""
    import numpy as np

    rng = np.random.default_rng(2026)
    files = []
    for i, x in enumerate(meth["inputs"]):
        if x["kind"] != "tensor":
            return []  # let the runner use the program's values
        n = 1
        for s in x["shape"]:
            n *= s
        dt = np.dtype(x["dtype"] if x["dtype"] != "bool" else np.bool_)
        if "scale" in x:
            f = rng.standard_normal(n).astype(np.float32) * np.float32(1.0 / x["scale"])
            a = np.clip(np.rint(f).astype(np.int64) + x["zero_point"], -128, 127).astype(np.int8)
            order = x.get("dim_order") or list(range(len(x["shape"])))
            a = a.reshape(x["shape"]).transpose(order).reshape(-1)
        elif dt.kind == "f":
            a = rng.standard_normal(n).astype(dt)
        elif dt.kind == "b":
            a = rng.integers(0, 2, n).astype(dt)
        else:
            a = rng.integers(-8, 8, n).astype(dt)
        path = os.path.join(work, f"{prog.model}_{prog.variant}.in{i}.bin")
        a.tofile(path)
        files.append(path)
    return files


def host_profile(prog):
    cmd = [CLI, "run", prog.pte, "--profile", "--json"]
    for f in prog.inputs:
        cmd += ["--input", f]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return f"host run failed: {one_line(p.stderr + p.stdout)}"
    prof = json.loads(p.stdout.strip().splitlines()[-1]).get("profile")
    if not prof:
        return "host runtime printed no profile"
    per_op = {}
    for e in prof:
        per_op[e["op"]] = per_op.get(e["op"], 0) + e["ticks"]
    return per_op


# ---------------------------------------------------------------------------------------------
# Firmware runs


def run_target(prog, target, timeout):
    row = base_row(prog, target)
    if prog.error:
        row["status"] = "unavailable"
        row["error"] = prog.error
        return row, None
    cmd = [PY, FW, prog.pte, *TARGET_ARGS[target], "--json", "--quiet", "--timeout", str(timeout)]
    for f in prog.inputs:
        cmd += ["--input", f]
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout + 900)
    except subprocess.TimeoutExpired:
        row["status"], row["error"] = "unavailable", f"firmware build/run timed out ({' '.join(cmd[1:4])})"
        return row, None
    last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    if p.returncode != 0 or not last.startswith("{"):
        row["status"] = "unavailable"
        row["error"] = one_line(p.stderr + p.stdout)
        return row, None
    fw = json.loads(last)
    counts = fw.get("cycles") or fw.get("instructions")
    row["status"] = "ok"
    row["execute"] = counts["execute"]
    row["total"] = counts["total"]
    row["ms_400mhz"] = row["execute"] / CLOCK_HZ * 1e3
    row["inferences_per_s"] = CLOCK_HZ / row["execute"] if row["execute"] else None
    if prog.macs:
        row["mac_per_count"] = prog.macs / row["execute"]
    ram, flash = fw["ram"], fw["flash"]
    for k, src in (("ram_planned", "planned"), ("ram_method", "method"), ("ram_temp", "temp"),
                   ("ram_data", ".data"), ("ram_bss", ".bss"), ("ram_stack_peak", "stack_peak")):
        row[k] = ram[src]
    row["ram_peak"] = sum(row[k] for k in ("ram_planned", "ram_method", "ram_temp", "ram_data", "ram_bss",
                                           "ram_stack_peak"))
    # Code: everything linked except the embedded .pte and test inputs (runtime, kernels, board, libc,
    # their constants and initialised data). Model: the .pte, kept whole in flash.
    row["flash_text"] = flash[".text"]
    row["flash_code"] = flash[".text"] + flash[".rodata"] - flash["model"] - flash["inputs"] + flash[".data"]
    row["flash_model"] = flash["model"]
    row["flash_total"] = row["flash_code"] + row["flash_model"]
    row["firmware"] = os.path.relpath(fw["firmware"], ROOT)
    # Which outputs it printed (the with/without-Xpulp table compares them).
    row["outputs_sha256"] = hashlib.sha256(json.dumps(fw["outputs"], sort_keys=True).encode()).hexdigest()
    return row, fw


def base_row(prog, target):
    return {"model": prog.model, "variant": prog.variant, "target": target, "unit": UNIT[target],
            "macs": prog.macs, "naive_floor": prog.naive_floor, "status": "", "error": ""}


def board_info(elf):
    """board.json of the firmware's build (build/firmware/<board>/models/<hash>/run/firmware.elf, or
    .../run/inputs-<key>/firmware.elf for a run whose inputs were patched into a copy)."""
    d = os.path.dirname(os.path.abspath(elf))
    for _ in range(6):
        if os.path.exists(os.path.join(d, "board.json")):
            with open(os.path.join(d, "board.json")) as f:
                return json.load(f)
        d = os.path.dirname(d)
    raise FileNotFoundError(f"no board.json above {elf}")


def cv32_op_profile(fw, ops):
    elf = fw["firmware"]
    config = board_info(elf).get("sim_config")
    p = subprocess.run([SIM, *(["--config", config] if config else []), elf, "--profile", "--mangled"], capture_output=True,
                       text=True, timeout=1800)
    if p.returncode != 0:
        return None, f"etmcu-sim --profile failed: {one_line(p.stderr + p.stdout)}"
    total, buckets = opprof.attribute(elf, p.stdout, ops)
    if total != fw["cycles"]["total"]:
        return None, f"profile run total {total} differs from the firmware run {fw['cycles']['total']}"
    return buckets, None


def qemu_op_profile(fw, ops, work):
    """Per-function instruction counts of the same Cortex-M firmware under QEMU (bench/qemu_profile
    plugin), attributed to operators like the CV32E40P profile."""
    import tempfile

    src = os.path.join(ROOT, "bench", "qemu_profile", "qemu_func_plugin.c")
    lib = os.path.join(work, "qemu_func_plugin.so")
    if not os.path.exists(lib) or os.path.getmtime(lib) < os.path.getmtime(src):
        p = subprocess.run(["gcc", "-shared", "-fPIC", "-O2", src, "-o", lib + ".tmp"], capture_output=True, text=True)
        if p.returncode != 0:
            return None, f"cannot build the QEMU profile plugin: {one_line(p.stderr)}"
        os.replace(lib + ".tmp", lib)
    elf = fw["firmware"]
    board = board_info(elf)
    p = subprocess.run([opprof.NM["arm"], "-S", "--defined-only", elf], capture_output=True, text=True)
    spans = [(int(f[0], 16) & ~1, int(f[1], 16)) for f in (ln.split() for ln in p.stdout.splitlines())
             if len(f) == 4 and f[2] in "tTW"]
    if not spans:
        return None, "no function symbols in the firmware ELF"
    base = min(a for a, _ in spans) & ~0xfff
    size = (max(a + n for a, n in spans) - base + 0xfff) & ~0xfff
    with tempfile.TemporaryDirectory(prefix="etmcu-bench-") as tmp:
        out = os.path.join(tmp, "prof.txt")
        cmd = ["qemu-system-arm", "-M", board["qemu_machine"], "-display", "none", "-monitor", "none", "-serial",
               "none", "-chardev", f"file,id=fwout,path={os.path.join(tmp, 'console.txt')}", "-semihosting-config",
               "enable=on,target=native,chardev=fwout", "-icount", "shift=0", "-kernel", elf, "-plugin",
               f"{lib},base={base:#x},size={size:#x},out={out}"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if p.returncode != 0 or not os.path.exists(out):
            return None, f"qemu with the profile plugin failed: {one_line(p.stderr + p.stdout)}"
        text = open(out).read()
    total, buckets = opprof.attribute(elf, text, ops, arch="arm")
    if total != fw["instructions"]["total"]:
        return None, f"profile run total {total} differs from the firmware run {fw['instructions']['total']}"
    return buckets, None


# ---------------------------------------------------------------------------------------------
# Output


CSV_FIELDS = ["model", "variant", "target", "status", "unit", "execute", "total", "ms_400mhz", "inferences_per_s",
              "macs", "mac_per_count", "ram_peak", "ram_planned", "naive_floor", "ram_method", "ram_temp", "ram_data", "ram_bss",
              "ram_stack_peak", "flash_code", "flash_text", "flash_model", "flash_total", "top_ops", "pub_ms",
              "pub_cycles", "pub_ram_kib", "pub_code_kib", "pub_source", "firmware", "error"]


def load_published():
    pub = {}
    with open(PUBLISHED) as f:
        for r in csv.DictReader(f):
            pub[(r["model"], r["target"])] = r
    return pub


def attach_published(row, pub):
    p = pub.get((row["model"], row["target"]))
    if not p or p["precision"] != row["variant"]:
        return  # published figures sit beside the comparable row only (same model, target, precision)
    row["pub_ms"] = p["latency_ms"]
    row["pub_cycles"] = p["cycles"]
    row["pub_ram_kib"] = p["peak_ram_kib"]
    row["pub_code_kib"] = p["code_kib"]
    row["pub_source"] = f"{p['precision']} {p['target']}: {p['source']}"


def fmt_int(x):
    return "" if x in (None, "") else f"{int(x):,}"


def kib(x):
    return "" if x in (None, "") else f"{x / 1024:.2f}"


def top_ops_text(buckets, total, n=3):
    items = sorted(buckets.items(), key=lambda kv: -kv[1])[:n]
    return "; ".join(f"{k} {100 * v / total:.1f}%" for k, v in items)


def group_bucket(name):
    """Per-op plot/summary bucket: soft-float helpers shared by several kernels are grouped; the
    int8 dot products of the optimised conv/linear kernels (kernels/cortex_m/isa/<isa>/int8_dot.h,
    not inlined on purpose with Xpulp) are named for what calls them."""
    if name.startswith("shared: etmcu::kernels::int8::dot("):
        return "cortex_m conv/linear int8 dot products"
    if name.startswith("shared: __"):
        return "shared libgcc helpers (soft-float etc.)"
    if name.startswith("shared: "):
        return "shared helpers (memcpy, kernel utils)"
    return name


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            out = {k: r.get(k, "") for k in CSV_FIELDS}
            for k in ("ms_400mhz", "inferences_per_s"):
                if isinstance(out[k], float):
                    out[k] = f"{out[k]:.4f}"
            if isinstance(out["mac_per_count"], float):
                out["mac_per_count"] = f"{out['mac_per_count']:.5f}"
            w.writerow(out)


def notes_lines():
    return [
         "* **cv32e40p**: exact cycles from the project's cycle-exact CV32E40P simulator (etmcu-sim). "
         "ms and inferences/s at 400 MHz; MAC/cycle.",
         "* **cv32e40p-pulp**: the same core with its PULP extensions (Xpulp) and the int8 kernels built for them "
         "(`cv.sdotsp.b` dot products, kernels/cortex_m/isa/xpulp); exact cycles from etmcu-sim with the extensions on. "
         "int8 programs only: no fp32 kernel uses the extensions.",
         "* **cortex-m55**: exact *instruction* counts from QEMU (mps3-an547, TCG plugin). QEMU is not "
         "cycle-accurate: ms, inferences/s and MAC/instr. are computed as if one instruction took one cycle "
         "at 400 MHz (IPC = 1), marked with ~.",
         "* **cortex-m33**: the same on QEMU mps2-an505 (the board docs/porting.md adds; the `dsp` int8 "
         "kernels, SMLAD); int8 programs only.",
         "* Latency figures are the `execute` phase (one inference); `total` includes start-up, program and "
         "method load and printing the outputs.",
         "* Peak RAM = planned + method allocator + temp + .data + .bss + peak stack (measured), in bytes. "
         "Flash: code = everything linked except the .pte (runtime, kernels, board, libc); model = the .pte.",
         "* Published: ExecuTorch Cortex-M backend, int8, Cortex-M55 at 400 MHz (Alif E8), from "
         "`shared/seeds/executorch-cortex-m-backend.md`; add baseline: 11,333,312 cycles on CV32E40P from "
         "`shared/seeds/executorch-runtime-cv32e40p.rst`. Data in bench/published.csv.",
         "* int8 rows: programs exported with `--quantize int8 --int8-io` (int8 inputs and outputs, as MLPerf "
         "Tiny feeds its int8 models: no float input buffer, no on-device quantize/dequantize); the bench "
         "quantizes its seeded standard-normal inputs with the scale and zero point the program records."]


def table_lines(rows):
    L = ["| model | variant | target | execute | total | ms @400MHz | inf/s | MACs | MAC/count | peak RAM "
         "(planned + method + temp + .data + .bss + stack) | flash code | flash model | top ops (share of the "
         "run's cycles / instructions) | published ms | published cycles | published RAM KiB | published code KiB |",
         "|" + "---|" * 17]
    for r in rows:
        if r["status"] != "ok":
            pub = [r.get("pub_ms", ""), fmt_int(r.get("pub_cycles")), r.get("pub_ram_kib", ""),
                   r.get("pub_code_kib", "")]
            err = r["error"].replace("|", "/").replace("\n", " ")
            L.append(f"| {TITLES[r['model']]} | {r['variant']} | {r['target']} | **unavailable**: {err} |"
                     + " |" * 9 + " " + " | ".join(pub) + " |")
            continue
        approx = "~" if r["unit"] == "instructions" else ""
        unit = "cycles" if r["unit"] == "cycles" else "instr."
        mpc = f"{approx}{r['mac_per_count']:.4f}" if r.get("mac_per_count") else "n/a (no MAC count)"
        if r["model"] == "add":
            mpc = "n/a (0 MACs)"
        ram = (f"{fmt_int(r['ram_peak'])} ({kib(r['ram_peak'])} KiB) = {fmt_int(r['ram_planned'])} + {fmt_int(r['ram_method'])} + "
               f"{fmt_int(r['ram_temp'])} + {fmt_int(r['ram_data'])} + {fmt_int(r['ram_bss'])} + "
               f"{fmt_int(r['ram_stack_peak'])}")
        L.append(
            f"| {TITLES[r['model']]} | {r['variant']} | {r['target']} | {fmt_int(r['execute'])} {unit} | "
            f"{fmt_int(r['total'])} | {approx}{r['ms_400mhz']:.3f} | {approx}{r['inferences_per_s']:.2f} | "
            f"{fmt_int(r['macs']) or 'n/a'} | {mpc} | {ram} | {fmt_int(r['flash_code'])} ({kib(r['flash_code'])} KiB) | "
            f"{fmt_int(r['flash_model'])} ({kib(r['flash_model'])} KiB) | {r.get('top_ops', '') or 'n/a'} | {r.get('pub_ms', '')} | "
            f"{fmt_int(r.get('pub_cycles'))} | {r.get('pub_ram_kib', '')} | {r.get('pub_code_kib', '')} |")
    return L


def source_state():
    """The commit measured, and whether tracked sources differed from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.split("\n")
        dirty = [ln[3:] for ln in dirty if ln.strip()]
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    if not dirty:
        return f"commit {head}, clean tree"
    return f"commit {head} with {len(dirty)} modified tracked files ({', '.join(dirty[:6])}{', ...' if len(dirty) > 6 else ''})"


def comparison_lines(rows, pub):
    """Our int8 Cortex-M55 rows against the published figures, and the add run against the seed's."""
    L = ["| model | ours: int8 Cortex-M55 instructions (execute) | published M55 cycles | ratio | ours: peak RAM KiB "
         "| published KiB | ours: code KiB | published KiB | ours: model KiB | published KiB |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    by = {(r["model"], r["variant"], r["target"]): r for r in rows}
    for m in ZOO:
        p, r = pub.get((m, "cortex-m55")), by.get((m, "int8", "cortex-m55"))
        if not p or r is None:
            continue
        if r["status"] != "ok":
            L.append(f"| {TITLES[m]} | unavailable: {r['error'][:200]} | {fmt_int(p['cycles'])} | | | "
                     f"{p['peak_ram_kib']} | | {p['code_kib']} | | {p['model_flash_kib']} |")
            continue
        L.append(f"| {TITLES[m]} | {fmt_int(r['execute'])} | {fmt_int(p['cycles'])} | "
                 f"{r['execute'] / float(p['cycles']):.1f}x | {kib(r['ram_peak'])} | {p['peak_ram_kib']} | "
                 f"{kib(r['flash_code'])} | {p['code_kib']} | {kib(r['flash_model'])} | {p['model_flash_kib']} |")
    if len(L) == 2:
        L = ["(no int8 Cortex-M55 zoo rows in this run)"]
    p, r = pub.get(("add", "cv32e40p")), by.get(("add", "fp32", "cv32e40p"))
    if p and r is not None and r["status"] == "ok":
        L += ["", f"add on the CV32E40P, whole run (reset to exit): ours {fmt_int(r['total'])} cycles, the seed's "
              f"{fmt_int(p['cycles'])} cycles: {float(p['cycles']) / r['total']:.0f}x fewer "
              f"(execute phase alone: {fmt_int(r['execute'])} cycles)."]
    return L + xpulp_lines(rows) + memory_lines(rows, pub)


def memory_lines(rows, pub):
    """int8 activation memory on the CV32E40P against the naive floor and ExecuTorch's peak RAM."""
    L = ["| model | planned B | naive floor B | planned/floor | planned + method + stack KiB | "
         "published peak RAM KiB | ratio |", "|---|---|---|---|---|---|---|"]
    by = {(r["model"], r["variant"], r["target"]): r for r in rows}
    for m in ZOO:
        r, p = by.get((m, "int8", "cv32e40p")), pub.get((m, "cortex-m55"))
        if r is None or r["status"] != "ok":
            continue
        fl = r.get("naive_floor")
        peak = r["ram_planned"] + r["ram_method"] + r["ram_stack_peak"]
        pk = float(p["peak_ram_kib"]) if p else None
        L.append(f"| {TITLES[m]} | {fmt_int(r['ram_planned'])} | {fmt_int(fl) if fl else ''} | "
                 f"{r['ram_planned'] / fl:.3f} | {kib(peak)} | {pk if pk else ''} | "
                 f"{f'{peak / 1024 / pk:.2f}x' if pk else ''} |" if fl else
                 f"| {TITLES[m]} | {fmt_int(r['ram_planned'])} | | | {kib(peak)} | {pk or ''} | |")
    if len(L) == 2:
        return []
    return ["", "int8 activation memory on the CV32E40P (int8 I/O programs): planned bytes against the naive "
            "floor (largest inputs + outputs of one operator, printed by `./etmcu export`), and planned + "
            "method allocator + measured peak stack against ExecuTorch's published peak RAM:", ""] + L


def xpulp_lines(rows):
    """What the PULP extensions buy on the CV32E40P: the same int8 programs with and without them."""
    by = {(r["model"], r["variant"], r["target"]): r for r in rows}
    L = ["| model | CV32E40P int8 cycles (execute) | with Xpulp | speed-up | code KiB | with Xpulp | outputs |",
         "|---|---|---|---|---|---|---|"]
    for (m, v, t), x in by.items():
        plain = by.get((m, v, "cv32e40p"))
        if t != "cv32e40p-pulp" or plain is None or "ok" != x["status"] or "ok" != plain["status"]:
            continue
        L.append(f"| {TITLES[m]} | {fmt_int(plain['execute'])} | {fmt_int(x['execute'])} | "
                 f"{plain['execute'] / x['execute']:.2f}x | {kib(plain['flash_code'])} | {kib(x['flash_code'])} | "
                 f"{'identical' if plain.get('outputs_sha256') == x.get('outputs_sha256') else '**differ**'} |")
    if len(L) == 2:
        return []
    return ["", "The CV32E40P with and without its PULP extensions (same programs and inputs; outputs: whether "
            "the two firmware runs printed the same output bits):", ""] + L


def reading_lines(rows):
    """The comparisons docs/results.md's "Reading the results" explains, from this run: fp32 against
    int8, int8 code per target, and upstream's KWS against our DS-CNN export. Generated so that the
    prose never quotes a stale figure."""
    by = {(r["model"], r["variant"], r["target"]): r for r in rows}

    def ok(r):
        return r is not None and r["status"] == "ok"

    def ratio(a, b):
        return f"{a['execute'] / b['execute']:.1f}x" if ok(a) and ok(b) else "unavailable"

    L = []
    T = ["| model | CV32E40P: fp32 / int8 cycles | Cortex-M55: fp32 / int8 instructions |", "|---|---|---|"]
    for m in ZOO:
        f, i = by.get((m, "fp32", "cv32e40p")), by.get((m, "int8", "cv32e40p"))
        if ok(f) and ok(i):
            T.append(f"| {TITLES[m]} | {ratio(f, i)} | "
                     f"{ratio(by.get((m, 'fp32', 'cortex-m55')), by.get((m, 'int8', 'cortex-m55')))} |")
    if len(T) > 2:
        L += ["", "fp32 against int8 (execute phase, the same model):", ""] + T
    pub = load_published()
    T = ["| model | CV32E40P int8 | with Xpulp | Cortex-M55 int8 | Cortex-M33 int8 | published (M55) |",
         "|---|---|---|---|---|---|"]
    for m in ZOO + ["kws_upstream"]:
        cells = []
        for t in ("cv32e40p", "cv32e40p-pulp", "cortex-m55", "cortex-m33"):
            r = next((r for (mm, v, tt), r in by.items() if mm == m and tt == t and v.startswith("int8")), None)
            cells.append(kib(r["flash_code"]) if ok(r) else "")
        if any(cells):
            p = pub.get((m, "cortex-m55"))
            T.append(f"| {TITLES[m]} | " + " | ".join(cells) + f" | {p['code_kib'] if p else ''} |")
    if len(T) > 2:
        L += ["", "int8 code (flash code KiB: runtime, kernels, board, libc; the program not included):", ""] + T
    kws = {t: r for (m, v, t), r in by.items() if m == "kws_upstream" and ok(r)}
    parts = [f"{t} {100 * (r['execute'] / by[('ds_cnn', 'int8', t)]['execute'] - 1):+.1f} %"
             for t, r in kws.items() if ok(by.get(("ds_cnn", "int8", t)))]
    if parts:
        L += ["", "Upstream's KWS program against our int8 DS-CNN export (the same operators and shapes; execute "
              "phase, upstream's relative to ours): " + ", ".join(parts) + "."]
    return L


def write_md(path, rows, per_op, meta):
    L = ["# etmcu benchmark results", "",
         f"Generated by `{meta['command']}` on {meta['date']} ({meta['wall']:.0f} s wall), sources: "
         f"{meta.get('source', '?')}. See docs/results.md for the method and caveats.", ""]
    L += notes_lines() + [""] + table_lines(rows)
    L += ["", "## Against the published figures", "",
          "The instruction/cycle ratio is not a time ratio: QEMU counts instructions, the published figures are "
          "cycles.", ""] + comparison_lines(rows, load_published()) + reading_lines(rows)
    L += ["", "## Per-operator breakdown", "",
          "CV32E40P: cycles per operator from the simulator's exact per-function profile of the same firmware "
          "(`etmcu-sim --profile`). Cortex-M55: executed instructions per operator from a second QEMU run of the "
          "same firmware with bench/qemu_profile's plugin (exact counts per instruction address, summed per "
          "function). Both are attributed by tools/bench/opprof.py: a kernel's own functions and the helpers only "
          "it calls are charged to its operator; helpers that several kernels call (libgcc soft-float, memcpy, "
          "kernel utilities) are exact totals kept in separate `shared` buckets, because a flat profile cannot say "
          "which caller spent them; `runtime` is everything outside the kernels (start-up, load, executor loop, "
          "report). Host: nanoseconds per operator from `./etmcu run --profile` on this x86 machine (labelled "
          "host; not target cycles).", ""]
    cols = (("cv32e40p", "cv32e40p cycles"), ("cv32e40p-pulp", "cv32e40p-pulp cycles"),
            ("cortex-m55", "cortex-m55 instructions"), ("cortex-m33", "cortex-m33 instructions"),
            ("host", "host ns"))
    for key, d in per_op.items():
        L.append(f"### {key}")
        L.append("")
        present = [(src, title) for src, title in cols if isinstance(d.get(src), dict)]
        if present:
            L.append("| operator / bucket | " + " | ".join(f"{t} | share" for _, t in present) + " |")
            L.append("|---|" + "---|---|" * len(present))
            tots = {src: sum(d[src].values()) or 1 for src, _ in present}
            names = sorted(set().union(*(d[src] for src, _ in present)),
                           key=lambda k: -sum(d[src].get(k, 0) / tots[src] for src, _ in present))
            for k in names:
                cells = []
                for src, _ in present:
                    v = d[src].get(k)
                    cells.append(f"{fmt_int(v)} | {'' if v is None else f'{100 * v / tots[src]:.2f}%'}")
                L.append(f"| {k} | " + " | ".join(cells) + " |")
        for src, _ in cols:
            if d.get(f"{src}_error"):
                L.append(f"\n{src} per-operator profile unavailable: {d[src + '_error']}")
        L.append("")
    L += ["## Plots", "", "![cycles](cycles.png)", "", "![memory](memory.png)", "", "![per-op](per_op.png)", ""]
    with open(path, "w") as f:
        f.write("\n".join(L))


DOC_START, DOC_END = "<!-- bench:table:start -->", "<!-- bench:table:end -->"


def update_docs(path, rows, meta):
    """Replace the generated block of docs/results.md (between the markers) with this run's table."""
    text = open(path).read()
    a, b = text.index(DOC_START) + len(DOC_START), text.index(DOC_END)
    block = ["", f"Generated by `{meta['command']}` on {meta['date']} ({meta['wall']:.0f} s wall), sources: "
             f"{meta.get('source', '?')}; the same "
             "table with the per-operator tables is in [bench/results/results.md](../bench/results/results.md), "
             "the numbers in [results.csv](../bench/results/results.csv) and "
             "[per_op.csv](../bench/results/per_op.csv).", ""] + notes_lines() + [""] + table_lines(rows) + \
        ["", "Against the published figures (the instruction/cycle ratio is not a time ratio: QEMU counts "
         "instructions, the published figures are cycles):", ""] + comparison_lines(rows, load_published()) + \
        reading_lines(rows) + [""]
    with open(path, "w") as f:
        f.write(text[:a] + "\n".join(block) + text[b:])


def write_per_op_csv(path, per_op):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "variant", "source", "bucket", "value", "unit", "share"])
        for key, d in per_op.items():
            model, variant = key.split("/")
            for src, label, unit in (("cv32e40p", "cv32e40p (etmcu-sim)", "cycles"),
                                     ("cv32e40p-pulp", "cv32e40p-pulp (etmcu-sim)", "cycles"),
                                     ("cortex-m55", "cortex-m55 (QEMU)", "instructions"),
                                     ("cortex-m33", "cortex-m33 (QEMU)", "instructions"), ("host", "host", "ns")):
                b = d.get(src)
                if not isinstance(b, dict):
                    continue
                tot = sum(b.values()) or 1
                for k, v in sorted(b.items(), key=lambda kv: -kv[1]):
                    w.writerow([model, variant, label, k, v, unit, f"{v / tot:.5f}"])


# ---------------------------------------------------------------------------------------------


def portable_args(argv):
    """The command line as the results record it, without this machine's paths: an absolute path
    inside the repository relative to it, one outside (a scratch --work or --output directory, a
    user's program) as W, OUT or its file name."""
    out, prev = [], None
    for a in argv:
        opt, eq, val = a.partition("=") if a.startswith("--") and "=" in a else ("", "", a)
        if os.path.isabs(val):
            rel = os.path.relpath(val, ROOT)
            key = opt if eq else prev
            val = rel if not rel.startswith("..") else \
                {"--work": "W", "--output": "OUT"}.get(key, os.path.basename(val))
        out.append(opt + eq + val if eq else val)
        prev = a
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="etmcu bench", description=__doc__.split("\n\n")[0])
    def choice_list(allowed, allow_pte=False):
        def parse(text):
            items = [x for x in text.split(",") if x]
            bad = [x for x in items if x not in allowed and not (allow_pte and x.endswith(".pte"))]
            if bad:
                raise argparse.ArgumentTypeError(f"unknown {', '.join(bad)} (choose from {' '.join(allowed)})")
            return items
        return parse

    ap.add_argument("--models", nargs="+", type=choice_list(ALL_MODELS, allow_pte=True), metavar="MODEL",
                    help=f"subset of {' '.join(ALL_MODELS)}, or your own programs (FILE.pte: fp32 or "
                         "int8, run as they are) (space or comma separated; default: all)")
    ap.add_argument("--targets", nargs="+", type=choice_list(ALL_TARGETS), metavar="TARGET",
                    help=f"subset of {' '.join(ALL_TARGETS)} (default: all)")
    ap.add_argument("--variants", nargs="+", type=choice_list(["fp32", "int8"]), default=[["fp32", "int8"]],
                    help="zoo model precisions (default: fp32 int8)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: the add model on cv32e40p only (unless --models/--targets are "
                         "given); checks that the bench runs, not its numbers")
    ap.add_argument("--output", default=None,
                    help="output directory (default build/bench/results, a scratch folder; "
                         "--update-results writes the committed bench/results)")
    ap.add_argument("--update-results", action="store_true",
                    help="write the committed results, bench/results (the default output is a scratch "
                         "folder, so a quick run never overwrites them)")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench"), help="exported programs, inputs")
    ap.add_argument("--timeout", type=int, default=600, help="per firmware run, seconds")
    ap.add_argument("--no-op-profile", action="store_true", help="skip the per-operator profiles")
    ap.add_argument("--update-docs", action="store_true",
                    help="also rewrite the generated table in docs/results.md (between its markers)")
    args = ap.parse_args(argv)
    for k in ("models", "targets", "variants"):
        if getattr(args, k):
            setattr(args, k, list(dict.fromkeys(x for group in getattr(args, k) for x in group)))
    models = args.models or (["add"] if args.quick else ALL_MODELS)
    targets = args.targets or (["cv32e40p"] if args.quick else ALL_TARGETS)
    variants = ["fp32"] if args.quick and not args.models else args.variants
    if args.update_docs and args.output is None:
        args.update_results = True      # the docs table links the committed results
    if args.output is None:
        args.output = os.path.join(ROOT, "bench", "results") if args.update_results else \
            os.path.join(ROOT, "build", "bench", "results")
    elif args.update_results and os.path.abspath(args.output) != os.path.join(ROOT, "bench", "results"):
        sys.exit("etmcu bench: --update-results writes bench/results; leave out --output")
    os.makedirs(args.output, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    for tool in (CLI, SIM):
        if not os.path.exists(tool):
            sys.exit(f"etmcu bench: {tool} is not built; run ./etmcu build (./etmcu bench does it)")

    progs = []
    for m in models:
        if m.endswith(".pte"):
            # a user's own program: run as it is; fp32 or int8 from its operators, MACs from its layers
            if not os.path.exists(m):
                sys.exit(f"etmcu bench: no such file: {m}")
            data = open(m, "rb").read()
            variant = "int8" if b"cortex_m::" in data else "fp32"
            try:
                macs = sum(r["macs"] for r in program_layers(data)) or None
            except Exception:  # noqa: BLE001 - a program flatc cannot decode: no MAC count
                macs = None
            name = os.path.splitext(os.path.basename(m))[0]
            TITLES.setdefault(name, f"{name} (.pte)")
            progs.append(Program(name, variant, pte=os.path.abspath(m), macs=macs))
        elif m == "add":
            progs.append(Program("add", "fp32", macs=0))
        elif m == "kws_upstream":
            pr = Program("kws_upstream", "int8 (upstream)", pte=KWS)
            if not os.path.exists(KWS):
                pr.error = f"not found: {KWS}"
            progs.append(pr)
        else:
            for v in variants:
                progs.append(Program(m, v, macs=model_macs(m)))
    n_runs = sum(runs_on(t, pr.variant) for pr in progs for t in targets)
    progress(f"{len(progs)} programs x {len(targets)} targets = {n_runs} runs (cv32e40p-pulp, cortex-m33: "
             "int8 only) -> "
             f"{args.output}")

    # 1. export + inputs + host profile
    for i, pr in enumerate(progs):
        if pr.pte is None and not pr.error:
            progress(f"export {i + 1}/{len(progs)}: {pr.key}")
            export(pr, args.work, timeout=600)
        if pr.error:
            progress(f"  {pr.key}: unavailable: {pr.error}")
            continue
        meth = inspect(pr)
        if meth is None:
            continue
        pr.ops = meth["operators"]
        pr.inputs = make_inputs(pr, meth, args.work)
        if not args.no_op_profile:
            pr.host_profile = host_profile(pr)

    # 2. firmware runs
    pub = load_published()
    rows, per_op, k = [], {}, 0
    for pr in progs:
        d = per_op.setdefault(pr.key, {})
        if isinstance(pr.host_profile, dict):
            d["host"] = pr.host_profile
        elif pr.host_profile:
            d["host_error"] = pr.host_profile
        for t in targets:
            if not runs_on(t, pr.variant):
                continue
            k += 1
            progress(f"run {k}/{n_runs}: {pr.key} on {t} ...")
            t1 = time.time()
            row, fw = run_target(pr, t, args.timeout)
            attach_published(row, pub)
            if fw and not args.no_op_profile:
                if t.startswith("cv32e40p"):
                    progress(f"  per-op profile of {pr.key} on {t} (etmcu-sim --profile)")
                    buckets, err = cv32_op_profile(fw, pr.ops)
                else:
                    progress(f"  per-op profile of {pr.key} on {t} (QEMU, bench/qemu_profile plugin)")
                    buckets, err = qemu_op_profile(fw, pr.ops, args.work)
                if buckets:
                    d[t] = buckets
                    grouped = {}
                    for b, v in buckets.items():
                        grouped[group_bucket(b)] = grouped.get(group_bucket(b), 0) + v
                    row["top_ops"] = top_ops_text(grouped, sum(grouped.values()))
                else:
                    d[f"{t}_error"] = err
            if row["status"] == "ok":
                progress(f"  {pr.key} on {t}: {row['execute']:,} {row['unit']} (execute), "
                         f"{row['ms_400mhz']:.3f} ms @400MHz, peak RAM {row['ram_peak']:,} B, "
                         f"code {row['flash_code']:,} B + model {row['flash_model']:,} B [{time.time() - t1:.0f} s]")
            else:
                progress(f"  {pr.key} on {t}: unavailable: {row['error'][:300]}")
            rows.append(row)

    # 3. outputs
    meta = {"command": "./etmcu bench " + " ".join(portable_args(argv if argv is not None
                                                                 else sys.argv[1:])),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "wall": time.time() - T0,
            "source": source_state()}
    write_csv(os.path.join(args.output, "results.csv"), rows)
    write_per_op_csv(os.path.join(args.output, "per_op.csv"), per_op)
    write_md(os.path.join(args.output, "results.md"), rows, per_op, meta)
    with open(os.path.join(args.output, "results.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows, "per_op": per_op}, f, indent=1, sort_keys=True)
    if args.update_docs:
        update_docs(os.path.join(ROOT, "docs", "results.md"), rows, meta)
    import plots

    plots.all_plots(args.output, rows, per_op, pub, group_bucket)
    ok = sum(r["status"] == "ok" for r in rows)
    progress(f"done: {ok}/{len(rows)} runs ok, results in {args.output} ({time.time() - T0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
