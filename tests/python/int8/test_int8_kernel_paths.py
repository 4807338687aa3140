"""Kernel paths (kernels/api/kernel_paths.h): a build keeps only the int8 kernel branches in its
mask. The host runner int8_run_op_rv32_pointwise_only is the rv32 variant built with the 1x1
convolution path alone: that path still computes the reference's bytes, and every other op or
shape class answers NotSupported, naming why, without writing a wrong result."""
import numpy as np
import pytest

import reference as ref
from int8_harness import T, Ref, _runner, make_call, nhwc, out_nhwc

pytestmark = pytest.mark.skipif(_runner("rv32_pointwise_only") is None,
                                reason="int8_run_op_rv32_pointwise_only not built")

MISSING = "kernel path left out of this firmware"


def _conv_args(rng, k, pad, stride, cin=8, cout=8, h=5, w=6):
    x = rng.integers(-128, 128, size=(1, h, w, cin), dtype=np.int8)
    wt = rng.integers(-128, 128, size=(cout, k, k, cin), dtype=np.int8)
    bias = rng.integers(-5000, 5000, size=cout).astype(np.int32)
    mult = rng.integers(1 << 29, (1 << 31) - 1, size=cout).astype(np.int32)
    shift = rng.integers(-10, 0, size=cout).astype(np.int32)
    want = ref.conv2d_nhwc(x, wt, bias, (stride, stride), (pad, pad), (1, 1), 7, -3, mult, shift,
                           -128, 127)
    args = [nhwc(x), T(wt), T(bias), [stride, stride], [pad, pad], [1, 1], 7, -3, T(mult),
            T(shift), -128, 127, T(np.zeros(16, np.uint8)), out_nhwc(want.shape), Ref(13)]
    return args, want


def test_the_kept_path_computes(tmp_path):
    call = make_call(tmp_path, "rv32_pointwise_only")
    args, want = _conv_args(np.random.default_rng(1), 1, 0, 1)
    (got,) = call("cortex_m::quantized_conv2d.out", args)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("k,pad,stride", [(3, 1, 1), (3, 0, 2), (1, 0, 2)])
def test_a_left_out_conv_path_is_an_error(tmp_path, k, pad, stride):
    call = make_call(tmp_path, "rv32_pointwise_only")
    args, _ = _conv_args(np.random.default_rng(2), k, pad, stride)
    err = call("cortex_m::quantized_conv2d.out", args, expect_error=True)
    assert MISSING in err, err
    # the full rv32 build computes the same call
    (got,) = make_call(tmp_path, "rv32")("cortex_m::quantized_conv2d.out", args)
    np.testing.assert_array_equal(got, _conv_args(np.random.default_rng(2), k, pad, stride)[1])


def test_left_out_depthwise_linear_and_pool_paths_are_errors(tmp_path):
    call = make_call(tmp_path, "rv32_pointwise_only")
    rng = np.random.default_rng(3)
    c = 8
    x = rng.integers(-128, 128, size=(1, 6, 6, c), dtype=np.int8)
    mult = np.full(c, 1 << 30, np.int32)
    shift = np.full(c, -4, np.int32)
    dw = [nhwc(x), T(rng.integers(-128, 128, size=(1, 3, 3, c), dtype=np.int8)), None, [1, 1],
          [1, 1], [1, 1], 1, 0, 0, T(mult), T(shift), -128, 127, T(np.zeros(0, np.uint8)),
          out_nhwc((1, 6, 6, c)), Ref(14)]
    assert MISSING in call("cortex_m::quantized_depthwise_conv2d.out", dw, expect_error=True)
    pool = [nhwc(x), [3, 3], [1, 1], [0, 0], False, -128, 2077939072, -4,
            T(np.zeros(4 * c, np.uint8)), out_nhwc((1, 4, 4, c)), Ref(9)]
    assert MISSING in call("cortex_m::quantized_avg_pool2d.out", pool, expect_error=True)
    xl = rng.integers(-128, 128, size=(2, 16), dtype=np.int8)
    lin = [T(xl), T(rng.integers(-128, 128, size=(4, 16), dtype=np.int8)), None, None, 3, 0, -2,
           [1 << 30], [-5], 127, -128, out_nhwc_like((2, 4)), Ref(11)]
    assert MISSING in call("cortex_m::quantized_linear.out", lin, expect_error=True)


def out_nhwc_like(shape):
    return T(np.zeros(shape, np.int8), write=True)


@pytest.mark.skipif(_runner("rv32_no_mult4") is None, reason="int8_run_op_rv32_no_mult4 not built")
@pytest.mark.parametrize("kh,kw,stride,pad,in_off", [(10, 4, 2, 1, 7), (3, 4, 2, 1, 0), (3, 3, 1, 1, -3)])
def test_multiplier4_depthwise_without_its_path(tmp_path, kh, kw, stride, pad, in_off):
    """A multiplier-4 depthwise layer in a build without kPathDwLanesMult4 (the four-channel row
    kernel and its set-up, pack_rows4) runs a channel at a time (planes_rows1): the same bytes as
    the full build and the reference."""
    rng = np.random.default_rng(40 + kh)
    c, dm = 2, 4
    x = rng.integers(-128, 128, size=(1, 13, 11, c), dtype=np.int8)
    wt = rng.integers(-128, 128, size=(1, kh, kw, c * dm), dtype=np.int8)
    bias = rng.integers(-5000, 5000, size=c * dm).astype(np.int32)
    mult = rng.integers(1 << 29, (1 << 31) - 1, size=c * dm).astype(np.int32)
    shift = rng.integers(-10, 0, size=c * dm).astype(np.int32)
    want = ref.depthwise_conv2d_nhwc(x, wt, bias, (stride, stride), (pad, pad), (1, 1), dm, in_off,
                                     -5, mult, shift, -5, 127)
    args = [nhwc(x), T(wt), T(bias), [stride, stride], [pad, pad], [1, 1], dm, in_off, -5,
            T(mult), T(shift), -5, 127, T(np.zeros(1024, np.uint8)), out_nhwc(want.shape), Ref(14)]
    for runner in ("rv32_no_mult4", "rv32"):
        (got,) = make_call(tmp_path, runner)("cortex_m::quantized_depthwise_conv2d.out", args)
        np.testing.assert_array_equal(got, want)
