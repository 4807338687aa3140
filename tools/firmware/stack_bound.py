#!/usr/bin/python3
"""Static worst-case stack bound of one firmware ELF (docs/bare-metal.md, "Stack bound").

Frame sizes and call edges of the compiled C/C++ code come from GCC's `-fcallgraph-info=su` files
(`.ci`, written by the LTO link next to the ELF); functions without one (start-up assembly, the
assembly kernels, libgcc, libc) are read from the cross objdump: their frame is the sum of every
stack-pointer decrement in their body and their callees the direct calls and tail calls. Edges
are the union of both sources. Indirect calls are resolved to every function whose address the
firmware takes outside the vector table and the entries: the targets of the relocations the link
kept (-Wl,--emit-relocs) that are not calls or branches (the kernel table is one such place). A
register jump the tool cannot classify (jump tables are recognised), a dynamic frame (VLA,
alloca), an unknown write of the stack pointer or a cycle (recursion; the verifier's bounded
self-recursion excepted, charged in full) is an error, never an undercount.

The bound is the deepest path from the reset entry plus, on Cortex-M, the SysTick interrupt on top
of it (exception frame + handler). The fault and trap handlers reset the stack pointer to the top
before they call C, so their path counts from the top on its own.

  stack_bound.py FIRMWARE.elf --family cv32e40p|cortex-m [--fp] [--ci FILE.ci ...] [--json] [--path]
"""
import argparse
import json
import os
import re
import subprocess
import sys

OBJDUMP = {"cv32e40p": "riscv64-unknown-elf-objdump", "cortex-m": "arm-none-eabi-objdump"}
NM = {"cv32e40p": "riscv64-unknown-elf-nm", "cortex-m": "arm-none-eabi-nm"}
READELF = {"cv32e40p": "riscv64-unknown-elf-readelf", "cortex-m": "arm-none-eabi-readelf"}
# Relocations of calls, branches and linker relaxation: they do not take a function's address.
CALL_RELOCS = {"R_RISCV_CALL", "R_RISCV_CALL_PLT", "R_RISCV_JAL", "R_RISCV_BRANCH", "R_RISCV_RVC_JUMP",
               "R_RISCV_RVC_BRANCH", "R_RISCV_RELAX", "R_RISCV_ALIGN", "R_RISCV_PCREL_LO12_I",
               "R_RISCV_PCREL_LO12_S", "R_ARM_THM_CALL", "R_ARM_THM_JUMP24", "R_ARM_THM_JUMP19", "R_ARM_THM_JUMP11",
               "R_ARM_THM_JUMP8", "R_ARM_THM_JUMP6", "R_ARM_CALL", "R_ARM_JUMP24", "R_ARM_THM_PC8",
               "R_ARM_THM_PC12", "R_ARM_THM_ALU_PREL_11_0", "R_ARM_V4BX", "R_ARM_NONE"}


class BoundError(Exception):
    pass


# Start-up and trap entries: the only code allowed to load the stack pointer.
ROOTS = {"_start", "fw_trap_entry", "Reset_Handler", "Fault_Handler"}
# Functions without a .ci whose register jumps stay inside their own body (checked by hand in their
# disassembly): picolibc's memset jumps into its unrolled store sequence (`jr`/`jalr t0` on an
# address computed from its own position); the CV32E40P depthwise lines of stride 1 and 2, in
# both requantization forms (kernels/cortex_m/isa/xpulp/depthwise_rows.S), jump to a line's and a
# tail's entry, labels inside their own body whose addresses the callers' LINES_PREP /
# LINES_PREP_S2 stored in the frame.
SELF_JUMPS = {"memset", "etmcu_xpulp_dw_k3_lines", "etmcu_xpulp_dw_k3_lines_dy",
              "etmcu_xpulp_dw_k3s2_lines", "etmcu_xpulp_dw_k3s2_lines_dy"}
# Functions without a .ci whose register calls go to a known set of functions: the Xpulp depthwise
# channel loop calls the prep and lines subroutines its argument block names (one pair per stride
# and requantization form; those the firmware links are its callees), the Xpulp and plain RV32
# pointwise kernels the subroutine PointwiseBlock::rows_fn names.
INDIRECT_CALLEES = {"etmcu_xpulp_dw_k3_channels": {
    "etmcu_xpulp_dw_k3_prep", "etmcu_xpulp_dw_k3_lines", "etmcu_xpulp_dw_k3_prep_dy",
    "etmcu_xpulp_dw_k3_lines_dy", "etmcu_xpulp_dw_k3s2_prep", "etmcu_xpulp_dw_k3s2_lines",
    "etmcu_xpulp_dw_k3s2_prep_dy", "etmcu_xpulp_dw_k3s2_lines_dy"},
    # and the pointwise kernel (both forms) the subroutine for several kernel rows its block names
    "etmcu_xpulp_pointwise_4ch": {"etmcu_xpulp_pointwise_rows"},
    "etmcu_xpulp_pointwise_4ch_dy": {"etmcu_xpulp_pointwise_rows"},
    "etmcu_rv32_pointwise_4ch": {"etmcu_rv32_pointwise_runs9", "etmcu_rv32_pointwise_runs9s1",
                                 "etmcu_rv32_requant3_relu_dy", "etmcu_rv32_requant3_clamp_dy"},
    # and the plain RV32 3x3 depthwise row kernel the subroutine DwRowArgs::rows_fn names
    "etmcu_rv32_dw_row_k3": {"etmcu_rv32_dw_quint5", "etmcu_rv32_dw_pairs_s2"},
    "etmcu_rv32_dw_row_k3_dy": {"etmcu_rv32_dw_quint5_dy", "etmcu_rv32_dw_pairs_s2_dy"}}
# The one recursion in target code, bounded by a constant: the flatbuffer verifier's table walk
# (runtime/pte/verifier.cpp, Verifier::table) recurses once per nesting level and fails past
# kVerifierMaxDepth, so at most kVerifierMaxDepth + 2 activations are live. Only direct
# self-recursion of these functions is accepted; any other cycle is an error.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _verifier_depth():
    with open(os.path.join(ROOT, "runtime", "pte", "verifier.h")) as f:
        return int(re.search(r"kVerifierMaxDepth = (\d+);", f.read()).group(1))


BOUNDED_RECURSION = {re.compile(r"8Verifier5tableE"): lambda: _verifier_depth() + 2}


def parse_ci(paths):
    """-> {name: (bytes, kind)}, {name: set(callees)}, set(names with an indirect call)."""
    frames, edges, indirect = {}, {}, set()
    node_re = re.compile(r'^node: \{ title: "([^"]*)" label: "([^"]*)"')
    edge_re = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"')
    size_re = re.compile(r"\\n(\d+) bytes \(([a-z,]+)\)")

    def bare(title):  # "/tmp/cc.ltrans0.o:name" -> "name"; globals have no prefix
        return title.rsplit(":", 1)[-1] if ".o:" in title else title

    for path in paths:
        with open(path) as f:
            for line in f:
                m = node_re.match(line)
                if m:
                    s = size_re.search(m.group(2))
                    if s:  # a function compiled here (externals have no size)
                        frames[bare(m.group(1))] = (int(s.group(1)), s.group(2))
                    continue
                m = edge_re.match(line)
                if m:
                    src, dst = bare(m.group(1)), bare(m.group(2))
                    if dst == "__indirect_call":
                        indirect.add(src)
                    else:
                        edges.setdefault(src, set()).add(dst)
    return frames, edges, indirect


class Disassembly:
    """Functions of the ELF (address, size, instructions) from objdump -d, symbols from nm."""

    def __init__(self, elf, family):
        self.family = family
        nm = subprocess.run([NM[family], "-S", "--defined-only", elf], capture_output=True, text=True,
                            check=True).stdout
        self.funcs = {}  # name -> (addr, size)
        self.by_addr = {}
        self.objects = []  # (addr, size, name) of data symbols
        for line in nm.splitlines():
            p = line.split()
            if p and is_label(p[-1]):
                continue
            if len(p) == 4 and p[2] in "tTwW":
                addr, size = int(p[0], 16), int(p[1], 16)
                self.funcs[p[3]] = (addr, size)
                self.by_addr.setdefault(addr, p[3])
            elif len(p) == 4 and p[2] in "rRdDbB":
                self.objects.append((int(p[0], 16), int(p[1], 16), p[3]))
            elif len(p) == 3 and p[1] in "tT":  # assembly labels without a size
                addr = int(p[0], 16)
                self.funcs.setdefault(p[2], (addr, 0))
                self.by_addr.setdefault(addr, p[2])
        out = subprocess.run([OBJDUMP[family], "-d", "--no-show-raw-insn", elf], capture_output=True, text=True,
                             check=True).stdout
        self.body = {}  # name -> [(addr, mnemonic, operands)]
        cur = None
        head = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
        insn = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
        for line in out.splitlines():
            m = head.match(line)
            if m:
                if is_label(m.group(2)) and cur is not None:
                    continue  # a local label kept by --emit-relocs: the same function goes on
                cur = m.group(2)
                self.body.setdefault(cur, [])
                continue
            m = insn.match(line)
            if m and cur is not None:
                self.body[cur].append((int(m.group(1), 16), m.group(2), m.group(3)))
        self.body_at = {v[0][0]: v for v in self.body.values() if v}
        self.sections = {}
        hdr = subprocess.run([OBJDUMP[family], "-h", elf], capture_output=True, text=True, check=True).stdout
        for m in re.finditer(r"^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", hdr, re.M):
            self.sections[m.group(1)] = (int(m.group(3), 16), int(m.group(2), 16), int(m.group(4), 16))
        self.elf = elf

    def function_at(self, addr):
        """The function starting at addr, else the one whose body contains it (a branch into the
        middle of another function counts as a call of all of it: never less stack)."""
        if self.family == "cortex-m":
            addr &= ~1
        if addr in self.by_addr:
            return self.by_addr[addr]
        best = None
        for name, (start, size) in self.funcs.items():
            if start <= addr < start + size and (best is None or start > self.funcs[best][0]):
                best = name
        return best

    # --- per-function facts from the instructions --------------------------------------------
    def analyse(self, name, strict=True):
        """-> (frame bytes, direct callees, has indirect call, sets sp). strict: every write of sp
        must be understood (functions without a .ci; GCC's .ci already says whether a compiled
        function's frame is static, and its epilogues may release a frame in any form)."""
        insns = self.body.get(name)
        if insns is None and name in self.funcs:  # an alias: objdump labels one name per address
            insns = self.body_at.get(self.funcs[name][0])
        if insns is None:
            raise BoundError(f"function {name} has neither a .ci entry nor code in the ELF")
        start, size = self.funcs.get(name, (insns[0][0], 0))
        end = start + size if size else (insns[-1][0] + 4)
        frame, callees, indirect, sp_set = 0, set(), False, False
        for addr, mn, ops in insns:
            mn = mn.split(".")[0] if self.family == "cortex-m" else mn
            target = re.search(r"<([^>+]+)(\+0x[0-9a-f]+)?>", ops)
            if self.family == "cv32e40p":
                m = re.match(r"sp,\s*sp,\s*(-?\d+)\b", ops)
                if mn in ("add", "addi", "c.addi", "c.addi16sp") and m:
                    if "<" in ops:
                        continue  # the low half of `la sp, symbol` (objdump names the address)
                    if int(m.group(1)) < 0:
                        frame -= int(m.group(1))
                    continue  # a release, or the low half of `la sp, __stack_top`
                if re.match(r"sp,", ops) and mn not in ("sw", "sh", "sb") and not mn.startswith("c.s"):
                    if mn in ("lui", "auipc", "mv", "lw") and name in ROOTS:
                        sp_set = True  # a root setting up its stack (start-up, trap entry)
                        continue
                    self.unknown_sp_write(strict, name, mn, ops, addr)
                if mn in ("jal", "call", "jalr") and target:
                    callees.add(target.group(1))  # jal, or auipc ra + jalr (a far call)
                elif mn in ("j", "tail", "jr") and target:
                    t = self.function_at(int(re.search(r"([0-9a-f]+) <", ops).group(1), 16))
                    if t and t != name:
                        callees.add(t)  # a tail call
                elif mn == "jr" and ops.strip() != "ra" and self.is_switch(insns, addr, start, end):
                    pass  # a switch: its table (absolute or base-relative entries) points into this function
                elif mn in ("jalr", "jr") and ops.strip() != "ra":
                    indirect = True
            else:
                dest = ops.split(",")[0].strip()
                if mn == "push" or (mn in ("stmdb", "stmfd") and dest == "sp!"):
                    frame += 4 * count_regs(ops)
                elif mn == "vpush" or (mn in ("vstmdb",) and dest == "sp!"):
                    frame += 4 * count_regs(ops)  # d registers count twice, see count_regs
                elif mn in ("sub", "subw", "subs") and re.match(r"sp,\s*(sp,\s*)?#\d+\s*(@.*)?$", ops):
                    frame += int(re.search(r"#(\d+)", ops).group(1))
                elif mn in ("add", "addw", "adds") and re.match(r"sp,\s*(sp,\s*)?#\d+\s*(@.*)?$", ops):
                    pass  # a release
                elif mn in ("pop", "vpop") or (mn.startswith("ldm") or mn.startswith("vldm")) and dest == "sp!":
                    pass  # a release
                elif mn.startswith(("str", "stm", "vstr", "vstm", "ldr", "ldm", "vldr", "vldm", "pld", "cmp")) and \
                        dest not in ("sp", "sp!") or mn.startswith(("str", "vstr")) or mn.startswith("stm") and dest == "sp":
                    pass  # sp as a base register, or stored
                elif mn == "add" and re.match(r"sp,\s*(sp,\s*)?r\d+$", ops):
                    # Thumb-1 large frames: `ldr rX, [pc, #..]` (a negative literal), `add sp, rX`
                    reg = ops.rsplit(",", 1)[1].strip()
                    value = self.literal_for(insns, addr, reg)
                    if value is None:
                        self.unknown_sp_write(strict, name, mn, ops, addr)
                    if value is not None and value < 0:
                        frame -= value
                elif dest in ("sp", "sp!") or mn == "msr" and "sp" in ops.split(",")[0]:
                    if name in ROOTS:
                        sp_set = True  # a root setting up its stack (reset, fault entry)
                    else:
                        self.unknown_sp_write(strict, name, mn, ops, addr)
                elif mn in ("bl",):
                    dest = int(re.search(r"([0-9a-f]+) <", ops).group(1), 16)
                    if not start <= dest < end:  # Thumb-1 also uses bl as a far jump inside a function
                        callees.add(self._callee(name, target, addr))
                elif mn in ("b", "bne", "beq", "bcs", "bcc", "bhi", "bls", "bge", "blt", "bgt", "ble", "bmi",
                            "bpl", "bvs", "bvc", "bhs", "blo", "cbz", "cbnz") and target:
                    dest = int(re.search(r"([0-9a-f]+) <", ops).group(1), 16)
                    if not start <= dest < end:
                        t = self.function_at(dest)
                        if t is None:
                            raise BoundError(f"{name}: branch to 0x{dest:x} outside any function")
                        callees.add(t)  # a tail call
                elif mn == "blx" and "<" not in ops:
                    indirect = True
                elif mn == "blx":
                    callees.add(self._callee(name, target, addr))
                elif (mn == "bx" and ops.strip() != "lr") or (mn in ("mov", "ldr") and dest == "pc"):
                    if not self.is_switch(insns, addr, start, end):
                        indirect = True  # else a switch (Thumb-1 jump tables: ldr + mov pc)
        return frame, callees, indirect, sp_set

    def is_switch(self, insns, addr, start, end):
        """A register jump through a jump table: one of the few instructions before it forms the table's
        address (objdump names it), and the table's first entries, absolute or relative to the table,
        all lie inside this function."""
        before = [i for i in insns if i[0] < addr][-8:]
        for _, mn, ops in reversed(before):
            m = re.search(r"[#@] \(?([0-9a-f]+) <", ops)
            if not m:
                continue
            base = int(m.group(1), 16)
            try:
                if self.family == "cortex-m":  # a literal-pool slot holding the table's address
                    base = int.from_bytes(self.read(base, 4), "little")
                    words = [int.from_bytes(self.read(base + 4 * k, 4), "little") & ~1 for k in range(2)]
                    return all(start <= w < end for w in words)
                words = [int.from_bytes(self.read(base + 4 * k, 4), "little", signed=True) for k in range(2)]
            except BoundError:
                return False
            return all(start <= w < end for w in words) or all(start <= base + w < end for w in words)
        return False

    @staticmethod
    def unknown_sp_write(strict, name, mn, ops, addr):
        if strict:
            raise BoundError(f"{name}: cannot bound the stack write '{mn} {ops}' at 0x{addr:x}")

    def literal_for(self, insns, addr, reg):
        """The literal-pool constant the nearest `ldr reg, [pc, #..]` before addr loaded (signed)."""
        for a, mn, ops in reversed([i for i in insns if i[0] < addr]):
            if ops.split(",")[0].strip() != reg:
                continue
            m = re.search(r"@ \(([0-9a-f]+) <", ops)
            if mn.split(".")[0] == "ldr" and "[pc" in ops and m:
                return int.from_bytes(self.read(int(m.group(1), 16), 4), "little", signed=True)
            return None  # reg written otherwise
        return None

    def read(self, addr, n):
        for sec, (vma, size, off) in self.sections.items():
            if vma <= addr and addr + n <= vma + size and vma != 0:
                with open(self.elf, "rb") as f:
                    f.seek(off + addr - vma)
                    return f.read(n)
        raise BoundError(f"address 0x{addr:x} is in no section of the ELF")

    def _callee(self, name, target, addr):
        if not target:
            raise BoundError(f"{name}: a call at 0x{addr:x} without a symbolic target")
        return target.group(1)

    def address_taken(self):
        """Functions whose address the firmware takes: targets of the relocations the link kept
        (--emit-relocs) that are not calls or branches, outside the vector table and the start-up
        and trap entries. Arm REL data words are read from the linked image; RELA targets are the
        symbol plus the addend."""
        out = subprocess.run([READELF[self.family], "-rW", self.elf], capture_output=True, text=True,
                             check=True).stdout
        if "Relocation section" not in out:
            raise BoundError(f"{self.elf} has no relocations (link with -Wl,--emit-relocs): cannot resolve "
                             "indirect calls")
        starts = {a: n for n, (a, _) in self.funcs.items()}
        roots = [(a, a + max(sz, 1)) for n, (a, sz) in self.funcs.items() if n in ROOTS]
        taken, section = set(), ""
        row = re.compile(r"^([0-9a-f]+)\s+[0-9a-f]+\s+(R_\w+)\s+([0-9a-f]+)?\s*(\S*)\s*([+-]\s*[0-9a-f]+)?")
        for line in out.splitlines():
            m = re.match(r"Relocation section '([^']+)'", line)
            if m:
                section = m.group(1)
                continue
            if not re.match(r"\.rela?\.(text|rodata|srodata|data|sdata)", section) or section.startswith(
                    (".rel.vectors", ".rela.vectors", ".rela.text.vectors", ".rela.text.start")):
                continue
            m = row.match(line.strip())
            if not m:
                continue
            offset, kind = int(m.group(1), 16), m.group(2)
            if kind in CALL_RELOCS or any(lo <= offset < hi for lo, hi in roots):
                continue
            if kind == "R_ARM_ABS32":
                target = int.from_bytes(self.read(offset, 4), "little")
            elif m.group(3):
                target = int(m.group(3), 16) + (int(m.group(5).replace(" ", ""), 16) if m.group(5) else 0)
            else:
                continue
            f = starts.get(target & ~1 if self.family == "cortex-m" else target)
            if f is not None:
                taken.add(f)
        return taken


def is_label(name):
    """Local labels and mapping symbols, not functions (.L1^B1, $t, $d)."""
    return name.startswith((".L", "$")) or "^B" in name


def count_regs(ops):
    """'{r4, r5, r6, lr}' or '{r4-r7, lr}' or '{d8-d15}' -> 4-byte words."""
    regs = re.search(r"\{([^}]*)\}", ops)
    if not regs:
        raise BoundError(f"cannot read the register list '{ops}'")
    n = 0
    for part in regs.group(1).split(","):
        part = part.strip()
        words = 2 if part.startswith("d") else 1
        if "-" in part:
            lo, hi = part.split("-")
            n += words * (int(re.sub(r"\D", "", hi)) - int(re.sub(r"\D", "", lo)) + 1)
        else:
            n += words
    return n


def bound(elf, family, ci_files, fp=False):
    frames, ci_edges, ci_indirect = parse_ci(ci_files)
    dis = Disassembly(elf, family)
    # Dynamic frames: VLAs and alloca are not allowed in target code.
    dyn = sorted(n for n, (b, k) in frames.items() if k != "static" and n in dis.funcs)
    if dyn:
        raise BoundError(f"dynamic stack frames (VLA or alloca) in: {', '.join(dyn)}")
    targets_of_indirect = None
    memo, on_path, info, live = {}, [], {}, {}

    def facts(name):
        if name in info:
            return info[name]
        if name not in dis.funcs and name not in dis.body:
            raise BoundError(f"call to {name}, which is not in the firmware")
        fr, callees, ind, sp_set = dis.analyse(name, strict=name not in frames)
        if name in frames:  # compiled code: GCC's frame, the union of both edge sets
            fr = frames[name][0]
            callees = set(callees) | {c for c in ci_edges.get(name, ()) if c in dis.funcs}
            ind = name in ci_indirect  # its register jumps without a .ci call site are switch tables
        elif ind and name in SELF_JUMPS:
            ind = False
        elif ind and name in INDIRECT_CALLEES:
            ind = False
            callees = set(callees) | {c for c in INDIRECT_CALLEES[name] if c in dis.funcs}
        info[name] = (fr, callees, ind)
        return info[name]

    def depth(name):
        nonlocal targets_of_indirect
        if name in memo:
            return memo[name]
        if name in on_path:
            cycle = on_path[on_path.index(name):] + [name]
            raise BoundError("recursion: " + " -> ".join(cycle))
        on_path.append(name)
        fr, callees, ind = facts(name)
        callees = set(callees)
        activations = 1
        for pattern, limit in BOUNDED_RECURSION.items():
            if pattern.search(name) and name in callees:
                callees.discard(name)  # direct self-recursion, bounded: charge every activation
                activations = limit()
        if ind:
            if targets_of_indirect is None:
                targets_of_indirect = dis.address_taken()
            if not targets_of_indirect:
                raise BoundError(f"{name} makes an indirect call and the firmware takes no function's address")
            callees |= targets_of_indirect
        best, via = 0, None
        for c in sorted(callees):
            d, _ = depth(c)
            if d > best:
                best, via = d, c
        on_path.pop()
        memo[name] = (fr * activations + best, via)
        live[name] = activations
        return memo[name]

    def path_of(name):
        out = []
        while name:
            out.append({"function": name, "frame": info[name][0] * live[name]})
            if live[name] > 1:
                out[-1]["activations"] = live[name]
            name = memo[name][1]
        return out

    if family == "cortex-m":
        entry, isrs, resets = "Reset_Handler", ["SysTick_Handler"], ["fw_fatal_trap"]
        frame = (8 + 18 + 1) * 4 if fp else (8 + 1) * 4  # basic (+FP/MVE) exception frame, alignment word
    else:
        entry, isrs, resets = "_start", [], ["fw_fatal_trap"]
        frame = 0
    main_depth, _ = depth(entry)
    isr_depth = 0
    for isr in isrs:
        if isr in dis.funcs:
            isr_depth = max(isr_depth, frame + depth(isr)[0])
    trap_depth = max((depth(r)[0] for r in resets if r in dis.funcs), default=0)
    total = max(main_depth + isr_depth, trap_depth)
    return {"bound": total, "main": main_depth, "interrupt": isr_depth, "trap": trap_depth,
            "path": path_of(entry), "functions": len(info), "compiled_frames": len(frames),
            "indirect_targets": sorted(targets_of_indirect or [])}


def ci_files_for(elf):
    d = os.path.dirname(os.path.abspath(elf))
    base = os.path.basename(elf)
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith(base) and f.endswith(".ci"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("elf")
    ap.add_argument("--family", required=True, choices=sorted(OBJDUMP))
    ap.add_argument("--fp", action="store_true", help="Cortex-M with FPU/MVE: the extended exception frame")
    ap.add_argument("--ci", nargs="*", help="the .ci files (default: ELF.*.ci beside the ELF)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--path", action="store_true", help="print the deepest call path")
    args = ap.parse_args(argv)
    ci = args.ci if args.ci is not None else ci_files_for(args.elf)
    if not ci:
        print(f"stack_bound: no .ci files for {args.elf} (link with -fcallgraph-info=su)", file=sys.stderr)
        return 1
    try:
        r = bound(args.elf, args.family, ci, args.fp)
    except BoundError as e:
        print(f"stack_bound: {args.elf}: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(r))
    else:
        print(f"stack bound {r['bound']} B (reset path {r['main']} + interrupt {r['interrupt']}; trap path "
              f"{r['trap']}); {r['functions']} functions, {len(r['indirect_targets'])} indirect-call targets")
        if args.path:
            for p in r["path"]:
                print(f"  {p['frame']:6d}  {p['function']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
