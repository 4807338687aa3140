"""`./etmcu bench --quick` runs end to end into a temporary directory and writes well-formed results
(this checks that the benchmark works, not its numbers; bench/results/ is never touched)."""

import csv
import json
import re
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    before = {p: p.stat().st_mtime for p in (ROOT / "bench" / "results").glob("*")} \
        if (ROOT / "bench" / "results").exists() else {}
    t0 = time.time()
    p = subprocess.run([str(ROOT / "etmcu"), "bench", "--quick", "--output", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    wall = time.time() - t0
    after = {p: p.stat().st_mtime for p in (ROOT / "bench" / "results").glob("*")} \
        if (ROOT / "bench" / "results").exists() else {}
    return {"out": out, "proc": p, "wall": wall, "results_untouched": before == after}


def test_runs_and_reports_progress(quick):
    p = quick["proc"]
    assert p.returncode == 0, p.stderr[-3000:]
    assert "[bench" in p.stderr and "run 1/" in p.stderr and "done:" in p.stderr


def test_quick_is_quick(quick):
    # The bench's own time (exports, firmware builds, runs, plots), as it reports it; `./etmcu bench`
    # first brings the host build up to date, which is not the bench's work (and in a clean tree is
    # done before this test by ./etmcu test).
    m = re.search(r"done: .*\((\d+) s\)", quick["proc"].stderr)
    assert m, quick["proc"].stderr[-2000:]
    assert int(m.group(1)) < 120, f"--quick took {m.group(1)} s (wall with the host build: {quick['wall']:.0f} s)"


def test_does_not_touch_committed_results(quick):
    assert quick["results_untouched"]


def test_csv_well_formed(quick):
    with open(quick["out"] / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert rows, "no rows"
    for r in rows:
        assert r["target"] in ("cv32e40p", "cv32e40p-pulp", "cortex-m55", "cortex-m33")
        assert r["status"] in ("ok", "unavailable")
        if r["status"] == "ok":
            execute, total = int(r["execute"]), int(r["total"])
            assert 0 < execute <= total
            assert abs(float(r["ms_400mhz"]) - execute / 400e3) < 1e-3
            parts = sum(int(r[k]) for k in ("ram_planned", "ram_method", "ram_temp", "ram_data", "ram_bss",
                                            "ram_stack_peak"))
            assert int(r["ram_peak"]) == parts
            assert int(r["flash_code"]) > 0 and int(r["flash_model"]) > 0
            assert int(r["flash_total"]) == int(r["flash_code"]) + int(r["flash_model"])
        else:
            assert r["error"], "an unavailable row must say why"
    add = [r for r in rows if r["model"] == "add"]
    assert add and add[0]["pub_cycles"] == "11333312"  # the seed's baseline beside ours


def test_per_op_csv(quick):
    with open(quick["out"] / "per_op.csv") as f:
        rows = list(csv.DictReader(f))
    cv = [r for r in rows if r["source"].startswith("cv32e40p")]
    errors = {k: v.get("cv32e40p_error") for k, v in
              json.loads((quick["out"] / "results.json").read_text())["per_op"].items()}
    assert cv, f"no CV32E40P per-op rows: {errors}"
    assert any(r["bucket"] == "aten::add.out" for r in cv)
    # the buckets account for every cycle of the run
    res = {(r["model"], r["variant"]): r for r in csv.DictReader(open(quick["out"] / "results.csv"))
           if r["target"] == "cv32e40p" and r["status"] == "ok"}
    for key, r in res.items():
        total = sum(int(x["value"]) for x in cv if (x["model"], x["variant"]) == key)
        assert total == int(r["total"])


def test_markdown_and_json(quick):
    md = (quick["out"] / "results.md").read_text()
    assert md.startswith("# etmcu benchmark results")
    # every table: each row has as many cells as its header
    tables, cur = [], []
    for ln in md.splitlines() + [""]:
        if ln.startswith("|"):
            cur.append(ln)
        elif cur:
            tables.append(cur)
            cur = []
    assert len(tables) >= 2  # results, per-op (the comparison needs int8 zoo rows)
    for t in tables:
        assert len(t) >= 3 and set(t[1]) <= set("|-"), t[:2]
        for ln in t:
            assert ln.count("|") == t[0].count("|"), ln
    for png in ("cycles.png", "memory.png", "per_op.png"):
        assert f"]({png})" in md
    assert "## Against the published figures" in md and "11,333,312" in md
    assert "## Per-operator breakdown" in md and "### add/fp32" in md
    data = json.loads((quick["out"] / "results.json").read_text())
    assert data["rows"] and data["meta"]["command"].startswith("./etmcu bench")
    # no machine's path in what may be committed: the scratch --output directory as OUT
    assert data["meta"]["command"] == "./etmcu bench --quick --output OUT"


@pytest.mark.parametrize("name", ["cycles.png", "memory.png", "per_op.png"])
def test_png(quick, name):
    data = (quick["out"] / name).read_bytes()
    assert data[:8] == PNG_MAGIC
    assert len(data) > 5000
    w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert w >= 400 and h >= 200


def test_published_data_cites_sources():
    with open(ROOT / "bench" / "published.csv") as f:
        rows = list(csv.DictReader(f))
    assert {r["model"] for r in rows} >= {"ds_cnn", "mobilenet_v1", "resnet8", "autoencoder", "add"}
    for r in rows:
        assert "shared/seeds/" in r["source"]
    seeds = {r["source"].split("shared/seeds/")[1].split()[0].rstrip(",;") for r in rows}
    for s in seeds:
        if SHARED.exists():
            assert (SHARED / "seeds" / s).exists(), s
    ms = {r["model"]: float(r["latency_ms"]) for r in rows}
    assert ms["ds_cnn"] == 5.825 and ms["mobilenet_v1"] == 21.450 and ms["autoencoder"] == 1.208


def test_unavailable_row_says_why(tmp_path):
    """A model too big for the board gives an explicit unavailable row with the error, no numbers."""
    p = subprocess.run(["/usr/bin/python3", str(ROOT / "tools" / "bench" / "bench.py"), "--models", "autoencoder",
                        "--variants", "fp32", "--targets", "cortex-m55", "--no-op-profile", "--output",
                        str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    rows = list(csv.DictReader(open(tmp_path / "results.csv")))
    assert len(rows) == 1
    r = rows[0]
    assert r["status"] == "unavailable"
    assert "does not fit" in r["error"] and "flash" in r["error"]
    assert r["execute"] == r["ram_peak"] == r["ms_400mhz"] == ""
    assert "**unavailable**" in (tmp_path / "results.md").read_text()


@pytest.mark.corpus
def test_xpulp_target_runs_int8_programs_only(tmp_path):
    """cv32e40p-pulp runs the int8 upstream KWS (profiled with the simulator's PULP extensions on)
    faster than the plain core, and skips the fp32 add, whose code would be the same."""
    p = subprocess.run(["/usr/bin/python3", str(ROOT / "tools" / "bench" / "bench.py"), "--models", "add",
                        "kws_upstream", "--targets", "cv32e40p", "cv32e40p-pulp", "--output", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, p.stderr[-3000:]
    rows = {(r["model"], r["target"]): r for r in csv.DictReader(open(tmp_path / "results.csv"))}
    assert set(rows) == {("add", "cv32e40p"), ("kws_upstream", "cv32e40p"), ("kws_upstream", "cv32e40p-pulp")}
    plain, pulp = rows[("kws_upstream", "cv32e40p")], rows[("kws_upstream", "cv32e40p-pulp")]
    assert plain["status"] == pulp["status"] == "ok", (plain["error"], pulp["error"])
    assert pulp["unit"] == "cycles" and int(pulp["execute"]) < int(plain["execute"])
    assert pulp["top_ops"], "the per-operator profile of the pulp firmware is missing"
    per_op = json.load(open(tmp_path / "results.json"))["per_op"]["kws_upstream/int8 (upstream)"]
    assert isinstance(per_op.get("cv32e40p-pulp"), dict), per_op.get("cv32e40p-pulp_error")
    md = (tmp_path / "results.md").read_text()
    assert "with Xpulp" in md and "cv32e40p-pulp cycles" in md
    assert "| identical |" in md  # the Xpulp kernels print the same output bits


def test_opprof_attribution_units():
    import sys

    sys.path.insert(0, str(ROOT / "tools" / "bench"))
    import opprof

    assert opprof.kernel_symbol("aten::_softmax.out") == "aten__softmax_out"
    assert opprof.kernel_symbol("cortex_m::quantized_conv2d.out") == "cortex_m_quantized_conv2d_out"
    total, rows = opprof.parse_profile("x\ncycles=30 instret=20\nprofile: cycles instructions function\n"
                                       "      20       12 foo\n      10        8 bar\n")
    assert total == 30 and rows == [("foo", 20, 12), ("bar", 10, 8)]
    # a subroutine called through a register (a block's requant_fn): its address computed in the
    # op's code is an edge, so its cycles are the op's, not the runtime's
    g = opprof.parse_call_graph(
        "000030a0 <_ZN5etmcu7kernels12_GLOBAL__N_116pointwise_stripsE>:\n"
        "    30a0:\tlui\ta4,0x8\n"
        "    30a4:\tadd\ta4,a4,-712 # 7d38 <etmcu_rv32_requant3_relu_dy>\n"
        "    30a8:\tjal\t5000 <memcpy>\n"
        "    30ac:\tlw\ta5,-16(a5) # 9000 <kTable+0x10>\n"
        "00007d38 <etmcu_rv32_requant3_relu_dy>:\n"
        "    7d38:\tret\n")
    assert g["_ZN5etmcu7kernels12_GLOBAL__N_116pointwise_stripsE"] == {
        "etmcu_rv32_requant3_relu_dy", "memcpy"}


def test_reading_lines_from_the_rows():
    """The comparisons docs/results.md's reading of the results refers to come from the run's rows:
    ratios, code per target, upstream's KWS against our DS-CNN, and an unavailable run named so."""
    import sys

    sys.path.insert(0, str(ROOT / "tools" / "bench"))
    import bench

    def row(model, variant, target, execute, code=10240, status="ok"):
        return {"model": model, "variant": variant, "target": target, "execute": execute, "flash_code": code,
                "status": status}

    rows = [row("ds_cnn", "fp32", "cv32e40p", 700), row("ds_cnn", "int8", "cv32e40p", 10),
            row("ds_cnn", "fp32", "cortex-m55", 90), row("ds_cnn", "int8", "cortex-m55", 3, code=20480),
            row("resnet8", "fp32", "cv32e40p", 300), row("resnet8", "int8", "cv32e40p", 100),
            row("resnet8", "fp32", "cortex-m55", None, status="unavailable"),
            row("resnet8", "int8", "cortex-m55", 40),
            row("kws_upstream", "int8 (upstream)", "cv32e40p", 11),
            row("kws_upstream", "int8 (upstream)", "cortex-m55", 3)]
    text = "\n".join(bench.reading_lines(rows))
    assert "| DS-CNN | 70.0x | 30.0x |" in text
    assert "| ResNet-8 | 3.0x | unavailable |" in text
    assert "| DS-CNN | 10.00 |  | 20.00 |  | 36.03 |" in text  # published code from bench/published.csv
    assert "cv32e40p +10.0 %, cortex-m55 +0.0 %." in text
    assert "MobileNetV1" not in text  # no rows, no line
