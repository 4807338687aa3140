"""Per-operator cycle breakdown of a CV32E40P firmware run, from the simulator's exact per-function
profile (`etmcu-sim --profile`: the cycles charged to every ELF function, its own stalls included).

The firmware runner does not time operators on the device (boards/common/runner.cpp prints only the
phase ticks), so the breakdown is reconstructed from where the cycles went:

* a function that belongs to an operator's kernel (its kernel entry point, e.g.
  `etmcu::kernels::aten_convolution_out`, or a template/lambda instantiated inside it, whose
  demangled name contains the entry point) is charged to that operator;
* any other function (soft-float and libgcc helpers, memcpy, kernel utilities) is charged to the one
  operator whose kernel can reach it in the static call graph (objdump of the same ELF, stopping at
  other kernels); when several kernels can reach it, its cycles stay in a separate, explicitly
  labelled bucket "shared: <function>" (exact total, not split: the profile is flat and does not
  say which caller spent them);
* functions no kernel reaches (start-up, program/method load, the executor loop, output printing)
  form the "runtime (load, executor, startup, report)" bucket.

Every cycle of the run is in exactly one bucket; the buckets sum to the simulator's total.
"""
import re
import subprocess
from collections import defaultdict

OBJDUMP = {"riscv": "riscv64-unknown-elf-objdump", "arm": "arm-none-eabi-objdump"}
NM = {"riscv": "riscv64-unknown-elf-nm", "arm": "arm-none-eabi-nm"}
RUNTIME = "runtime (load, executor, startup, report)"


def kernel_symbol(op):
    """'aten::convolution.out' -> 'aten_convolution_out' (kernels/*/..._ops.h naming)."""
    return op.replace("::", "_").replace(".", "_")


def demangle(names):
    if not names:
        return {}
    p = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    out = p.stdout.splitlines() if p.returncode == 0 else names
    if len(out) != len(names):
        out = names
    return dict(zip(names, out))


def call_graph(elf, arch="riscv"):
    """caller -> set of callees (direct calls and tail calls to function entries, and functions
    whose address the caller computes)."""
    p = subprocess.run([OBJDUMP[arch], "-d", "--no-show-raw-insn", elf], capture_output=True, text=True)
    return parse_call_graph(p.stdout)


def parse_call_graph(disassembly):
    """call_graph's edges from objdump -d output."""
    graph = defaultdict(set)
    cur = None
    head = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
    call = re.compile(r"\t(?:jal|j|call|tail|c\.j|c\.jal|bl|blx|b|b\.w|b\.n)\s+(?:\w+,)?\s*[0-9a-f]+ <([^>+]+)>\s*$")
    # an address computed in code (`addi a5,a5,-712 # 7d38 <fn>`): a function the caller may call
    # through a register (the micro-kernels' subroutines that a block names: PointwiseBlock's
    # requant_fn, rows_fn), or data, which no profile row names
    ref = re.compile(r"\s#\s*[0-9a-f]+ <([^>+]+)>\s*$")
    for line in disassembly.splitlines():
        m = head.match(line)
        if m:
            # (local labels that --emit-relocs keeps in the symbol table are not functions: the
            # code after them is still the current function's)
            if not m.group(1).startswith(".L"):
                cur = m.group(1)
            continue
        if cur is None:
            continue
        m = call.search(line) or ref.search(line)
        if m and m.group(1) != cur:
            graph[cur].add(m.group(1))
    return graph


def parse_profile(text):
    """etmcu-sim --profile stdout -> (total cycles, [(function, cycles, instructions)])."""
    total, rows, on = None, [], False
    for line in text.splitlines():
        m = re.match(r"^cycles=(\d+) instret=(\d+)$", line)
        if m:
            total = int(m.group(1))
            continue
        if line.startswith("profile:"):
            on = True
            continue
        if on:
            f = line.split(None, 2)
            if len(f) == 3 and f[0].isdigit():
                rows.append((f[2], int(f[0]), int(f[1])))
    return total, rows


def qemu_profile_rows(elf, text):
    """bench/qemu_profile plugin output (per-address instruction counts) -> (total, rows) as
    parse_profile gives them, by the ELF's function symbols (Thumb bit cleared)."""
    p = subprocess.run([NM["arm"], "-S", "--defined-only", elf], capture_output=True, text=True)
    funcs = []
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTW":
            funcs.append((int(f[0], 16) & ~1, int(f[1], 16), f[3]))
    funcs.sort()
    starts = [f[0] for f in funcs]
    import bisect

    total, counts = None, defaultdict(int)
    for line in text.splitlines():
        f = line.split()
        if len(f) != 2:
            continue
        if f[0] == "total":
            total = int(f[1])
        elif f[0] == "other":
            counts["(outside code memory)"] += int(f[1])
        else:
            a, n = int(f[0], 16), int(f[1])
            i = bisect.bisect_right(starts, a) - 1
            name = funcs[i][2] if i >= 0 and a < funcs[i][0] + max(funcs[i][1], 2) else "(no symbol)"
            counts[name] += n
    return total, [(k, v, v) for k, v in sorted(counts.items(), key=lambda kv: -kv[1])]


def attribute(elf, profile_text, ops, arch="riscv"):
    """-> (total, {bucket: count}) with buckets = op names, 'shared: fn', RUNTIME. The count is
    cycles for etmcu-sim --profile output (riscv), instructions for the QEMU plugin's (arm)."""
    if arch == "arm":
        total, rows = qemu_profile_rows(elf, profile_text)
    else:
        total, rows = parse_profile(profile_text)
    names = [r[0] for r in rows]
    graph = call_graph(elf, arch)
    dm = demangle(sorted(set(names) | set(graph) | {c for cs in graph.values() for c in cs}))
    ksyms = {kernel_symbol(op): op for op in ops}
    kpat = re.compile(r"etmcu::kernels::(?:\w+::)*(\w+)\(")

    def own_op(fn):
        for m in kpat.finditer(dm.get(fn, fn)):
            if m.group(1) in ksyms:
                return ksyms[m.group(1)]
        return None

    # kernel roots: functions that are an op's kernel (or inside it)
    roots = {}
    for fn in set(graph) | set(names):
        op = own_op(fn)
        if op:
            roots[fn] = op
    reach = defaultdict(set)  # helper fn -> ops whose kernels reach it
    for fn, op in roots.items():
        stack, seen = [fn], {fn}
        while stack:
            f = stack.pop()
            for c in graph.get(f, ()):
                if c in seen or c in roots:
                    continue
                seen.add(c)
                reach[c].add(op)
                stack.append(c)
    buckets = defaultdict(int)
    for fn, cycles, _ in rows:
        if fn in roots:
            buckets[roots[fn]] += cycles
        elif len(reach.get(fn, ())) == 1:
            buckets[next(iter(reach[fn]))] += cycles
        elif reach.get(fn):
            buckets["shared: " + dm.get(fn, fn)] += cycles
        else:
            buckets[RUNTIME] += cycles
    accounted = sum(buckets.values())
    if total is not None and accounted != total:
        buckets[RUNTIME] += total - accounted  # cycles outside any symbol ("other" in the profile)
    return total, dict(buckets)
