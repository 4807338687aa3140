"""Every cortex_m:: and quantized_decomposed:: kernel, called through the real kernel ABI by
int8_run_op on random shapes and parameters, must equal the numpy reference (reference.py) bit
for bit; malformed calls must fail cleanly with a message naming the op."""

import numpy as np
import pytest

import reference as ref
from int8_harness import T, Ref, nhwc, out_like, out_nhwc

SEEDS = range(6)


def rq_params(rng, n, shift_lo=-12, shift_hi=1):
    mult = rng.integers(1 << 30, (1 << 31) - 1, size=n, dtype=np.int64).astype(np.int32)
    shift = rng.integers(shift_lo, shift_hi + 1, size=n).astype(np.int32)
    return mult, shift


def dyadic_params(rng, n):
    """Dyadic requantization pairs (python/etmcu/quantize.py dyadic_requant): multiplier m << 11
    with m log-uniform over [1, 2**20) (every bit length, so every clamp bound), shift -1; the
    Xpulp kernels requantize them with one multiply (cmsis_math.h requantize_offset_dyadic)."""
    m = np.exp(rng.uniform(0, np.log((1 << 20) - 1), size=n)).astype(np.int64)
    m = np.clip(m, 1, (1 << 20) - 1)
    return (m << 11).astype(np.int32), np.full(n, -1, np.int32)


def i8(rng, shape):
    return rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)


def act_range(rng):
    lo = int(rng.integers(-128, 0))
    return lo, int(rng.integers(lo, 128))


def scratch(n=0):
    return T(np.zeros(n, dtype=np.uint8))


# ----------------------------------------------------------------------------- quantize
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_cortex_m_quantize_dequantize(call, seed, dtype):
    rng = np.random.default_rng(seed)
    shape = tuple(int(v) for v in rng.integers(1, 6, size=int(rng.integers(1, 5))))
    x = (rng.standard_normal(shape) * rng.uniform(0.1, 50)).astype(np.float32)
    scale = float(rng.uniform(0.005, 0.5))
    info = np.iinfo(dtype)
    zp = int(rng.integers(info.min // 2, info.max // 2))
    code = 1 if dtype == np.int8 else 2
    (q,) = call("cortex_m::quantize_per_tensor.out",
                [T(x), scale, zp, info.min, info.max, code, out_like(shape, dtype), Ref(6)])
    np.testing.assert_array_equal(q, ref.quantize(x, scale, zp, info.min, info.max, dtype))
    (y,) = call("cortex_m::dequantize_per_tensor.out",
                [T(q), scale, zp, info.min, info.max, code, out_like(shape, np.float32), Ref(6)])
    assert y.tobytes() == ref.dequantize(q, scale, zp).tobytes()


def test_cortex_m_quantize_ties_to_even_and_saturation(call):
    scale = 0.5
    x = np.array([0.25, 0.75, -0.25, -0.75, 1e9, -1e9, 63.0, -64.25], dtype=np.float32)
    (q,) = call("cortex_m::quantize_per_tensor.out",
                [T(x), scale, -3, -128, 127, 1, out_like(x.shape, np.int8), Ref(6)])
    np.testing.assert_array_equal(q, [-3, -1, -3, -5, 127, -128, 123, -128])


# Scales at float32's ends: subnormal (reciprocal infinite, or finite above 2^126), the smallest
# normal, huge (reciprocal subnormal), the largest float, and an Int scale.
EXTREME_SCALES = [2.0 ** -149, 1e-40, 1.5 * 2.0 ** -128, 2.0 ** -126, 1e-30, 0.1, 3.0, 1e20,
                  2.0 ** 126, 3e38, float(np.finfo(np.float32).max), 7]


def quantize_exact(x, scale, zp, qmin, qmax):
    """The kernels' float32 semantics, guards included: x * float32(1 / float32(scale)) rounded
    half to even; >= 2^30 gives qmax, <= -2^30 qmin, NaN the zero point; + zp, clamped."""
    with np.errstate(all="ignore"):
        inv = np.float32(1.0) / np.float32(scale)
        r = np.rint(np.asarray(x, dtype=np.float32) * inv).astype(np.float64)
    v = np.where(np.isnan(r), zp, np.where(r >= 2.0 ** 30, qmax, np.where(
        r <= -2.0 ** 30, qmin, zp + np.nan_to_num(r, nan=0, posinf=0, neginf=0))))
    return np.clip(v, qmin, qmax).astype(np.int64)


@pytest.mark.parametrize("scale", EXTREME_SCALES)
def test_cortex_m_quantize_dequantize_extreme_scales(call, scale):
    f32 = np.finfo(np.float32)
    rng = np.random.default_rng(13)
    with np.errstate(over="ignore"):  # (ties past float32's range become infinities)
        x = np.concatenate([
            np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, -3e-39, f32.tiny, f32.max, -f32.max, np.inf,
                      -np.inf, np.nan, 0.5, 1.5, 2.5, -2.5, 1e-20, 1e20], dtype=np.float32),
            (rng.standard_normal(64) * np.exp2(rng.uniform(-150, 128, 64))).astype(np.float32),
            # exact ties of the product where the scale allows them
            ((np.arange(-6, 6) + 0.5) * np.float32(scale)).astype(np.float32)])
    for dtype, code in ((np.int8, 1), (np.int16, 2)):
        info = np.iinfo(dtype)
        for zp in (0, -5, int(info.max) - 1):
            (q,) = call("cortex_m::quantize_per_tensor.out",
                        [T(x), scale, zp, info.min, info.max, code, out_like(x.shape, dtype),
                         Ref(6)])
            np.testing.assert_array_equal(q, quantize_exact(x, scale, zp, info.min, info.max))
            qs = np.arange(info.min, info.max + 1, 97 if dtype == np.int16 else 1).astype(dtype)
            (y,) = call("cortex_m::dequantize_per_tensor.out",
                        [T(qs), scale, zp, info.min, info.max, code,
                         out_like(qs.shape, np.float32), Ref(6)])
            with np.errstate(all="ignore"):
                assert y.tobytes() == ref.dequantize(qs, scale, zp).tobytes()


@pytest.mark.parametrize("op", ["cortex_m::quantize_per_tensor.out",
                                "cortex_m::dequantize_per_tensor.out"])
@pytest.mark.parametrize("scale", [0.0, -0.0, -0.5, 1e-50, 1e300, -3])
def test_cortex_m_quantize_rejects_meaningless_scales(call, op, scale):
    # (1e-50 and 1e300 narrow to 0 and infinity; the harness's JSON cannot carry inf or NaN
    # itself: tests/kernels/int8/test_float_bits.cpp ScalesTheArgumentChecksReject checks those)
    src = np.zeros(4, np.float32 if op.startswith("cortex_m::quantize") else np.int8)
    dst = np.int8 if op.startswith("cortex_m::quantize") else np.float32
    err = call(op, [T(src), scale, 0, -128, 127, 1, out_like((4,), dst), Ref(6)],
               expect_error=True)
    assert "error: InvalidArgument" in err and "scale must be a positive finite float32" in err


def test_cortex_m_quantize_keeps_layout(call):
    x = np.random.default_rng(0).standard_normal((1, 1, 7, 5)).astype(np.float32)
    order = [0, 2, 1, 3]  # as the KWS input
    (q,) = call("cortex_m::quantize_per_tensor.out",
                [T(x, x.shape, order), 0.1, 3, -128, 127, 1,
                 out_like(x.shape, np.int8, x.shape, order), Ref(6)])
    np.testing.assert_array_equal(q, ref.quantize(x, 0.1, 3, -128, 127))
    err = call("cortex_m::quantize_per_tensor.out",
               [T(np.zeros((1, 2, 3, 4), np.float32)), 0.1, 3, -128, 127, 1,
                out_like((1, 3, 4, 2), np.int8, (1, 2, 3, 4), [0, 2, 3, 1]), Ref(6)],
               expect_error=True)
    assert "cortex_m::quantize_per_tensor.out" in err and "layout" in err


# ----------------------------------------------------------------------------- conv family
def _conv_case(rng, depthwise=False):
    n = 1 if depthwise else int(rng.integers(1, 3))
    h, w = (int(v) for v in rng.integers(1, 10, size=2))
    k = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    dil = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
    pad = (int(rng.integers(0, 3)), int(rng.integers(0, 3)))
    stride = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
    h = max(h, dil[0] * (k[0] - 1) + 1 - 2 * pad[0])
    w = max(w, dil[1] * (k[1] - 1) + 1 - 2 * pad[1])
    return n, h, w, k, dil, pad, stride


@pytest.mark.parametrize("seed", range(12))
def test_quantized_conv2d(call, seed):
    rng = np.random.default_rng(100 + seed)
    n, h, w, k, dil, pad, stride = _conv_case(rng)
    groups = int(rng.choice([1, 1, 2, 3]))
    kc = int(rng.integers(1, 6))
    cin = kc * groups
    cout = groups * int(rng.integers(1, 5))
    if seed == 0:  # a 1x1 "matrix product" layer like KWS's
        k, dil, pad, stride, groups, kc, cin, cout = (1, 1), (1, 1), (0, 0), (1, 1), 1, 7, 7, 9
    x = i8(rng, (n, h, w, cin))
    wt = i8(rng, (cout, k[0], k[1], kc))
    bias = rng.integers(-5000, 5000, size=cout).astype(np.int32) if seed % 3 else None
    mult, shift = rq_params(rng, cout)
    in_off = int(rng.integers(-127, 129))
    out_off = int(rng.integers(-128, 128))
    lo, hi = act_range(rng)
    want = ref.conv2d_nhwc(x, wt, bias, stride, pad, dil, in_off, out_off, mult, shift, lo, hi)
    out = out_nhwc(want.shape)
    (got,) = call("cortex_m::quantized_conv2d.out",
                  [nhwc(x), T(wt), None if bias is None else T(bias), list(stride), list(pad),
                   list(dil), in_off, out_off, T(mult), T(shift), lo, hi, scratch(16), out,
                   Ref(13)])
    np.testing.assert_array_equal(got, want)


# Unpadded layers as our exporter emits them (etmcu.quantize.fold_input_offset): the input offset
# folded into the bias, input_offset 0, so the kernels skip the weight sums. The kernel must give
# the bytes of the unfolded layer: pointwise layers of 32 and 160 channels (the strips' folded
# biases, a second 128-channel chunk), a 3x3 and a strided one, and a depthwise one.
FOLDED = [  # h, w, cin, cout, k, stride
    (6, 5, 32, 36, (1, 1), (1, 1)), (5, 7, 16, 160, (1, 1), (1, 1)), (9, 8, 8, 12, (3, 3), (1, 1)),
    (9, 9, 12, 8, (3, 3), (2, 2)), (7, 6, 5, 7, (1, 1), (2, 2))]


@pytest.mark.parametrize("case", range(len(FOLDED) + 1))
def test_folded_input_offset_gives_the_unfolded_bytes(call, case):
    from etmcu.quantize import fold_input_offset
    rng = np.random.default_rng(2300 + case)
    in_off = int(rng.integers(-127, 129)) or 1
    out_off, (lo, hi) = int(rng.integers(-128, 128)), act_range(rng)
    if case == len(FOLDED):  # depthwise 3x3 /2, 12 channels
        x, wt = i8(rng, (1, 13, 11, 12)), i8(rng, (1, 3, 3, 12))
        bias = rng.integers(-5000, 5000, size=12).astype(np.int32)
        mult, shift = rq_params(rng, 12)
        want = ref.depthwise_conv2d_nhwc(x, wt, bias, (2, 2), (0, 0), (1, 1), 1, in_off, out_off,
                                         mult, shift, lo, hi)
        folded, ioff = fold_input_offset(bias, np.ascontiguousarray(wt.transpose(3, 0, 1, 2)),
                                         -in_off)
        (got,) = call("cortex_m::quantized_depthwise_conv2d.out",
                      [nhwc(x), T(wt), T(folded), [2, 2], [0, 0], [1, 1], 1, ioff, out_off, T(mult),
                       T(shift), lo, hi, scratch(), out_nhwc(want.shape), Ref(14)])
    else:
        h, w, cin, cout, k, stride = FOLDED[case]
        x, wt = i8(rng, (1, h, w, cin)), i8(rng, (cout, k[0], k[1], cin))
        bias = rng.integers(-5000, 5000, size=cout).astype(np.int32)
        mult, shift = rq_params(rng, cout)
        if cout > 128:  # every channel in the micro-kernel's range, so that it takes the channels
            shift = np.minimum(shift, -1)  # past the first 128 too (their biases from the second)
        want = ref.conv2d_nhwc(x, wt, bias, stride, (0, 0), (1, 1), in_off, out_off, mult, shift,
                               lo, hi)
        folded, ioff = fold_input_offset(bias, wt, -in_off)
        (got,) = call("cortex_m::quantized_conv2d.out",
                      [nhwc(x), T(wt), T(folded), list(stride), [0, 0], [1, 1], ioff, out_off,
                       T(mult), T(shift), lo, hi, scratch(16), out_nhwc(want.shape), Ref(13)])
    assert ioff == 0
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(12))
def test_quantized_conv2d_narrow_input(call, seed):
    """Few input channels (1, 2, 3, 5, 6, 7: rows that are not whole words), which the
    optimised kernels widen to whole words with zero weights for the interior pixels and gather
    for the rest: kernels 1-5, strides 1-2, padding 0-2, channel tails."""
    rng = np.random.default_rng(150 + seed)
    cin = [1, 2, 3, 5, 6, 7][seed % 6]
    kh, kw = (int(v) for v in rng.integers(1, 6, size=2))
    stride = tuple(int(v) for v in rng.integers(1, 3, size=2))
    pad = (int(rng.integers(0, min(kh, 3))), int(rng.integers(0, min(kw, 3))))
    h, w = int(rng.integers(kh + 2, 14)), int(rng.integers(kw + 2, 14))
    cout = int(rng.integers(4, 13))
    x = i8(rng, (1, h, w, cin))
    wt = i8(rng, (cout, kh, kw, cin))
    bias = rng.integers(-5000, 5000, size=cout).astype(np.int32)
    mult, shift = rq_params(rng, cout, -20, -1)
    in_off = int(rng.integers(-127, 129))
    out_off = int(rng.integers(-128, 128))
    lo, hi = act_range(rng)
    want = ref.conv2d_nhwc(x, wt, bias, stride, pad, (1, 1), in_off, out_off, mult, shift, lo, hi)
    (got,) = call("cortex_m::quantized_conv2d.out",
                  [nhwc(x), T(wt), T(bias), list(stride), list(pad), [1, 1], in_off, out_off,
                   T(mult), T(shift), lo, hi, scratch(16), out_nhwc(want.shape), Ref(13)])
    np.testing.assert_array_equal(got, want)


# The layer shapes of the MLPerf Tiny models (ungrouped, undilated: fast/'s row-dot path, with
# SMLAD on the Arm DSP targets), channels not a multiple of 4, odd Cout, padding on every side,
# strides, and the extreme int8 values.
CONV_LAYERS = [
    # n, h, w, cin, cout, kh, kw, stride, pad
    (1, 49, 10, 1, 64, 10, 4, (2, 2), (5, 1)),   # DS-CNN's first layer
    (1, 25, 5, 64, 64, 1, 1, (1, 1), (0, 0)),    # a pointwise layer
    (1, 8, 8, 16, 16, 3, 3, (1, 1), (1, 1)),     # ResNet-8
    (1, 8, 8, 16, 32, 3, 3, (2, 2), (1, 1)),
    (2, 7, 6, 13, 7, 3, 2, (1, 2), (2, 0)),      # odd channels, a batch, big padding
    (1, 5, 5, 3, 5, 5, 5, (1, 1), (4, 4)),       # pixels whose window is mostly padding
    # Xpulp's gathered columns (im2col_runs): 3-channel first layers (ResNet-8's, over runs of
    # columns that go on from row to row; MobileNetV1's, stride 2) and strided 1x1 layers
    # (ResNet-8's shortcuts; a stride along the height only, odd sizes)
    (1, 12, 34, 3, 16, 3, 3, (1, 1), (1, 1)),
    (1, 13, 25, 3, 8, 3, 3, (2, 2), (0, 0)),
    (1, 9, 10, 16, 32, 1, 1, (2, 2), (0, 0)),
    (1, 7, 9, 32, 8, 1, 1, (2, 1), (0, 0)),
]


@pytest.mark.parametrize("layer", range(len(CONV_LAYERS)))
@pytest.mark.parametrize("extreme", [False, True])
@pytest.mark.parametrize("relu", [False, True])
def test_quantized_conv2d_layers_dyadic(call, layer, extreme, relu):
    """CONV_LAYERS with dyadic factors (the Xpulp dyadic kernels: 1x1 groups, interior blocks,
    border columns; with a fused ReLU the two flows, without it the sign term), the largest sums
    (past the clamp bound: saturated) and output offsets at both ends."""
    n, h, w, cin, cout, kh, kw, stride, pad = CONV_LAYERS[layer]
    rng = np.random.default_rng(700 + layer)
    if extreme:
        x = np.full((n, h, w, cin), -128, np.int8)
        wt = np.full((cout, kh, kw, cin), -128, np.int8)
        wt[1::2] = 127  # (sums of both signs)
        in_off = 127
    else:
        x, wt, in_off = i8(rng, (n, h, w, cin)), i8(rng, (cout, kh, kw, cin)), int(rng.integers(-127, 129))
    bias = rng.integers(-5000, 5000, size=cout).astype(np.int32)
    mult, shift = dyadic_params(rng, cout)
    for out_off in (-128, int(rng.integers(-100, 100)), 127):
        lo, hi = (out_off, 127) if relu else (-128, 127)
        want = ref.conv2d_nhwc(x, wt, bias, stride, pad, (1, 1), in_off, out_off, mult, shift, lo, hi)
        (got,) = call("cortex_m::quantized_conv2d.out",
                      [nhwc(x), T(wt), T(bias), list(stride), list(pad), [1, 1], in_off, out_off,
                       T(mult), T(shift), lo, hi, scratch(16), out_nhwc(want.shape), Ref(13)])
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("layer", range(len(CONV_LAYERS)))
@pytest.mark.parametrize("extreme", [False, True])
def test_quantized_conv2d_layers(call, layer, extreme):
    n, h, w, cin, cout, kh, kw, stride, pad = CONV_LAYERS[layer]
    rng = np.random.default_rng(300 + layer)
    if extreme:  # the largest products and sums: -128 * -128 everywhere, offset 127
        x = np.full((n, h, w, cin), -128, np.int8)
        wt = np.full((cout, kh, kw, cin), -128, np.int8)
        in_off = 127
    else:
        x, wt, in_off = i8(rng, (n, h, w, cin)), i8(rng, (cout, kh, kw, cin)), int(rng.integers(-127, 129))
    bias = rng.integers(-5000, 5000, size=cout).astype(np.int32)
    mult, shift = rq_params(rng, cout, -20, 0)
    out_off = int(rng.integers(-128, 128))
    lo, hi = -128, 127
    want = ref.conv2d_nhwc(x, wt, bias, stride, pad, (1, 1), in_off, out_off, mult, shift, lo, hi)
    (got,) = call("cortex_m::quantized_conv2d.out",
                  [nhwc(x), T(wt), T(bias), list(stride), list(pad), [1, 1], in_off, out_off,
                   T(mult), T(shift), lo, hi, scratch(16), out_nhwc(want.shape), Ref(13)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(12))
def test_quantized_depthwise_conv2d(call, seed):
    rng = np.random.default_rng(200 + seed)
    _, h, w, k, dil, pad, stride = _conv_case(rng, depthwise=True)
    cin = int(rng.integers(1, 8))
    dm = int(rng.integers(1, 4))
    if seed == 0:  # KWS's first layer: 1 -> 64 channels, kernel 10x4, stride 2, padding [5, 1]
        h, w, cin, dm, k, stride, pad, dil = 49, 10, 1, 64, (10, 4), (2, 2), (5, 1), (1, 1)
    if seed in (1, 2):  # more output channels than one accumulator block (64)
        cin, dm = (35, 2) if seed == 1 else (130, 1)
    x = i8(rng, (1, h, w, cin))
    wt = i8(rng, (1, k[0], k[1], cin * dm))
    bias = rng.integers(-5000, 5000, size=cin * dm).astype(np.int32) if seed % 4 else None
    mult, shift = rq_params(rng, cin * dm)
    in_off = int(rng.integers(-127, 129))
    out_off = int(rng.integers(-128, 128))
    lo, hi = act_range(rng)
    want = ref.depthwise_conv2d_nhwc(x, wt, bias, stride, pad, dil, dm, in_off, out_off, mult,
                                     shift, lo, hi)
    (got,) = call("cortex_m::quantized_depthwise_conv2d.out",
                  [nhwc(x), T(wt), None if bias is None else T(bias), list(stride), list(pad),
                   list(dil), dm, in_off, out_off, T(mult), T(shift), lo, hi, scratch(),
                   out_nhwc(want.shape), Ref(14)])
    np.testing.assert_array_equal(got, want)


# Depthwise layers like the models' (no dilation: fast/'s four-channel paths, multiplier 1 or a
# multiple of 4), with channel counts not a multiple of 4, windows partly or wholly in the padding,
# and extreme values.
DW_LAYERS = [
    # h, w, cin, multiplier, kh, kw, stride, pad
    (25, 5, 64, 1, 3, 3, (1, 1), (1, 1)),   # DS-CNN
    (48, 48, 8, 1, 3, 3, (2, 2), (1, 1)),   # MobileNetV1-0.25's first depthwise
    (7, 6, 13, 1, 3, 3, (1, 1), (1, 1)),
    (5, 5, 6, 1, 5, 3, (2, 1), (4, 2)),     # mostly padding, some windows entirely outside
    (3, 4, 3, 1, 1, 1, (1, 1), (0, 0)),
    (49, 10, 1, 64, 10, 4, (2, 2), (5, 1)),  # KWS's first layer: 1 -> 64 channels
    (6, 5, 3, 8, 3, 3, (1, 2), (2, 2)),
    (6, 5, 3, 3, 3, 3, (1, 1), (1, 1)),     # a multiplier fast/ leaves to ref/
]


@pytest.mark.parametrize("layer", range(len(DW_LAYERS)))
@pytest.mark.parametrize("extreme", [False, True])
def test_quantized_depthwise_conv2d_layers(call, layer, extreme):
    h, w, c, dm, kh, kw, stride, pad = DW_LAYERS[layer]
    rng = np.random.default_rng(400 + layer)
    if extreme:
        x, wt, in_off = np.full((1, h, w, c), -128, np.int8), np.full((1, kh, kw, c * dm), -128, np.int8), 127
    else:
        x, wt, in_off = i8(rng, (1, h, w, c)), i8(rng, (1, kh, kw, c * dm)), int(rng.integers(-127, 129))
    bias = rng.integers(-5000, 5000, size=c * dm).astype(np.int32)
    mult, shift = rq_params(rng, c * dm, -12, 0)
    out_off = int(rng.integers(-128, 128))
    want = ref.depthwise_conv2d_nhwc(x, wt, bias, stride, pad, (1, 1), dm, in_off, out_off, mult,
                                     shift, -128, 127)
    (got,) = call("cortex_m::quantized_depthwise_conv2d.out",
                  [nhwc(x), T(wt), T(bias), list(stride), list(pad), [1, 1], dm, in_off, out_off,
                   T(mult), T(shift), -128, 127, scratch(), out_nhwc(want.shape), Ref(14)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("layer", range(len(DW_LAYERS)))
@pytest.mark.parametrize("relu", [False, True])
def test_quantized_depthwise_conv2d_layers_dyadic(call, layer, relu):
    """DW_LAYERS with dyadic factors (the Xpulp channel loop's dyadic lines where a layer has a
    fused ReLU)."""
    h, w, c, dm, kh, kw, stride, pad = DW_LAYERS[layer]
    rng = np.random.default_rng(800 + layer)
    x, wt, in_off = i8(rng, (1, h, w, c)), i8(rng, (1, kh, kw, c * dm)), int(rng.integers(-127, 129))
    bias = rng.integers(-5000, 5000, size=c * dm).astype(np.int32)
    mult, shift = dyadic_params(rng, c * dm)
    for out_off in (-128, int(rng.integers(-100, 100)), 127):
        lo = out_off if relu else -128
        want = ref.depthwise_conv2d_nhwc(x, wt, bias, stride, pad, (1, 1), dm, in_off, out_off,
                                         mult, shift, lo, 127)
        (got,) = call("cortex_m::quantized_depthwise_conv2d.out",
                      [nhwc(x), T(wt), T(bias), list(stride), list(pad), [1, 1], dm, in_off,
                       out_off, T(mult), T(shift), lo, 127, scratch(), out_nhwc(want.shape),
                       Ref(14)])
        np.testing.assert_array_equal(got, want)


# 3x3 layers whose outputs are taller than wide, which the Xpulp variant runs from transposed planes
# (util/depthwise_planes.h dw_transposed_fits: a line per input column); every channel's shift in
# the planes' range, so that no channel sends the layer to another path.
DW_TRANSPOSED = [
    # h, w, cin, multiplier, stride, pad
    (25, 5, 64, 1, (1, 1), (1, 1)),   # KWS
    (23, 9, 7, 1, (1, 2), (0, 1)),
    (13, 4, 5, 2, (2, 1), (1, 0)),
    (23, 3, 3, 1, (1, 1), (1, 1)),
]


@pytest.mark.parametrize("layer", range(len(DW_TRANSPOSED)))
@pytest.mark.parametrize("relu", [False, True])
def test_quantized_depthwise_conv2d_transposed_planes(call, layer, relu):
    h, w, c, dm, stride, pad = DW_TRANSPOSED[layer]
    rng = np.random.default_rng(500 + layer)
    x, wt, in_off = i8(rng, (1, h, w, c)), i8(rng, (1, 3, 3, c * dm)), int(rng.integers(-127, 129))
    bias = rng.integers(-5000, 5000, size=c * dm).astype(np.int32)
    mult, shift = rq_params(rng, c * dm, -10, -1)
    out_off = int(rng.integers(-128, 100))
    lo, hi = (out_off, 127) if relu else (-128, 127)  # a ReLU: negative sums skip the arithmetic
    want = ref.depthwise_conv2d_nhwc(x, wt, bias, stride, pad, (1, 1), dm, in_off, out_off, mult,
                                     shift, lo, hi)
    (got,) = call("cortex_m::quantized_depthwise_conv2d.out",
                  [nhwc(x), T(wt), T(bias), list(stride), list(pad), [1, 1], dm, in_off, out_off,
                   T(mult), T(shift), lo, hi, scratch(), out_nhwc(want.shape), Ref(14)])
    np.testing.assert_array_equal(got, want)


def _check_dw_3x3_case(call, rng, h, w, c, stride, pad, case):
    """A 3x3 depthwise layer (multiplier 1) of h x w inputs on c channels against ref/, for three
    output offsets: relu (the floor is the offset), clamp (an upper bound a few steps above it, so
    many sums reach V), no_bias, extreme (every input and tap -128, input offset 128: the largest
    products), frexp (Q31 factors) or no_relu (the floor -128)."""
    if case == "extreme":
        x, wt, in_off = np.full((1, h, w, c), -128, np.int8), np.full((1, 3, 3, c), -128, np.int8), 128
    else:
        x, wt, in_off = i8(rng, (1, h, w, c)), i8(rng, (1, 3, 3, c)), int(rng.integers(-128, 129))
    bias = None if case == "no_bias" else rng.integers(-20000, 20000, size=c).astype(np.int32)
    mult, shift = rq_params(rng, c, -12, -1) if case == "frexp" else dyadic_params(rng, c)
    for out_off in (-128, int(rng.integers(-100, 100)), 127):
        lo = -128 if case == "no_relu" else out_off
        hi = min(127, out_off + 3) if case == "clamp" else 127
        want = ref.depthwise_conv2d_nhwc(x, wt, bias, (stride, stride), (pad, pad), (1, 1), 1,
                                         in_off, out_off, mult, shift, lo, hi)
        (got,) = call("cortex_m::quantized_depthwise_conv2d.out",
                      [nhwc(x), T(wt), None if bias is None else T(bias), [stride, stride],
                       [pad, pad], [1, 1], 1, in_off, out_off, T(mult), T(shift), lo, hi,
                       scratch(), out_nhwc(want.shape), Ref(14)])
        np.testing.assert_array_equal(got, want)


# 3x3 layers with 3 x 3 output planes (MobileNetV1's last two: the plain core's util/
# depthwise_small.h when every channel is dyadic with a fused ReLU): stride 1 with padding 1 on
# 3 x 3, stride 2 on 7 x 7 without padding; one channel, odd counts, MobileNetV1's 256.
DW_SMALL = [  # h (= w), channels, stride, pad
    (3, 13, 1, 1), (3, 1, 1, 1), (3, 256, 1, 1), (7, 9, 2, 0), (7, 2, 2, 0), (7, 128, 2, 0),
]


@pytest.mark.parametrize("layer", range(len(DW_SMALL)))
@pytest.mark.parametrize("case", ["relu", "clamp", "no_bias", "extreme", "frexp", "no_relu"])
def test_quantized_depthwise_conv2d_small_planes(call, layer, case):
    """Bit-exact against ref/ with the path's conditions met (relu: the floor is the offset; clamp:
    an upper bound a few steps above it, so many sums reach V; extreme: every input and tap -128,
    input offset 128, the largest products) and not (frexp factors, no ReLU: the next path)."""
    hw, c, s, p = DW_SMALL[layer]
    _check_dw_3x3_case(call, np.random.default_rng(4700 + 10 * layer + len(case)), hw, hw, c, s, p,
                       case)


# 3x3 stride-1 layers with padding 1 and rows of 6 or more, and stride-2 ones without padding
# and rows of 4 or more (the plain core's direct path, util/depthwise_direct.h, when every channel
# is dyadic with a fused ReLU): rows of 6 to 12 at stride 1 (the three entry steps of its
# passes), heights 1 to 12, odd and even output rows at stride 2 (pairs and an odd last output),
# one channel, odd counts, MobileNetV1's 6 x 6 on 128 channels and 49 x 49 -> 24 x 24 on 16.
DW_DIRECT = [  # h, w, channels, stride (2: no padding, MobileNetV1's after its explicit pad)
    (6, 6, 128, 1), (1, 8, 5, 1), (2, 9, 3, 1), (7, 10, 13, 1), (12, 12, 4, 1), (5, 11, 1, 1),
    (3, 7, 2, 1), (4, 6, 9, 1), (49, 49, 16, 2), (9, 10, 3, 2), (3, 11, 5, 2), (13, 9, 1, 2),
]


@pytest.mark.parametrize("layer", range(len(DW_DIRECT)))
@pytest.mark.parametrize("case", ["relu", "clamp", "no_bias", "extreme", "frexp", "no_relu"])
def test_quantized_depthwise_conv2d_direct(call, layer, case):
    """Bit-exact against ref/ with the path's conditions met (relu; clamp: an upper bound a few
    steps above the floor, many sums at V; extreme: every input and tap -128, input offset 128)
    and not (frexp factors, no ReLU: the plane path)."""
    h, w, c, st = DW_DIRECT[layer]
    _check_dw_3x3_case(call, np.random.default_rng(5100 + 10 * layer + len(case)), h, w, c, st,
                       1 if st == 1 else 0, case)


@pytest.mark.parametrize("bias_at", [(1 << 28) - 9 * (1 << 14) - 1, (1 << 28) - 9 * (1 << 14) + 7,
                                     (1 << 28) - 3, (1 << 28) + 5])
def test_quantized_depthwise_conv2d_large_biases(call, bias_at):
    """Biases either side of the bound below which the plane path needs no weight sums
    (dw_plane_values_ok), and either side of 2^28 itself (sums past it take another path): the
    same bits everywhere."""
    h, w, c = 9, 4, 6
    rng = np.random.default_rng(bias_at & 0xffff)
    x, wt, in_off = i8(rng, (1, h, w, c)), i8(rng, (1, 3, 3, c)), int(rng.integers(-127, 129))
    bias = (np.array([1, -1, 1, -1, 1, -1]) * bias_at).astype(np.int32)
    bias[2] = 17
    mult, shift = rq_params(rng, c, -20, -12)
    want = ref.depthwise_conv2d_nhwc(x, wt, bias, (1, 1), (1, 1), (1, 1), 1, in_off, 0, mult, shift,
                                     -128, 127)
    (got,) = call("cortex_m::quantized_depthwise_conv2d.out",
                  [nhwc(x), T(wt), T(bias), [1, 1], [1, 1], [1, 1], 1, in_off, 0, T(mult), T(shift),
                   -128, 127, scratch(), out_nhwc(want.shape), Ref(14)])
    np.testing.assert_array_equal(got, want)


def _dw_out(size, k, stride, pad):
    return (size + 2 * pad - k) // stride + 1


@pytest.mark.parametrize("seed", range(12))
def test_depthwise_buffer_declaration_is_the_exporters_plan(call, seed):
    """The scratch contract (docs/kernels.md "Buffers"): the exporter plans the depthwise plane our
    kernels declare (etmcu.quantize.depthwise_plane_bytes, scratch_target "etmcu"). With an empty
    scratch a variant declares at most that (Xpulp, whose planes take every such layer, exactly
    that; the host's scalar variant and ref/ none) and with the exporter's scratch nothing; both
    give the reference's bits."""
    from etmcu.quantize import DW_PLANE_BYTES, depthwise_plane_bytes
    rng = np.random.default_rng(900 + seed)
    if seed < len(DW_LAYERS):
        h, w, c, dm, kh, kw, stride, pad = DW_LAYERS[seed]
    else:
        h, w = (int(v) for v in rng.integers(1, 40, size=2))
        c, dm = int(rng.integers(1, 9)), 1
        kh, kw = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        stride = tuple(int(v) for v in rng.integers(1, 3, size=2))
        pad = (int(rng.integers(0, kh)), int(rng.integers(0, kw)))
        h, w = max(h, kh), max(w, kw)
    x, wt = i8(rng, (1, h, w, c)), i8(rng, (1, kh, kw, c * dm))
    in_off, out_off = int(rng.integers(-127, 129)), int(rng.integers(-128, 128))
    bias = rng.integers(-5000, 5000, size=c * dm).astype(np.int32)
    mult, shift = rq_params(rng, c * dm, -12, 0)
    want = ref.depthwise_conv2d_nhwc(x, wt, bias, stride, pad, (1, 1), dm, in_off, out_off, mult,
                                     shift, -128, 127)
    planned = depthwise_plane_bytes(_dw_out(h, kh, stride[0], pad[0]), _dw_out(w, kw, stride[1], pad[1]),
                                    kh, kw, list(stride), [1, 1], in_off)
    assert planned <= DW_PLANE_BYTES
    declared = {}
    for n in (0, planned):
        (got,) = call("cortex_m::quantized_depthwise_conv2d.out",
                      [nhwc(x), T(wt), T(bias), list(stride), list(pad), [1, 1], dm, in_off, out_off,
                       T(mult), T(shift), -128, 127, scratch(n), out_nhwc(want.shape), Ref(14)])
        np.testing.assert_array_equal(got, want)
        declared[n] = call.temp_declared
    assert declared[planned] == 0
    assert declared[0] <= planned
    if call.runner.endswith("_xpulp"):
        assert declared[0] == planned


@pytest.mark.parametrize("seed", range(8))
def test_quantized_transpose_conv2d(call, seed):
    rng = np.random.default_rng(300 + seed)
    n = int(rng.integers(1, 3))
    h, w = (int(v) for v in rng.integers(1, 6, size=2))
    cin, cout = int(rng.integers(1, 20)), int(rng.integers(1, 6))
    k = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    stride = (int(rng.integers(1, 3)), int(rng.integers(1, 4)))
    pad = (int(rng.integers(0, k[0])), int(rng.integers(0, k[1])))
    opad = (int(rng.integers(0, stride[0])), int(rng.integers(0, stride[1])))
    if (h - 1) * stride[0] + k[0] + opad[0] - 2 * pad[0] < 1 or \
            (w - 1) * stride[1] + k[1] + opad[1] - 2 * pad[1] < 1:
        pad = (0, 0)
    x = i8(rng, (n, h, w, cin))
    wt = i8(rng, (cout, k[0], k[1], cin))
    bias = rng.integers(-5000, 5000, size=cout).astype(np.int32) if seed % 2 else None
    mult, shift = rq_params(rng, cout)
    in_off, out_off = int(rng.integers(-127, 129)), int(rng.integers(-128, 128))
    lo, hi = act_range(rng)
    want = ref.transpose_conv2d_nhwc(x, wt, bias, stride, pad, opad, in_off, out_off, mult, shift,
                                     lo, hi)
    (got,) = call("cortex_m::quantized_transpose_conv2d.out",
                  [nhwc(x), T(wt), None if bias is None else T(bias), list(stride), list(pad),
                   list(opad), [1, 1], in_off, out_off, T(mult), T(shift), lo, hi, scratch(8),
                   scratch(0), out_nhwc(want.shape), Ref(15)])
    np.testing.assert_array_equal(got, want)


def test_conv_rejects_wrong_layout_and_old_schema(call):
    x = np.zeros((1, 4, 4, 3), np.int8)
    wt = np.zeros((2, 1, 1, 3), np.int8)
    m, s = np.full(2, 1 << 30, np.int32), np.zeros(2, np.int32)
    nchw = T(np.zeros((1, 3, 4, 4), np.int8))  # contiguous NCHW with C > 1
    args = [nchw, T(wt), None, [1, 1], [0, 0], [1, 1], 0, 0, T(m), T(s), -128, 127, scratch(),
            out_nhwc((1, 4, 4, 2)), Ref(13)]
    err = call("cortex_m::quantized_conv2d.out", args, expect_error=True)
    assert "cortex_m::quantized_conv2d.out" in err and "channels-last" in err
    # The 12-argument schema (before scratch was added) names what differs.
    old = [nhwc(x), T(wt), None, [1, 1], [0, 0], [1, 1], 0, 0, T(m), T(s), -128, 127,
           out_nhwc((1, 4, 4, 2)), Ref(12)]
    err = call("cortex_m::quantized_conv2d.out", old, expect_error=True)
    assert "NotSupported" in err and "scratch" in err
    # A C == 1 input in NCHW order is accepted (same bytes as NHWC).
    x1 = np.arange(16, dtype=np.int8).reshape(1, 4, 4, 1)
    w1 = np.ones((1, 1, 1, 1), np.int8)
    (got,) = call("cortex_m::quantized_conv2d.out",
                  [T(x1.reshape(1, 1, 4, 4)), T(w1), None, [1, 1], [0, 0], [1, 1], 0, 0,
                   T(np.array([1 << 30], np.int32)), T(np.array([1], np.int32)), -128, 127,
                   scratch(), out_nhwc((1, 4, 4, 1)), Ref(13)])
    np.testing.assert_array_equal(got, x1)


# ----------------------------------------------------------------------------- pooling
@pytest.mark.parametrize("seed", range(10))
def test_quantized_avg_pool2d(call, seed):
    rng = np.random.default_rng(400 + seed)
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 9))
    k = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    stride = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    pad = (int(rng.integers(0, k[0] // 2 + 1)), int(rng.integers(0, k[1] // 2 + 1)))
    h = int(rng.integers(k[0], 12))
    w = int(rng.integers(k[1], 12))
    ceil_mode = bool(seed % 2)
    if seed == 0:  # KWS: kernel [24,5], stride [24,5] on 25x5 x 64
        n, c, h, w, k, stride, pad, ceil_mode = 1, 64, 25, 5, (24, 5), (24, 5), (0, 0), False
    x = i8(rng, (n, h, w, c))
    want = ref.avg_pool2d_nhwc(x, k, stride, pad, ceil_mode)
    (got,) = call("cortex_m::quantized_avg_pool2d.out",
                  [nhwc(x), list(k), list(stride), list(pad), ceil_mode, -128, 2077939072, -4,
                   scratch(c * 4), out_nhwc(want.shape), Ref(9)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("hw,fill", [(16, 127), (16, -128), (16, None), (17, 127), (5, None)])
def test_quantized_avg_pool2d_global_word_lanes(call, hw, fill):
    """Global pools over 8 channels (the optimised kernels sum four channels per word in 16-bit
    lanes): 256 taps of the extreme values fill a lane to its limit, 289 taps take the reference
    loop, random values at both sizes."""
    rng = np.random.default_rng(hw)
    c = 8
    x = i8(rng, (1, hw, hw, c)) if fill is None else np.full((1, hw, hw, c), fill, np.int8)
    want = ref.avg_pool2d_nhwc(x, (hw, hw), (hw, hw), (0, 0), False)
    (got,) = call("cortex_m::quantized_avg_pool2d.out",
                  [nhwc(x), [hw, hw], [hw, hw], [0, 0], False, -128, 2077939072, -4,
                   scratch(c * 4), out_nhwc(want.shape), Ref(9)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("h,w,k,stride,pad,ceil_mode", [
    (2, 2, (1, 1), (1, 1), (1, 1), False),  # the first and the last row and column: padding only
    (5, 2, (1, 1), (1, 1), (0, 1), False),  # only along W
    (2, 5, (1, 2), (2, 2), (1, 1), False),  # only along H (its first row)
    (4, 5, (2, 2), (2, 2), (0, 2), False),  # only the first column (the last one is not)
    (5, 4, (2, 2), (2, 2), (2, 0), False),  # only the first row
    (3, 3, (2, 2), (3, 3), (0, 1), False),  # the last column's window: one input column
    (6, 6, (3, 3), (2, 2), (1, 1), False),  # every window touches the input
    (5, 5, (2, 2), (2, 2), (1, 1), True),   # ceil mode: the extra window still does
    (4, 7, (3, 2), (1, 3), (1, 1), True),
])
def test_avg_pool_window_in_padding(call, h, w, k, stride, pad, ceil_mode):
    """A pooling window entirely in the padding is an error (CMSIS-NN's ARG_ERROR); the rule
    against a walk over every window (the checks look at each axis's first and last only)."""
    def out_size(n, kk, s, p):
        num = n + 2 * p - kk
        o = num // s + 1
        if ceil_mode and num % s:
            o += 1
        if ceil_mode and (o - 1) * s >= n + p:
            o -= 1
        return o
    oh, ow = out_size(h, k[0], stride[0], pad[0]), out_size(w, k[1], stride[1], pad[1])
    empty = any(oy * stride[0] - pad[0] + k[0] <= 0 or oy * stride[0] - pad[0] >= h
                for oy in range(oh)) or \
        any(ox * stride[1] - pad[1] + k[1] <= 0 or ox * stride[1] - pad[1] >= w for ox in range(ow))
    x = i8(np.random.default_rng(h * 100 + w), (1, h, w, 4))
    args = [nhwc(x), list(k), list(stride), list(pad), ceil_mode, -128, 2077939072, -4,
            scratch(16), out_nhwc((1, oh, ow, 4)), Ref(9)]
    if empty:
        err = call("cortex_m::quantized_avg_pool2d.out", args, expect_error=True)
        assert "entirely in the padding" in err
    else:
        (got,) = call("cortex_m::quantized_avg_pool2d.out", args)
        np.testing.assert_array_equal(got, ref.avg_pool2d_nhwc(x, k, stride, pad, ceil_mode))


def test_avg_pool_rejects_old_schemas(call):
    x = nhwc(np.zeros((1, 2, 2, 3), np.int8))
    old = [x, [2, 2], [2, 2], [0, 0], 0, 1 << 30, 0, scratch(), out_nhwc((1, 1, 1, 3)), Ref(8)]
    err = call("cortex_m::quantized_avg_pool2d.out", old, expect_error=True)
    assert "ceil_mode" in err and "cortex_m::quantized_avg_pool2d.out" in err


@pytest.mark.parametrize("seed", range(8))
def test_quantized_max_pool2d(call, seed):
    rng = np.random.default_rng(500 + seed)
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 9))
    k = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    stride = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    pad = (int(rng.integers(0, k[0] // 2 + 1)), int(rng.integers(0, k[1] // 2 + 1)))
    h, w = int(rng.integers(k[0], 12)), int(rng.integers(k[1], 12))
    x = i8(rng, (n, h, w, c))
    zp = int(rng.integers(-128, 128))
    lo, hi = act_range(rng)
    want = ref.max_pool2d_nhwc(x, k, stride, pad, lo, hi)
    (got,) = call("cortex_m::quantized_max_pool2d.out",
                  [nhwc(x), list(k), list(stride), list(pad), [1, 1], False, zp, zp, lo, hi,
                   out_nhwc(want.shape), Ref(10)])
    np.testing.assert_array_equal(got, want)


# ----------------------------------------------------------------------------- matmuls
@pytest.mark.parametrize("seed", range(9))
def test_quantized_linear(call, seed):
    rng = np.random.default_rng(600 + seed)
    batch = [int(v) for v in rng.integers(1, 4, size=int(rng.integers(1, 3)))]
    k, nout = int(rng.integers(1, 40)), int(rng.integers(1, 13))
    x = i8(rng, batch + [k])
    wt = i8(rng, (nout, k))
    in_off, f_off = int(rng.integers(-127, 129)), [0, 0, int(rng.integers(-127, 129))][seed % 3]
    out_off = int(rng.integers(-128, 128))
    bias = rng.integers(-20000, 20000, size=nout).astype(np.int32)
    mode = seed % 3  # 0: bias, 1: kernel_sum (MVE export), 2: neither
    ksum = None
    if mode == 1:
        ksum = (bias.astype(np.int64) + in_off * (wt.astype(np.int64) + f_off).sum(axis=1))
        ksum = ksum.astype(np.int32)
    b = bias if mode == 0 else None
    mult, shift = rq_params(rng, 1)
    lo, hi = act_range(rng)
    want = ref.linear(x, wt, b if mode != 1 else None, ksum, in_off, f_off, out_off, mult[0],
                      shift[0], lo, hi)
    if mode == 1:  # the same numbers as bias + offsets
        np.testing.assert_array_equal(
            want, ref.linear(x, wt, bias, None, in_off, f_off, out_off, mult[0], shift[0], lo, hi))
    (got,) = call("cortex_m::quantized_linear.out",
                  [T(x), T(wt), None if b is None else T(b), None if ksum is None else T(ksum),
                   in_off, f_off, out_off, [int(mult[0])], [int(shift[0])], hi, lo,
                   out_like(tuple(batch + [nout]), np.int8), Ref(11)])
    np.testing.assert_array_equal(got, want)


# Layers like the models' (the autoencoder's 640 -> 128 and 128 -> 8, KWS's 64 -> 12), feature
# counts not a multiple of 4, both requantization sources, a filter offset, extreme values.
LINEAR_LAYERS = [(1, 640, 128), (1, 128, 8), (1, 64, 12), (3, 37, 7), (2, 5, 1)]


@pytest.mark.parametrize("layer", range(len(LINEAR_LAYERS)))
@pytest.mark.parametrize("mode", ["bias", "kernel_sum", "filter_offset", "extreme"])
def test_quantized_linear_layers(call, layer, mode):
    batch, k, nout = LINEAR_LAYERS[layer]
    rng = np.random.default_rng(700 + layer)
    if mode == "extreme":
        x, wt, in_off = np.full((batch, k), -128, np.int8), np.full((nout, k), -128, np.int8), 127
    else:
        x, wt, in_off = i8(rng, (batch, k)), i8(rng, (nout, k)), int(rng.integers(-127, 129))
    f_off = int(rng.integers(-127, 129)) if mode == "filter_offset" else 0
    bias = rng.integers(-20000, 20000, size=nout).astype(np.int32)
    ksum = None
    if mode == "kernel_sum":
        ksum = (bias.astype(np.int64) + in_off * (wt.astype(np.int64) + f_off).sum(axis=1)).astype(np.int32)
    mult, shift = rq_params(rng, 1, -16, 0)
    out_off = int(rng.integers(-128, 128))
    want = ref.linear(x, wt, bias, None, in_off, f_off, out_off, mult[0], shift[0], -128, 127)
    (got,) = call("cortex_m::quantized_linear.out",
                  [T(x), T(wt), None if ksum is not None else T(bias), None if ksum is None else T(ksum),
                   in_off, f_off, out_off, [int(mult[0])], [int(shift[0])], 127, -128,
                   out_like((batch, nout), np.int8), Ref(11)])
    np.testing.assert_array_equal(got, want)


def dyadic_linear_params(rng, n):
    """A linear layer's dyadic pairs (python/etmcu/quantize.py dyadic_linear_requant): shift -r,
    r in [1, 11], multiplier m << (10 + r) with m log-uniform over [1, 2**(21 - r))."""
    pairs = []
    for _ in range(n):
        r = int(rng.integers(1, 12))
        m = int(np.clip(np.exp(rng.uniform(0, np.log((1 << (21 - r)) - 1))), 1, (1 << (21 - r)) - 1))
        pairs.append((m << (10 + r), -r))
    return pairs


# Dyadic factors (our exporter's linear layers): the CV32E40P's row kernels take them in the
# forms of util/pointwise.h set_linear_dyadic, a fused ReLU's (amin the output offset) and the
# clamp form (any range around the offset); an offset outside the range keeps the frexp form.
# Every shift and bit length of m (dyadic_linear_params), sums far past both bounds (wide inputs
# and biases).
@pytest.mark.parametrize("layer", range(len(LINEAR_LAYERS)))
@pytest.mark.parametrize("act", ["relu", "relu6", "clamp", "full", "offset_outside"])
def test_quantized_linear_dyadic(call, layer, act):
    batch, k, nout = LINEAR_LAYERS[layer]
    rng = np.random.default_rng(800 + layer)
    x, wt = i8(rng, (batch, k)), i8(rng, (nout, k))
    in_off = int(rng.integers(-127, 129))
    bias = rng.integers(-200000, 200000, size=nout).astype(np.int32)
    ksum = (bias.astype(np.int64) + in_off * wt.astype(np.int64).sum(axis=1)).astype(np.int32)
    out_off = int(rng.integers(-100, 100))
    lo, hi = {"relu": (out_off, 127), "relu6": (out_off, out_off + 20),
              "clamp": (out_off - 30, out_off + 25), "full": (-128, 127),
              "offset_outside": (out_off + 1, 127)}[act]
    for mult, shift in dyadic_linear_params(rng, 4):
        want = ref.linear(x, wt, None, ksum, in_off, 0, out_off, mult, shift, lo, hi)
        (got,) = call("cortex_m::quantized_linear.out",
                      [T(x), T(wt), T(bias), T(ksum), in_off, 0, out_off, [int(mult)], [int(shift)],
                       hi, lo, out_like((batch, nout), np.int8), Ref(11)])
        np.testing.assert_array_equal(got, want, err_msg=f"m = {int(mult) >> 11}")


@pytest.mark.parametrize("seed", range(6))
def test_quantized_batch_matmul(call, seed):
    rng = np.random.default_rng(700 + seed)
    b, m, k, n = (int(v) for v in rng.integers(1, 9, size=4))
    lhs, rhs_t = i8(rng, (b, m, k)), i8(rng, (b, n, k))
    lo_, ro, oo = int(rng.integers(-127, 129)), int(rng.integers(-127, 129)), int(rng.integers(-128, 128))
    mult, shift = rq_params(rng, 1)
    want = ref.batch_matmul(lhs, lo_, rhs_t, ro, oo, mult[0], shift[0])
    (got,) = call("cortex_m::quantized_batch_matmul.out",
                  [T(lhs), lo_, T(rhs_t), ro, oo, int(mult[0]), int(shift[0]), scratch(),
                   out_like((b, m, n), np.int8), Ref(8)])
    np.testing.assert_array_equal(got, want)


# ----------------------------------------------------------------------------- elementwise
def _add_params(rng):
    return [int(rng.integers(-128, 128)), *[int(v) for v in rq_params(rng, 1, -20, 0)]]


@pytest.mark.parametrize("seed", range(8))
def test_quantized_add(call, seed):
    rng = np.random.default_rng(800 + seed)
    n, h, w, c = (int(v) for v in rng.integers(1, 6, size=4))
    a = i8(rng, (n, h, w, c))
    bcast = seed % 2 == 1
    b = i8(rng, (1, 1, 1, c)) if bcast else i8(rng, (n, h, w, c))
    pa, pb = _add_params(rng), _add_params(rng)
    zo = int(rng.integers(-128, 128))
    mo, so = (int(v[0]) for v in rq_params(rng, 1, -10, 2))
    lo, hi = act_range(rng)
    want = ref.add(a, *pa, np.broadcast_to(b, a.shape), *pb, zo, mo, so, lo, hi)
    args_a, args_b = (nhwc(a), nhwc(b))
    if seed == 2:  # the broadcast operand first
        want = ref.add(np.broadcast_to(b, a.shape), *pb, a, *pa, zo, mo, so, lo, hi)
        if bcast is False:
            args_a, args_b, pa, pb = args_b, args_a, pb, pa
    (got,) = call("cortex_m::quantized_add.out",
                  [args_a, *pa, args_b, *pb, zo, mo, so, lo, hi, out_nhwc(a.shape), Ref(13)])
    np.testing.assert_array_equal(got, want)


def _check_long_add(call, a, pa, b, pb, zo, mo, so, lo, hi):
    """Two operands of one shape through the kernel against the reference; returns the
    reference's output."""
    want = ref.add(a, *pa, b, *pb, zo, mo, so, lo, hi)
    (got,) = call("cortex_m::quantized_add.out",
                  [nhwc(a), *pa, nhwc(b), *pb, zo, mo, so, lo, hi, out_nhwc(a.shape), Ref(13)])
    np.testing.assert_array_equal(got, want)
    return want


@pytest.mark.parametrize("seed", range(6))
def test_quantized_add_long(call, seed):
    """Operands long enough for the tabulated input rescaling of the optimised kernels (>= 1024
    elements), with output shifts inside and outside the folded requantization's range."""
    rng = np.random.default_rng(850 + seed)
    shape = (1, int(rng.integers(8, 20)), int(rng.integers(8, 20)), int(rng.integers(8, 17)))
    a, b = i8(rng, shape), i8(rng, shape)
    pa, pb = _add_params(rng), _add_params(rng)
    if seed == 4:  # a negative input multiplier (valid, if unusual)
        pa[1] = -pa[1]
    zo = int(rng.integers(-128, 128))
    lo_s, hi_s = [(-22, -2), (-31, -23), (-1, 2)][seed % 3]
    mo, so = (int(v[0]) for v in rq_params(rng, 1, lo_s, hi_s))
    lo, hi = act_range(rng)
    _check_long_add(call, a, pa, b, pb, zo, mo, so, lo, hi)


@pytest.mark.parametrize("seed", range(4))
def test_quantized_add_long_one_mulh(call, seed):
    """Long operands whose rescaled sums stay below 2^29 and whose output shift is in [-20, -1]
    (ResNet-8's residual adds): the optimised kernels requantize the output with one mulh
    (requantize_offset_4v) there; outputs at both ends of the range and at the rounding ties."""
    rng = np.random.default_rng(870 + seed)
    shape = (1, 16, 8, 8 + 4 * seed)
    a, b = i8(rng, shape), i8(rng, shape)
    pa = [int(rng.integers(-128, 128)), *[int(v) for v in rq_params(rng, 1, -4, -1)]]
    pb = [int(rng.integers(-128, 128)), *[int(v) for v in rq_params(rng, 1, -4, -1)]]
    zo = int(rng.integers(-128, 128))
    mo, so = (int(v[0]) for v in rq_params(rng, 1, -20, -14))
    lo, hi = act_range(rng) if seed % 2 else (-128, 127)
    want = _check_long_add(call, a, pa, b, pb, zo, mo, so, lo, hi)
    assert len(np.unique(want)) > 16  # (not a saturated output)


@pytest.mark.parametrize("seed", range(8))
def test_quantized_add_long_power_of_two_input(call, seed):
    """Long operands of which one is rescaled by a power of two (multiplier 2^30, shift in
    [-19, 0]: the larger-scale input of nearly every exported add, each of ResNet-8's), the other
    by any multiplier, and the output requantized with one mulh: the optimised kernels tabulate
    the other input and shift this one (opt/op_quantized_add.cpp add_with_table; with Xpulp an
    assembly loop). Either input, shifts 0 and below, both offsets' signs, clamped and not."""
    rng = np.random.default_rng(890 + seed)
    shape = (1, 8 + seed, 8, 16)
    a, b = i8(rng, shape), i8(rng, shape)
    shift_in = [0, -1, -3, 0, -19, -2, 0, -1][seed]
    pow2 = [int(rng.integers(-128, 128)), 1 << 30, shift_in]
    other = [int(rng.integers(-128, 128)), *[int(v) for v in rq_params(rng, 1, -4, 0)]]
    if seed == 4:  # a shift of 19 leaves u * 2^0: the other input's as small, so both count
        other[2] = -19
    pa, pb = (pow2, other) if seed % 2 else (other, pow2)
    zo = int(rng.integers(-128, 128))
    mo, so = (int(v[0]) for v in rq_params(rng, 1, -20, -14))
    if seed == 4:  # (-2: the shortest rounding shift the path takes, every sign term counts)
        so = -2
    lo, hi = act_range(rng) if seed % 3 == 1 else (-128, 127)
    want = _check_long_add(call, a, pa, b, pb, zo, mo, so, lo, hi)
    assert len(np.unique(want)) > 8  # (not a saturated output)


@pytest.mark.parametrize("seed", range(6))
def test_quantized_add_long_relu_form(call, seed):
    """The table path's ReLU form (util/add.h add_relu_of_4v: activation_min is the output zero
    point, as a fused ReLU makes it; the assembly loops of both CV32E40P variants take it): sums
    of both signs and 0, results past activation_max, odd lengths (the plain core's loop goes two
    elements at a time), and the shortest rounding shift."""
    rng = np.random.default_rng(940 + seed)
    shape = [(1, 7, 13, 13), (1, 8, 8, 16), (1, 3, 19, 19), (1, 9, 11, 11), (1, 1, 1, 1025),
             (1, 16, 8, 8)][seed]
    a, b = i8(rng, shape), i8(rng, shape)
    pow2 = [int(rng.integers(-128, 128)), 1 << 30, [0, -1, -2, 0, -5, -1][seed]]
    other = [int(rng.integers(-128, 128)), *[int(v) for v in rq_params(rng, 1, -4, 0)]]
    pa, pb = (pow2, other) if seed % 2 else (other, pow2)
    zo = int(rng.integers(-128, 64))
    mo, so = (int(v[0]) for v in rq_params(rng, 1, -20, -14))
    if seed == 2:
        so = -2
    hi = [127, int(rng.integers(zo + 8, 128)), 127, zo + 40, 127, int(rng.integers(zo + 8, 128))][seed]
    want = _check_long_add(call, a, pa, b, pb, zo, mo, so, zo, hi)
    assert (want == zo).sum() > 16 and (want > zo).sum() > 16  # (both sides of the floor)


@pytest.mark.parametrize("seed", range(6))
def test_quantized_mul(call, seed):
    rng = np.random.default_rng(900 + seed)
    n, h, w, c = (int(v) for v in rng.integers(1, 6, size=4))
    a = i8(rng, (n, h, w, c))
    b = i8(rng, (1, 1, 1, c)) if seed % 2 else i8(rng, (n, h, w, c))
    za, zb, zo = (int(v) for v in rng.integers(-128, 128, size=3))
    mo, so = (int(v[0]) for v in rq_params(rng, 1, -14, 0))
    want = ref.mul(a, za, np.broadcast_to(b, a.shape), zb, zo, mo, so)
    args = [nhwc(b), zb, nhwc(a), za] if seed == 3 else [nhwc(a), za, nhwc(b), zb]
    (got,) = call("cortex_m::quantized_mul.out", [*args, zo, mo, so, out_nhwc(a.shape), Ref(7)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_quantized_div(call, seed, dtype):
    rng = np.random.default_rng(1000 + seed)
    shape = tuple(int(v) for v in rng.integers(1, 6, size=3))
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max + 1, size=shape).astype(dtype)
    b = rng.integers(info.min, info.max + 1, size=shape).astype(dtype)
    za, zb, zo = (int(v) for v in rng.integers(-100, 100, size=3))
    b.flat[0] = zb  # a zero divisor
    scale = float(rng.uniform(0.01, 300))
    want = ref.div(a, za, b, zb, zo, scale, dtype)
    (got,) = call("cortex_m::quantized_div.out",
                  [T(a), za, T(b), zb, zo, scale, out_like(shape, dtype), Ref(6)])
    np.testing.assert_array_equal(got, want)


def test_quantized_activation(call):
    rng = np.random.default_rng(5)
    x = i8(rng, (2, 3, 5, 7))
    lut = i8(rng, (256,))
    (got,) = call("cortex_m::quantized_activation.out",
                  [T(x), T(lut), out_like(x.shape, np.int8), Ref(2)])
    np.testing.assert_array_equal(got, ref.activation(x, lut))


@pytest.mark.parametrize("op", ["minimum", "maximum"])
@pytest.mark.parametrize("shapes", [((2, 3, 4, 5), (2, 3, 4, 5)), ((2, 3, 4, 5), (1, 3, 1, 5)),
                                    ((4, 5), (2, 3, 1, 1)), ((7,), (3, 1)), ((1, 1, 1, 1), (3, 2))])
def test_minimum_maximum(call, op, shapes):
    rng = np.random.default_rng(11)
    a, b = i8(rng, shapes[0]), i8(rng, shapes[1])
    want = (np.minimum if op == "minimum" else np.maximum)(a, b)
    (got,) = call(f"cortex_m::{op}.out", [T(a), T(b), out_like(want.shape, np.int8), Ref(2)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(6))
def test_softmax(call, seed):
    rng = np.random.default_rng(1100 + seed)
    shape = tuple(int(v) for v in rng.integers(1, 20, size=int(rng.integers(1, 4))))
    x = i8(rng, shape)
    # Parameters as upstream computes them for an input scale (beta 1, 5 integer bits).
    scale = float(rng.uniform(0.01, 0.3))
    real = min(scale * (1 << 26), (1 << 31) - 1.0)
    m, e = np.frexp(real)
    mult = int(round(m * (1 << 31)))
    shift = int(e)
    if mult == 1 << 31:
        mult //= 2
        shift += 1
    max_in = ((1 << 5) - 1) * (1 << (31 - 5)) / (1 << shift)
    diff_min = -int(np.floor(max_in))
    want = ref.softmax(x, mult, shift, diff_min)
    (got,) = call("cortex_m::softmax.out",
                  [T(x), -1, 0, -128, mult, shift, diff_min, out_like(shape, np.int8), Ref(7)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("perm", [[1, 0], [0, 2, 1], [2, 0, 1], [0, 2, 3, 1], [3, 2, 1, 0], [0]])
def test_transpose(call, perm):
    rng = np.random.default_rng(len(perm))
    x = i8(rng, tuple(int(v) for v in rng.integers(1, 6, size=len(perm))))
    want = np.ascontiguousarray(np.transpose(x, perm))
    (got,) = call("cortex_m::transpose.out", [T(x), perm, out_like(want.shape, np.int8), Ref(2)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(6))
def test_pad(call, seed):
    rng = np.random.default_rng(1200 + seed)
    value = int(rng.integers(-128, 128))
    pre = [int(v) for v in rng.integers(0, 3, size=4)]
    post = [int(v) for v in rng.integers(0, 3, size=4)]
    if seed % 2:  # channels-last 4-D: pads in physical NHWC order
        x = i8(rng, tuple(int(v) for v in rng.integers(1, 5, size=4)))
        want = ref.pad(x, pre, post, value)
        (got,) = call("cortex_m::pad.out", [nhwc(x), pre, post, value, out_nhwc(want.shape), Ref(4)])
    else:  # contiguous rank 1..4, pads right-aligned to 4 dims
        rank = int(rng.integers(1, 5))
        x = i8(rng, tuple(int(v) for v in rng.integers(1, 5, size=rank)))
        pre[:4 - rank] = [0] * (4 - rank)
        post[:4 - rank] = [0] * (4 - rank)
        want = ref.pad(x.reshape((1,) * (4 - rank) + x.shape), pre, post, value).reshape(
            tuple(s + a + b for s, a, b in zip(x.shape, pre[4 - rank:], post[4 - rank:])))
        (got,) = call("cortex_m::pad.out", [T(x), pre, post, value, out_like(want.shape, np.int8),
                                           Ref(4)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(6))
def test_pad_inner_dims_unpadded(call, seed):
    """Inner dims without padding (the NHWC pads of H and W that models emit: C unpadded, and
    sometimes W too, or nothing padded at all), which the kernel copies as merged rows."""
    rng = np.random.default_rng(1250 + seed)
    value = int(rng.integers(-128, 128))
    pre = [int(v) for v in rng.integers(0, 3, size=4)]
    post = [int(v) for v in rng.integers(0, 3, size=4)]
    unpadded = [1, 2, 4][seed % 3]  # how many of the innermost dims have no padding
    for i in range(4 - unpadded, 4):
        pre[i] = post[i] = 0
    # (dim 1 >= 2: a contiguous [N, 1, H, W] is channels-last too, which reads its pads as NHWC)
    x = i8(rng, tuple(int(v) for v in rng.integers(2, 7, size=4)))
    want = ref.pad(x, pre, post, value)
    args = [nhwc(x), pre, post, value, out_nhwc(want.shape), Ref(4)] if seed < 3 else \
        [T(x), pre, post, value, out_like(want.shape, np.int8), Ref(4)]
    (got,) = call("cortex_m::pad.out", args)
    np.testing.assert_array_equal(got, want)


# ----------------------------------------------------------------------------- quantized_decomposed
QD = "quantized_decomposed::"
QDTYPES = [(np.uint8, 0), (np.int8, 1), (np.int16, 2), (np.uint16, 27), (np.int32, 3)]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dtype,code", QDTYPES)
def test_qd_per_tensor(call, seed, dtype, code):
    rng = np.random.default_rng(1300 + seed)
    shape = tuple(int(v) for v in rng.integers(1, 6, size=3))
    x = (rng.standard_normal(shape) * 40).astype(np.float32)
    info = np.iinfo(dtype)
    qmin, qmax = int(info.min), int(info.max)
    if dtype == np.int32:
        qmin, qmax = -(1 << 20), 1 << 20
    zp = int(rng.integers(max(qmin, -100), min(qmax, 100) + 1))
    scale = float(rng.uniform(0.01, 0.5))
    want = ref.quantize(x, scale, zp, qmin, qmax, dtype)
    (q,) = call(QD + "quantize_per_tensor.out",
                [T(x), scale, zp, qmin, qmax, code, out_like(shape, dtype), Ref(6)])
    np.testing.assert_array_equal(q, want)
    (q2,) = call(QD + "quantize_per_tensor.Tensor_out",
                 [T(x), T(np.array([scale])), T(np.array([zp], np.int64)), qmin, qmax, code,
                  out_like(shape, dtype), Ref(6)])
    np.testing.assert_array_equal(q2, want)
    (y,) = call(QD + "dequantize_per_tensor.out",
                [T(q), scale, zp, qmin, qmax, code, None, out_like(shape, np.float32), Ref(7)])
    assert y.tobytes() == ref.dequantize(q, scale, zp).tobytes()
    (y2,) = call(QD + "dequantize_per_tensor.Tensor_out",
                 [T(q), T(np.array([scale])), T(np.array([zp], np.int64)), qmin, qmax, code, 6,
                  out_like(shape, np.float32), Ref(7)])
    assert y2.tobytes() == y.tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_qd_per_channel(call, seed):
    rng = np.random.default_rng(1400 + seed)
    shape = tuple(int(v) for v in rng.integers(1, 6, size=4))
    axis = int(rng.integers(0, 4))
    x = (rng.standard_normal(shape) * 30).astype(np.float32)
    scales = rng.uniform(0.01, 0.5, size=shape[axis])
    zps = rng.integers(-20, 20, size=shape[axis]).astype(np.int64)
    want = ref.quantize_per_channel(x, scales, zps, axis, -128, 127, np.int8)
    (q,) = call(QD + "quantize_per_channel.out",
                [T(x), T(scales), T(zps), axis, -128, 127, 1, out_like(shape, np.int8), Ref(7)])
    np.testing.assert_array_equal(q, want)
    with_zp = seed % 2 == 0
    (y,) = call(QD + "dequantize_per_channel.out",
                [T(q), T(scales), T(zps) if with_zp else None, axis - 4 if seed == 3 else axis,
                 -128, 127, 1, None, out_like(shape, np.float32), Ref(8)])
    assert y.tobytes() == ref.dequantize_per_channel(q, scales, zps if with_zp else None,
                                                     axis).tobytes()


def test_qd_channels_last_layout(call):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((1, 4, 3, 2)) * 10).astype(np.float32)  # physical NHWC
    (q,) = call(QD + "quantize_per_tensor.out",
                [nhwc(x), 0.1, 0, -128, 127, 1, out_nhwc(x.shape), Ref(6)])
    np.testing.assert_array_equal(q, ref.quantize(x, 0.1, 0, -128, 127))


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("op,nargs", [("cortex_m::quantized_conv2d.out", 15),
                                      ("cortex_m::quantized_depthwise_conv2d.out", 16),
                                      ("cortex_m::quantized_avg_pool2d.out", 11),
                                      ("cortex_m::quantized_linear.out", 13),
                                      ("cortex_m::pad.out", 6),
                                      (QD + "dequantize_per_tensor.out", 9)])
def test_wrong_arity_is_a_clean_error(call, op, nargs):
    err = call(op, [0] * (nargs + 1), expect_error=True)
    assert err.startswith("error: InvalidArgument") and op.split("::")[1].split(".")[0] in err
    err = call(op, [0] * nargs, expect_error=True)
    assert "error:" in err


# ----------------------------------------------------------------------------- requantization
def test_requantize_ties_wraps_and_full_range(call):
    """A 1x1 conv with zero input and weights makes every output channel's accumulator its bias,
    so per-channel (bias, multiplier, shift) triples probe arm_nn_requantize directly: exact
    rounding ties of both signs, positive shifts that wrap int32, negative multipliers, and random
    values over the whole int32 range scaled to land inside int8."""
    rng = np.random.default_rng(77)
    acc, mult, shift = [], [], []
    for r in range(1, 9):  # ties: odd multiples of 2**(r-1), multiplier ~1.0
        for k in range(-4, 4):
            acc.append((2 * k + 1) << (r - 1))
            mult.append((1 << 31) - 1)
            shift.append(-r)
    for s in range(0, 31, 3):  # left shifts, wrapping when val * 2**s leaves int32
        for v in (1, -1, 3, -3, 1 << 20, -(1 << 20), 12345):
            acc.append(v)
            mult.append(int(rng.integers(1 << 20, 1 << 31)))
            shift.append(s)
    while len(acc) < 512:  # random full-range values
        v = int(rng.integers(-(1 << 31), 1 << 31))
        m = int(rng.integers(-(1 << 31) + 1, 1 << 31))
        mag = abs(v * m) / 2.0**31
        s = -max(0, int(np.ceil(np.log2(mag + 1))) - 6) if mag >= 1 else 0
        acc.append(v)
        mult.append(m)
        shift.append(max(s, -31))
    cout = len(acc)
    acc = np.array(acc, np.int64)
    mult = np.array(mult, np.int32)
    shift = np.array(shift, np.int32)
    want = np.clip(ref.requantize(acc, mult, shift), -128, 127).astype(np.int8)
    x = np.zeros((1, 1, 1, 1), np.int8)
    (got,) = call("cortex_m::quantized_conv2d.out",
                  [nhwc(x), T(np.zeros((cout, 1, 1, 1), np.int8)), T(acc.astype(np.int32)),
                   [1, 1], [0, 0], [1, 1], 0, 0, T(mult), T(shift), -128, 127, scratch(),
                   out_nhwc((1, 1, 1, cout)), Ref(13)])
    np.testing.assert_array_equal(got.reshape(-1), want)
    # The tie cases really are ties and resolve away from zero.
    ties = want[:64].astype(int).reshape(8, 8)
    np.testing.assert_array_equal(ties[0], [-4, -3, -2, -1, 1, 2, 3, 4])


# ----------------------------------------------------------------------------- etmcu's own ops
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("align_corners", [False, True])
def test_quantized_upsample_bilinear2d(call, seed, align_corners):
    """Integer scales and arbitrary output sizes (down too), both coordinate rules."""
    rng = np.random.default_rng(900 + seed)
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 9))
    h, w = int(rng.integers(1, 8)), int(rng.integers(1, 8))
    if seed < 4:
        f = seed % 3 + 2
        ho, wo = h * f, w * f
    else:
        ho, wo = int(rng.integers(1, 20)), int(rng.integers(1, 20))
    x = i8(rng, (n, h, w, c))
    want = ref.upsample_bilinear_nhwc(x, (ho, wo), align_corners)
    (got,) = call("etmcu::quantized_upsample_bilinear2d.out",
                  [nhwc(x), align_corners, out_nhwc(want.shape), Ref(2)])
    np.testing.assert_array_equal(got, want)


def test_quantized_upsample_bilinear2d_extremes_and_errors(call):
    # the ends of int8 stay in range (a convex combination), ties round up
    x = np.array([-128, 127, -128, 127], np.int8).reshape(1, 2, 2, 1)
    want = ref.upsample_bilinear_nhwc(x, (4, 4), False)
    (got,) = call("etmcu::quantized_upsample_bilinear2d.out",
                  [nhwc(x), False, out_nhwc(want.shape), Ref(2)])
    np.testing.assert_array_equal(got, want)
    assert got.min() == -128 and got.max() == 127
    x = np.array([0, 1], np.int8).reshape(1, 1, 2, 1)   # 1x2 -> 1x3 align corners: 0, 0.5, 1
    (got,) = call("etmcu::quantized_upsample_bilinear2d.out",
                  [nhwc(x), True, out_nhwc((1, 1, 3, 1)), Ref(2)])
    np.testing.assert_array_equal(got.ravel(), [0, 1, 1])
    # a channel count that differs, NCHW bytes: clear errors naming the op
    err = call("etmcu::quantized_upsample_bilinear2d.out",
               [nhwc(np.zeros((1, 2, 2, 3), np.int8)), False, out_nhwc((1, 4, 4, 2)), Ref(2)],
               expect_error=True)
    assert "etmcu::quantized_upsample_bilinear2d.out" in err and "same N and C" in err
    err = call("etmcu::quantized_upsample_bilinear2d.out",
               [T(np.zeros((1, 3, 2, 2), np.int8)), False,
                out_like((1, 3, 4, 4), np.int8), Ref(2)], expect_error=True)
    assert "channels-last" in err
