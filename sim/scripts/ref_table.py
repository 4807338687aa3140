#!/usr/bin/env python3
"""Prints the markdown results table of docs/simulator.md: runs etmcu-sim on every reference ELF of
shared/cv32e40p-ref in both configurations and compares stdout, exit code and cycles with
reference.json. Usage: sim/scripts/ref_table.py [path/to/etmcu-sim] [path/to/cv32e40p-ref]"""
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sim = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '../../build/sim-dev/etmcu-sim')
refdir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, '../../../shared/cv32e40p-ref')
ref = json.load(open(os.path.join(refdir, 'reference.json')))

print('| program | ref cycles PULP | sim cycles PULP | ref cycles non-PULP | sim cycles non-PULP | match |')
print('|---|---|---|---|---|---|')
all_ok = True
for e in ref:
    elf = os.path.join(refdir, 'elf', e['elf'])
    res = {}
    for cfg in ('pulp', 'nopulp'):
        p = subprocess.run([sim, elf, '--config', cfg], capture_output=True, text=True)
        out, last = p.stdout.rsplit('cycles=', 1)
        res[cfg] = (out, int(last.split()[0]), p.returncode)
    ok_p = (res['pulp'][0] == e['stdout'] and res['pulp'][2] == e['exit_code']
            and res['pulp'][1] == e['cycles_pulp'])
    if e['pulp']:
        ok_n = res['nopulp'][2] == 102 and 'FATAL TRAP mcause=0x00000002' in res['nopulp'][0]
        nref, nsim = '— (illegal insn, exit 102)', '— (exit %d)' % res['nopulp'][2]
    else:
        want = e.get('stdout_nopulp', e['stdout'])
        ok_n = (res['nopulp'][0] == want and res['nopulp'][2] == e['exit_code_nopulp']
                and res['nopulp'][1] == e['cycles_nopulp'])
        nref, nsim = str(e['cycles_nopulp']), str(res['nopulp'][1])
    ok = ok_p and ok_n
    all_ok &= ok
    print(f"| `{e['name']}` | {e['cycles_pulp']} | {res['pulp'][1]} | {nref} | {nsim} | "
          f"{'yes' if ok else 'NO'} |")
print()
print('all programs match (stdout, exit code, cycles):', 'yes' if all_ok else 'NO')
sys.exit(0 if all_ok else 1)
