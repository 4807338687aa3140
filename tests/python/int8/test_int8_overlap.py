"""Offset-overlap contracts hold for every variant (ref, scalar, rv32, xpulp on the host): an op
run with its out placed at the contract's distance from its input in one arena (lowering/
overlap.py, as a memory plan places them, also rounded up to the planner's 16-byte alignment)
gives exactly the result of separate buffers. cortex_m::pad.out (out d bytes before its input;
one implementation, kernels/cortex_m/ref/op_pad.cpp, that every variant links), and the
convolution family, out before (d) and after (e) its input: quantized_conv2d's 1x1 strips
(pointwise_distance), its other layers and quantized_depthwise_conv2d's slabs
(slab_distance)."""

import numpy as np
import pytest

import reference as ref
from int8_harness import Ref, T
from etmcu.lowering.overlap import pad_min_distance
from test_int8_ops import i8, rq_params

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


@pytest.mark.parametrize("align", [1, 16])
@pytest.mark.parametrize("shape,post", [((1, 9, 8, 3), [0, 1, 1, 0]), ((1, 7, 11, 5), [0, 1, 2, 0])])
def test_pad_out_over_its_input_rows_shifted(call, shape, post, align):
    """Rows of 16 bytes or more that land 3 (or 5, 10) bytes further along each row: the kernel's
    word-joining row copy (MobileNetV1's 3-channel input pad), out before its input."""
    rng = np.random.default_rng(4460 + shape[3])
    x, pre = i8(rng, shape), [0, 0, 0, 0]
    want = ref.pad(x, pre, post, -7)
    d = (pad_min_distance(_Meta(x.shape), _Meta(want.shape), pre, post) + align - 1) // align * align
    arena = max(d + x.nbytes, want.nbytes)
    xin = T(x, [x.shape[0], x.shape[3], x.shape[1], x.shape[2]], list(CL), arena_offset=d)
    out = T(np.zeros_like(want), [want.shape[0], want.shape[3], want.shape[1], want.shape[2]],
            list(CL), write=True, arena_offset=0)
    (got,) = call("cortex_m::pad.out", [xin, pre, post, -7, out, Ref(4)], arena_bytes=arena)
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


# ----------------------------------------------------------------------------- pointwise conv
class _W:
    """A constant weight's shape as the exporter's IR has it ([Cout, 1, 1, Cin])."""

    def __init__(self, shape):
        self.shape, self.order = tuple(shape), (0, 1, 2, 3)


def _place(x, want, d, align, after=False):
    """The input d bytes after the out's start (after=False) or the out d bytes after the
    input's, in one arena, d rounded up to `align` as the planner does."""
    d = (d + align - 1) // align * align
    n, h, w, c = x.shape
    on, oh, ow, oc = want.shape
    xin = T(x, [n, c, h, w], list(CL), arena_offset=0 if after else d)
    out = T(np.zeros_like(want), [on, oc, oh, ow], list(CL), write=True,
            arena_offset=d if after else 0)
    return xin, out, max(d + want.nbytes, x.nbytes) if after else max(d + x.nbytes, want.nbytes)


def _pointwise_case(rng, seed):
    """1x1 layers around the strip size: Cout below, equal to and above Cin, channel counts that
    are not whole words or blocks of four, batches, and requantizations outside the micro-kernel's
    2v form (shift >= 0: those blocks take the dot() path)."""
    from etmcu.lowering.overlap import POINTWISE_STRIP as S
    n = 2 if seed % 5 == 4 else 1
    h = int(rng.integers(1, 9))
    w = int(rng.choice([1, 3, S // 2, S - 1, S, S + 1, 2 * S + 7]) if seed % 2 else rng.integers(1, 12))
    cin = int(rng.choice([4, 8, 16, 3, 7, 12]))
    cout = int(rng.choice([4, 8, 16, 24, 5, 9, cin]))
    mult, shift = rq_params(rng, cout, -20, -1 if seed % 3 else 1)
    return n, h, w, cin, cout, mult, shift


@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("align", [1, 16])
@pytest.mark.parametrize("after", [False, True])
def test_pointwise_conv_out_over_its_input(call, seed, align, after):
    from etmcu.lowering.overlap import pointwise_distance
    rng = np.random.default_rng(4600 + seed)
    n, h, w, cin, cout, mult, shift = _pointwise_case(rng, seed)
    x = i8(rng, (n, h, w, cin))
    wt = i8(rng, (cout, 1, 1, cin))
    bias = rng.integers(-5000, 5000, size=cout).astype(np.int32)
    in_off, out_off = int(rng.integers(-127, 129)), int(rng.integers(-128, 128))
    lo, hi = (-128, 127) if seed % 2 else (out_off, 127)     # a fused ReLU too
    want = ref.conv2d_nhwc(x, wt, bias, (1, 1), (0, 0), (1, 1), in_off, out_off, mult, shift,
                           lo, hi)
    d = pointwise_distance(_Meta(x.shape), _W(wt.shape), [1, 1], [0, 0], [1, 1],
                           _Meta(want.shape), after)
    assert d is not None
    xin, out, arena = _place(x, want, d, align, after)
    (got,) = call("cortex_m::quantized_conv2d.out",
                  [xin, T(wt), T(bias), [1, 1], [0, 0], [1, 1], in_off, out_off, T(mult),
                   T(shift), lo, hi, T(np.zeros(16, np.uint8)), out, Ref(13)],
                  arena_bytes=arena)
    np.testing.assert_array_equal(got, want)


def test_pointwise_contract_covers_only_1x1_stride_1_unpadded():
    from etmcu.lowering.overlap import pointwise_distance as d
    x, y, w = _Meta((1, 5, 5, 8)), _Meta((1, 5, 5, 8)), _W((8, 1, 1, 8))
    assert d(x, w, [1, 1], [0, 0], [1, 1], y) is not None
    assert d(x, w, [2, 2], [0, 0], [1, 1], _Meta((1, 3, 3, 8))) is None        # stride
    assert d(x, w, [1, 1], [1, 1], [1, 1], _Meta((1, 7, 7, 8))) is None        # padding
    assert d(x, _W((8, 3, 3, 8)), [1, 1], [0, 0], [1, 1], _Meta((1, 3, 3, 8))) is None
    assert d(x, _W((8, 1, 1, 4)), [1, 1], [0, 0], [1, 1], y) is None           # groups
    assert d(_Meta((1, 5, 5, 8), (0, 1, 2, 3)), w, [1, 1], [0, 0], [1, 1], y) is None


def test_pointwise_closed_form_equals_the_strip_loop():
    """Method load uses the three-strip form (kernels/api/alias_contract.h); the planner the loop
    over every strip. They agree on every shape, both directions; for Cout <= Cin the distance
    before the input is one strip of outputs."""
    from etmcu.lowering.overlap import (POINTWISE_STRIP, pointwise_distance,
                                        pointwise_distance_closed)
    rng = np.random.default_rng(4700)
    for _ in range(400):
        n, h, w = int(rng.integers(1, 3)), int(rng.integers(1, 40)), int(rng.integers(1, 40))
        cin, cout = (int(v) for v in rng.integers(1, 70, size=2))
        args = (_Meta((n, h, w, cin)), _W((cout, 1, 1, cin)), [1, 1], [0, 0], [1, 1],
                _Meta((n, h, w, cout)))
        for after in (False, True):
            assert pointwise_distance(*args, after) == pointwise_distance_closed(*args, after)
        if cout <= cin:
            assert pointwise_distance(*args) == min(POINTWISE_STRIP, n * h * w) * cout


# ----------------------------------------------------------------------------- row slabs
def _slab_case(rng, seed, layers):
    """A model's layer shape (every fourth seed) or a random one: kernels 1-5, strides 1-2,
    padding 0-2, dilation 1-2."""
    if seed % 4 == 0:
        return layers[(seed // 4) % len(layers)]
    kh, kw = (int(v) for v in rng.integers(1, 6, size=2))
    stride = tuple(int(v) for v in rng.integers(1, 3, size=2))
    pad = tuple(int(rng.integers(0, min(k, 3))) for k in (kh, kw))
    dil = (1, 1) if seed % 3 else tuple(int(v) for v in rng.integers(1, 3, size=2))
    h = int(rng.integers(dil[0] * (kh - 1) + 1, 20))
    w = int(rng.integers(dil[1] * (kw - 1) + 1, 14))
    return h, w, int(rng.integers(1, 13)), int(rng.integers(1, 13)), kh, kw, stride, pad, dil





CONV_SLAB_LAYERS = [   # h, w, cin, cout, kh, kw, stride, pad, dil
    (32, 32, 16, 16, 3, 3, (1, 1), (1, 1), (1, 1)),     # ResNet-8
    (97, 97, 3, 8, 3, 3, (2, 2), (0, 0), (1, 1)),       # MobileNetV1's first layer (after its pad)
    (32, 32, 16, 32, 1, 1, (2, 2), (0, 0), (1, 1)),     # ResNet-8's 1x1 shortcut
    (49, 10, 1, 64, 10, 4, (2, 2), (5, 1), (1, 1)),     # DS-CNN's first layer
]


@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("align", [1, 16])
@pytest.mark.parametrize("after", [False, True])
def test_conv_out_over_its_input(call, seed, align, after):
    from etmcu.lowering.overlap import slab_distance
    rng = np.random.default_rng(4800 + seed)
    h, w, cin, cout, kh, kw, stride, pad, dil = _slab_case(rng, seed, CONV_SLAB_LAYERS)
    groups = 1 if seed % 5 else int(np.gcd(cin, cout))
    x = i8(rng, (1, h, w, cin))
    wt = i8(rng, (cout, kh, kw, cin // groups))
    bias = rng.integers(-5000, 5000, size=cout).astype(np.int32)
    mult, shift = rq_params(rng, cout, -20, -1 if seed % 3 else 1)
    in_off, out_off = int(rng.integers(-127, 129)), int(rng.integers(-128, 128))
    lo, hi = (-128, 127) if seed % 2 else (out_off, 127)
    want = ref.conv2d_nhwc(x, wt, bias, stride, pad, dil, in_off, out_off, mult, shift, lo, hi)
    d = slab_distance(_Meta(x.shape), _W(wt.shape), _Meta(want.shape), stride, pad, dil, after)
    assert d is not None
    xin, out, arena = _place(x, want, d, align, after)
    (got,) = call("cortex_m::quantized_conv2d.out",
                  [xin, T(wt), T(bias), list(stride), list(pad), list(dil), in_off, out_off,
                   T(mult), T(shift), lo, hi, T(np.zeros(16, np.uint8)), out, Ref(13)],
                  arena_bytes=arena)
    np.testing.assert_array_equal(got, want)


DW_SLAB_LAYERS = [   # h, w, cin, multiplier, kh, kw, stride, pad, dil  (cin * mult out channels)
    (25, 5, 64, 1, 3, 3, (1, 1), (1, 1), (1, 1)),       # DS-CNN
    (49, 49, 16, 1, 3, 3, (2, 2), (0, 0), (1, 1)),      # MobileNetV1 stride 2 (after its pad)
    (48, 48, 8, 1, 3, 3, (1, 1), (1, 1), (1, 1)),       # MobileNetV1's first depthwise
    (49, 10, 1, 64, 10, 4, (2, 2), (5, 1), (1, 1)),     # KWS's first layer as a depthwise
]


@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("align", [1, 16])
@pytest.mark.parametrize("after", [False, True])
def test_depthwise_out_over_its_input(call, seed, align, after):
    """At the op's contract distance (overlap.py dw_distance): the row contract for stride-1
    layers of the input's shape with the out before the input (the kernels run whole), slabs
    otherwise."""
    from etmcu.lowering.overlap import dw_distance
    rng = np.random.default_rng(4900 + seed)
    h, w, cin, dm, kh, kw, stride, pad, dil = _slab_case(rng, seed, DW_SLAB_LAYERS)
    if seed % 4:
        dm = int(rng.choice([1, 1, 2, 4]))
    x = i8(rng, (1, h, w, cin))
    wt = i8(rng, (1, kh, kw, cin * dm))
    bias = rng.integers(-5000, 5000, size=cin * dm).astype(np.int32)
    mult, shift = rq_params(rng, cin * dm, -20, -1 if seed % 3 else 1)
    in_off, out_off = int(rng.integers(-127, 129)), int(rng.integers(-128, 128))
    lo, hi = (-128, 127) if seed % 2 else (out_off, 127)
    want = ref.depthwise_conv2d_nhwc(x, wt, bias, stride, pad, dil, dm, in_off, out_off, mult,
                                     shift, lo, hi)
    d = dw_distance([_Meta(x.shape), _W(wt.shape), None, stride, pad, dil],
                    _Meta(want.shape), after)
    assert d is not None
    xin, out, arena = _place(x, want, d, align, after)
    (got,) = call("cortex_m::quantized_depthwise_conv2d.out",
                  [xin, T(wt), T(bias), list(stride), list(pad), list(dil), dm, in_off, out_off,
                   T(mult), T(shift), lo, hi, T(np.zeros(0, np.uint8)), out, Ref(14)],
                  arena_bytes=arena)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("layer", [(3, 1, 1), (7, 2, 0)])
@pytest.mark.parametrize("c", [16, 13])
@pytest.mark.parametrize("align", [1, 16])
@pytest.mark.parametrize("after", [False, True])
def test_depthwise_small_planes_out_over_its_input(call, request, layer, c, align, after):
    """3 x 3 output planes with dyadic factors and a ReLU (the plain core's util/depthwise_small.h,
    which takes an out a whole number of pixels from its input at stride 1, and at stride 2 one
    that starts no later than its input) at the op's contract distance and, for each, the out
    exactly over the input (rv32 only: no other variant's path takes that place, which no plan
    gives): the same bits as separate buffers."""
    from etmcu.lowering.overlap import dw_distance
    from test_int8_ops import dyadic_params
    hw, s, p = layer
    rng = np.random.default_rng(5100 + hw + c + align + after)
    x, wt = i8(rng, (1, hw, hw, c)), i8(rng, (1, 3, 3, c))
    bias = rng.integers(-5000, 5000, size=c).astype(np.int32)
    mult, shift = dyadic_params(rng, c)
    in_off, out_off = int(rng.integers(-127, 129)), int(rng.integers(-128, 128))
    want = ref.depthwise_conv2d_nhwc(x, wt, bias, (s, s), (p, p), (1, 1), 1, in_off, out_off, mult,
                                     shift, out_off, 127)
    d = dw_distance([_Meta(x.shape), _W(wt.shape), None, [s, s], [p, p], [1, 1]],
                    _Meta(want.shape), after)
    assert d is not None
    for dist in (d, 0) if request.node.callspec.params["call"] == "rv32" else (d,):
        xin, out, arena = _place(x, want, dist, align, after)
        (got,) = call("cortex_m::quantized_depthwise_conv2d.out",
                      [xin, T(wt), T(bias), [s, s], [p, p], [1, 1], 1, in_off, out_off, T(mult),
                       T(shift), out_off, 127, T(np.zeros(0, np.uint8)), out, Ref(14)],
                      arena_bytes=arena)
        np.testing.assert_array_equal(got, want)


def test_dw_row_contract_is_smaller_than_slabs_where_it_applies():
    """DS-CNN's 3x3 depthwise (25x5x64, pad 1): (pad + 1) rows = 640 bytes against the slabs'
    five rows; stride 2, another shape or an out after the input keep the slabs."""
    from etmcu.lowering.overlap import dw_distance, dw_rows_distance, slab_distance
    x, w, one = _Meta((1, 25, 5, 64)), _W((1, 3, 3, 64)), [1, 1]
    assert dw_rows_distance(x, w, x, one, one, one) == 2 * 5 * 64
    assert slab_distance(x, w, x, one, one, one) == 5 * 5 * 64
    assert dw_distance([x, w, None, one, one, one], x) == 640
    assert dw_distance([x, w, None, one, one, one], x, True) == slab_distance(x, w, x, one, one,
                                                                             one, True)
    y2 = _Meta((1, 13, 3, 64))
    assert dw_rows_distance(x, w, y2, [2, 2], one, one) is None
    assert dw_distance([x, w, None, [2, 2], one, one], y2) == slab_distance(x, w, y2, [2, 2], one,
                                                                           one)


def test_slab_contract_refuses_what_it_does_not_cover():
    from etmcu.lowering.overlap import slab_distance
    w, one = _W((4, 3, 3, 4)), [1, 1]

    def d(x, y, stride, pad):
        return slab_distance(x, w, y, stride, pad, one)
    assert d(_Meta((2, 8, 8, 4)), _Meta((2, 8, 8, 4)), one, one) is None           # a batch
    assert d(_Meta((1, 2, 8, 4)), _Meta((1, 8, 8, 4)), one, [3, 0]) is None        # rows below
    assert d(_Meta((1, 8, 8, 4), (0, 1, 2, 3)), _Meta((1, 8, 8, 4)), one, one) is None
