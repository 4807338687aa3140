"""Offset-overlap contracts hold for every variant: cortex_m::pad.out run with its out placed d
bytes before its input in one arena (d = lowering/overlap.py pad_min_distance, as a memory plan
places them, also rounded up to the planner's 16-byte alignment) gives exactly the result of
separate buffers. pad has one implementation (kernels/cortex_m/ref/op_pad.cpp) that every variant
links; the test still runs each variant's runner."""

import numpy as np
import pytest

import reference as ref
from int8_harness import Ref, T
from etmcu.lowering.overlap import pad_min_distance
from test_int8_ops import i8

CL = (0, 2, 3, 1)


class _Meta:
    """Shape (logical N, C, H, W) and dim order, as the exporter's IR tensors have them."""

    def __init__(self, phys_nhwc, order=CL):
        n, h, w, c = phys_nhwc
        self.shape, self.order = (n, c, h, w), order


def _case(rng, seed):
    x = i8(rng, tuple(int(v) for v in rng.integers(1, 7, size=4)))   # NHWC
    pre = [0, *(int(v) for v in rng.integers(0, 3, size=3))]
    post = [0, *(int(v) for v in rng.integers(0, 3, size=3))]
    if seed % 3 == 0:      # Keras 'same' stride 2: bottom/right only, as MobileNetV1's pads
        pre, post = [0, 0, 0, 0], [0, 1, 1, 0]
    if seed % 5 == 4:      # batch pads too
        pre[0], post[0] = 1, 1
    return x, pre, post


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("align", [1, 16])
def test_pad_out_over_its_input(call, seed, align):
    rng = np.random.default_rng(4400 + seed)
    x, pre, post = _case(rng, seed)
    value = int(rng.integers(-128, 128))
    want = ref.pad(x, pre, post, value)
    d = pad_min_distance(_Meta(x.shape), _Meta(want.shape), pre, post)
    assert d is not None and d > 0
    d = (d + align - 1) // align * align
    arena = max(d + x.nbytes, want.nbytes)
    assert arena < x.nbytes + want.nbytes or x.nbytes == 0   # the point: less than both
    xin = T(x, [x.shape[0], x.shape[3], x.shape[1], x.shape[2]], list(CL), arena_offset=d)
    out = T(np.zeros_like(want), [want.shape[0], want.shape[3], want.shape[1], want.shape[2]],
            list(CL), write=True, arena_offset=0)
    (got,) = call("cortex_m::pad.out", [xin, pre, post, value, out, Ref(4)], arena_bytes=arena)
    np.testing.assert_array_equal(got, want)


def test_contract_refuses_what_it_does_not_cover():
    x, y = _Meta((1, 4, 4, 3), (0, 1, 2, 3)), _Meta((1, 5, 5, 3), (0, 1, 2, 3))
    assert pad_min_distance(x, y, [0, 0, 0, 0], [0, 1, 1, 0]) is None     # not channels-last
    assert pad_min_distance(_Meta((1, 4, 4, 3)), _Meta((1, 6, 5, 3)),
                            [0, 0, 0, 0], [0, 1, 1, 0]) is None           # sizes disagree


def test_closed_form_equals_the_kernel_loop():
    """Method load uses the O(1) form (kernels/api/alias_contract.h); the planner the loop that
    mirrors the kernel. They agree on every shape and pad."""
    from etmcu.lowering.overlap import pad_min_distance_closed
    rng = np.random.default_rng(4500)
    for _ in range(300):
        x = tuple(int(v) for v in rng.integers(1, 6, size=4))
        pre = [int(v) for v in rng.integers(0, 3, size=4)]
        post = [int(v) for v in rng.integers(0, 3, size=4)]
        y = tuple(s + a + b for s, a, b in zip(x, pre, post))
        assert pad_min_distance(_Meta(x), _Meta(y), pre, post) == \
            pad_min_distance_closed(_Meta(x), _Meta(y), pre, post)
