"""tools/firmware/stack_bound.py on tiny programs built like firmware (LTO, -fcallgraph-info=su):
the bound follows the deepest path through a function-pointer table, and recursion, a VLA and an
indirect call with no possible target are errors, never a smaller number."""
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tools" / "firmware"))
import stack_bound  # noqa: E402

CC = {"cortex-m": ["arm-none-eabi-gcc", "-mcpu=cortex-m0", "-mthumb", "-specs=nosys.specs"],
      "cv32e40p": ["riscv64-unknown-elf-gcc", "-march=rv32imc", "-mabi=ilp32", "-specs=picolibc.specs"]}
ENTRY = {"cortex-m": "Reset_Handler", "cv32e40p": "_start"}

# A start-up stub per family (the tool starts from the reset entry), then the program under test.
START = {
    "cortex-m": "int main(int, char**) __attribute__((used));\n__attribute__((naked)) void Reset_Handler(void) { __asm__(\"bl main\\n b .\"); }\n",
    "cv32e40p": "int main(int, char**) __attribute__((used));\n__attribute__((naked)) void _start(void) { __asm__(\"call main\\n j .\"); }\n",
}

TABLE = r"""
typedef int (*fn)(int);
__attribute__((noinline)) int small(int x) { volatile int a[4]; a[x & 3] = x; return a[1]; }
__attribute__((noinline)) int big(int x) { volatile int a[100]; a[x & 63] = x; return a[2]; }
fn const table[] = {small, big};
__attribute__((noinline)) int dispatch(int i, int x) { return table[i & 1](x); }
int main(int argc, char** argv) { return dispatch(argc, (int)(long)argv); }
"""
RECURSION = r"""
__attribute__((noinline)) int f(int x) { volatile int a[8]; a[x & 7] = x; return x ? f(x - 1) + a[3] : 0; }
int main(int argc, char** argv) { return f(argc); }
"""
VLA = r"""
__attribute__((noinline)) int f(int n) { volatile char a[n]; a[n - 1] = 1; return a[0]; }
int main(int argc, char** argv) { return f(argc + 8); }
"""
NO_TARGET = r"""
typedef int (*fn)(int);
extern fn volatile hook;
__attribute__((noinline)) int call(int x) { return hook(x); }
fn volatile hook = 0;
int main(int argc, char** argv) { return call(argc); }
"""


def build(family, source, tmp_path):
    if shutil.which(CC[family][0]) is None:
        pytest.skip(f"{CC[family][0]} not installed")
    src = tmp_path / "prog.c"
    src.write_text(START[family] + source)
    elf = tmp_path / "prog.elf"
    p = subprocess.run([*CC[family], "-O2", "-flto", "-fcallgraph-info=su", "-Wl,--emit-relocs", "-nostartfiles",
                        f"-Wl,-e,{ENTRY[family]}", str(src), "-o", str(elf)], capture_output=True, text=True,
                       cwd=tmp_path)
    if p.returncode != 0 and "picolibc.specs" in p.stderr:
        pytest.skip("picolibc not installed")
    assert p.returncode == 0, p.stderr
    ci = stack_bound.ci_files_for(str(elf))
    assert ci, "the LTO link wrote no .ci file"
    return str(elf), ci


@pytest.mark.parametrize("family", ["cortex-m", "cv32e40p"])
def test_bound_takes_the_deepest_table_entry(family, tmp_path):
    elf, ci = build(family, TABLE, tmp_path)
    r = stack_bound.bound(elf, family, ci)
    names = [p["function"] for p in r["path"]]
    assert names[0] == ENTRY[family] and "big" in names, names
    assert {"small", "big"} <= set(r["indirect_targets"])
    frames, _, _ = stack_bound.parse_ci(ci)
    assert r["bound"] >= frames["big"][0] >= 400
    assert r["bound"] == sum(p["frame"] for p in r["path"])


@pytest.mark.parametrize("family", ["cortex-m", "cv32e40p"])
@pytest.mark.parametrize("source,message", [
    pytest.param(RECURSION, "recursion: f -> f", id="recursion"),
    pytest.param(VLA, "dynamic stack frames", id="vla"),
    pytest.param(NO_TARGET, "takes no function's address", id="indirect-without-target")])
def test_unboundable_programs_are_errors(family, source, message, tmp_path):
    elf, ci = build(family, source, tmp_path)
    with pytest.raises(stack_bound.BoundError, match=message):
        stack_bound.bound(elf, family, ci)


def test_cli_fails_without_call_graph(tmp_path):
    elf, _ = build("cortex-m", TABLE, tmp_path)
    for f in tmp_path.glob("*.ci"):
        f.unlink()
    p = subprocess.run(["/usr/bin/python3", str(ROOT / "tools" / "firmware" / "stack_bound.py"), elf,
                        "--family", "cortex-m"], capture_output=True, text=True)
    assert p.returncode == 1 and "no .ci files" in p.stderr
