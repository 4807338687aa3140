#!/usr/bin/python3
"""Bytes of code per source file of a firmware ELF built with -g, from the DWARF line table that
`objdump -dl` prints (each instruction is charged to the file:line it comes from, inlined code to
the file it was inlined from). libgcc lines are named by their file; code without line info (libc)
is '?'.

Usage: bench/size/text_by_source.py FIRMWARE.elf [--top N]
A -g firmware: ./etmcu run add.pte --target cv32e40p "--runtime-opt=-Os -g" "--kernel-opt=-O2 -g" --keep DIR
(-g changes no code: the .text is the same size as without it).
"""
import argparse
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def objdump_for(elf):
    with open(elf, "rb") as f:
        head = f.read(20)
    machine = int.from_bytes(head[18:20], "little")
    return {243: "riscv64-unknown-elf-objdump", 40: "arm-none-eabi-objdump"}.get(machine, "objdump")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("elf")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    dis = subprocess.run([objdump_for(args.elf), "-dl", args.elf], capture_output=True, text=True,
                         check=True).stdout
    by_file = collections.Counter()
    where = "?"
    for line in dis.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            if not m.group(1).startswith(".L"):  # a function; local labels (.L*) continue one
                where = "?"
            continue
        m = re.match(r"^(/\S+):\d+", line)
        if m:
            path = m.group(1)
            if "/libgcc/" in path:
                where = "libgcc:" + path.rsplit("/", 1)[-1]
            else:
                where = os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path
            continue
        m = re.match(r"^\s*[0-9a-f]+:\s+((?:[0-9a-f]{4} ?|[0-9a-f]{8} ?)+)\s", line)
        if m:
            by_file[where] += len(m.group(1).replace(" ", "")) // 2
    for path, n in by_file.most_common(args.top):
        print(f"{n:8d}  {path}")
    print(f"{sum(by_file.values()):8d}  total")
    return 0


if __name__ == "__main__":
    sys.exit(main())
