"""Plans below the naive floor (offset overlaps, lowering/overlap.py) change no output bit: int8
I/O programs with and without overlaps give identical int8 outputs on the host runtime, for
MobileNetV1-0.25 and for random int8 CNNs with Keras-style asymmetric padding; and method load
refuses a hand-broken plan whose overlap is closer than the kernel's contract."""

import dataclasses
import subprocess

import numpy as np
import pytest
import torch
from torch import nn

import q_util
from etmcu import export, quant_eval
from etmcu.serialize.pte import build_pte

N = 4


def _pair(model, shape):
    x = (torch.randn(shape, generator=torch.Generator().manual_seed(0)),)
    a = export(model, x, quantize="int8", int8_io=True)
    b = export(model, x, quantize="int8", int8_io=True, overlap=False)
    return a, b


def _runtime(prog, xs, tmp_path, tag):
    if not q_util.CLI.exists():
        pytest.fail(f"host runtime CLI not built: {q_util.CLI} (./etmcu build)")
    pte = prog.save(tmp_path / f"{tag}.pte")
    d = tmp_path / tag
    d.mkdir()
    return quant_eval.run_runtime(q_util.CLI, pte, xs, d)


def _same_outputs(a, b, shape, tmp_path, n=N):
    g = torch.Generator().manual_seed(7)
    xs = [(torch.randn(shape, generator=g).numpy(),) for _ in range(n)]
    ra, rb = _runtime(a, xs, tmp_path, "overlap"), _runtime(b, xs, tmp_path, "whole")
    for u, v in zip(ra, rb):
        assert u.dtype == np.int8 and u.tobytes() == v.tobytes()


# Issue 14's targets for the planned activation bytes of the int8 I/O zoo programs.
TARGETS = {"ds_cnn": 10240, "mobilenet_v1": 40960, "resnet8": 40960, "autoencoder": 768}


@pytest.mark.parametrize("name", list(TARGETS))
def test_zoo_below_the_naive_floor(name, tmp_path):
    mod, m = q_util.model(name)
    a, b = _pair(m, mod.INPUT_SHAPES[0])
    print(f"{name} int8 I/O: planned {a.plan.planned_bytes} B with overlaps "
          f"({a.plan.overlaps}), {b.plan.planned_bytes} B without, naive floor "
          f"{a.plan.naive_floor} B")
    assert a.plan.planned_bytes <= TARGETS[name]
    if name != "autoencoder":   # (linear layers only: no overlap contract, already at its floor)
        assert a.plan.overlaps > 0
        assert a.plan.planned_bytes < a.plan.naive_floor == b.plan.naive_floor \
            <= b.plan.planned_bytes
    _same_outputs(a, b, mod.INPUT_SHAPES[0], tmp_path)


def test_default_plan_keeps_only_the_overlaps_its_bytes_need():
    """An out over its input costs its kernel time (slabs, strips, loops last to first): the
    default plan drops every overlap link the planned bytes do not need, overlap="every" keeps
    them (the overlap paths' tests), for the same bytes."""
    mod, m = q_util.model("mobilenet_v1")
    x = (torch.randn(mod.INPUT_SHAPES[0], generator=torch.Generator().manual_seed(0)),)
    a = export(m, x, quantize="int8", int8_io=True)
    e = export(m, x, quantize="int8", int8_io=True, overlap="every")
    print(f"mobilenet_v1: {a.plan.overlaps} overlaps by default, {e.plan.overlaps} kept with "
          f"overlap='every', {a.plan.planned_bytes} / {e.plan.planned_bytes} B")
    assert a.plan.planned_bytes == e.plan.planned_bytes
    assert 0 < a.plan.overlaps < e.plan.overlaps


def _random_cnn(seed):
    """Stride 1-2, kernels 1-5, depthwise and pointwise, asymmetric 'same' pads (ZeroPad2d)."""
    rng = np.random.default_rng(seed)
    c, layers = int(rng.integers(2, 9)), []
    cin = 3
    for _ in range(int(rng.integers(3, 6))):
        k, s = int(rng.integers(1, 6)), int(rng.integers(1, 3))
        total = k - 1 if s == 1 else max(k - 2, 0)
        if total:
            layers.append(nn.ZeroPad2d((total // 2, total - total // 2,
                                        total // 2, total - total // 2)))
        if rng.random() < 0.5 and cin > 1:
            layers += [nn.Conv2d(cin, cin, k, s, groups=cin), nn.ReLU()]         # depthwise
            layers += [nn.Conv2d(cin, c, 1), nn.ReLU()]                          # pointwise
        else:
            layers += [nn.Conv2d(cin, c, k, s), nn.ReLU()]
        cin, c = c, int(rng.integers(2, 17))
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 4)]
    torch.manual_seed(seed)
    return nn.Sequential(*layers).eval()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_cnns(seed, tmp_path):
    shape = (1, 3, 24, 20)
    a, b = _pair(_random_cnn(seed), shape)
    print(f"random CNN {seed}: planned {a.plan.planned_bytes} B with overlaps "
          f"({a.plan.overlaps}), {b.plan.planned_bytes} B without, floor {a.plan.naive_floor} B")
    assert a.plan.planned_bytes < a.plan.naive_floor <= b.plan.planned_bytes
    _same_outputs(a, b, shape, tmp_path)


@pytest.mark.parametrize("after", [False, True])
def test_method_load_refuses_a_too_close_overlap(after, tmp_path):
    """The exporter's plan with one op's out moved 16 bytes closer to its input than the
    contract allows - an out before its input (the pad's) or after it (a chain's convolutions,
    whose loops then run last to first): refused at load, naming the op."""
    mod, m = q_util.model("mobilenet_v1")
    a, _ = _pair(m, mod.INPUT_SHAPES[0])
    method, plan = a.method, a.plan

    def tight(ov):   # placed exactly at the contract's (aligned) distance in that direction
        g = plan.placement[ov[0]][1] - plan.placement[ov[1]][1]     # input - out address
        want = ov[3] if after else ov[2]
        return want is not None and (g < 0) == after and abs(g) == (want + 15) // 16 * 16
    ov = next(ov for ov in method.overlaps if ov is not None and tight(ov)
              and (after or ov[3] is None))     # before: the pad (no loop order after its input)
    placement = dict(plan.placement)
    mem, off = placement[ov[1]]
    placement[ov[1]] = (mem, off - 16 if after else off + 16)
    broken = dataclasses.replace(plan, placement=placement)
    buf, _ = build_pte([(method, broken)])
    pte = tmp_path / "broken.pte"
    pte.write_bytes(buf)
    p = subprocess.run([str(q_util.CLI), "run", str(pte)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode != 0
    assert "memory plan overlaps an op's out with an input" in p.stderr + p.stdout
    assert ("cortex_m::quantized_" if after else "cortex_m::pad.out") in p.stderr + p.stdout
    if after:
        # Firmware leaves the alias check out of the device for an embedded program (the host
        # runtime runs it when the firmware is built): the build refuses this plan, naming why.
        fw = subprocess.run(["/usr/bin/python3", str(q_util.ROOT / "tools" / "firmware" / "etmcu_fw.py"),
                             str(pte), "--target", "cv32e40p", "--quiet"], capture_output=True,
                            text=True, timeout=900)
        assert fw.returncode != 0
        assert "memory plan overlaps an op's out with an input" in fw.stderr, fw.stderr


def test_alias_check_feature_follows_the_plan(tmp_path):
    """`inspect --features` asks for the load-time alias check (ETMCU_FEATURE_ALIAS_CHECK) only
    when some call's out shares planned bytes with an input; firmware for other programs leaves
    the check out (the add firmware's code size)."""
    mod, m = q_util.model("mobilenet_v1")
    a, b = _pair(m, mod.INPUT_SHAPES[0])
    for prog, want in ((a, "1"), (b, "0")):
        pte = prog.save(tmp_path / f"f{want}.pte")
        p = subprocess.run([str(q_util.CLI), "inspect", str(pte), "--features"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        assert f"ETMCU_FEATURE_ALIAS_CHECK={want}" in p.stdout.split()
