"""Reference kernels of the int8 (`cortex_m::*`) operators for the Python interpreter.

Written from CMSIS-NN's published arithmetic, independently of the C++ kernels, so that the
host runtime can be checked bit for bit against them:
  * requantize = arm_nn_requantize, default (double rounding) build: optional left shift,
    doubling high multiply rounded by adding 2**30 and shifting right by 31, then a rounding
    right shift with ties away from zero;
  * quantize = float32 multiply by float32(1 / float32(scale)), rounded to nearest even,
    plus the zero point, clamped; dequantize = float32(q - zp) * float32(scale);
  * convolution / linear accumulate sum((x + input_offset) * w) + bias in int32 (padding taps
    contribute 0, i.e. the real value 0), requantize, add output_offset, clamp;
  * average pool = (sum +- count/2) / count over the in-bounds taps (C truncating division);
  * add rescales both inputs (x - zp) << 20 to a common scale, then requantizes the sum.
Integer sums are computed exactly (float64 matmuls on integers below 2**53, then int64).
Kernels receive logical (NCHW) numpy views; 4-D activations are processed as NHWC views.
"""

import numpy as np

QMIN, QMAX = -128, 127
_I32 = 1 << 32


def wrap32(x):
    x = np.asarray(x, np.int64)
    return ((x + (1 << 31)) % _I32) - (1 << 31)


def divide_pow2(x, e):
    """CMSIS arm_nn_divide_by_power_of_two: rounding shift right, ties away from zero."""
    x = np.asarray(x, np.int64)
    if e <= 0:
        return x
    mask = (1 << e) - 1
    rem = x & mask
    res = x >> e
    thr = (mask >> 1) + (res < 0)
    return res + (rem > thr)


def requantize(acc, mult, shift):
    """arm_nn_requantize on int64 arrays; mult/shift scalars or arrays broadcast to acc."""
    acc = np.asarray(acc, np.int64)
    mult = np.broadcast_to(np.asarray(mult, np.int64), acc.shape)
    shift = np.broadcast_to(np.asarray(shift, np.int64), acc.shape)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    v = wrap32(acc << left)
    high = wrap32((v * mult + (1 << 30)) >> 31)
    out = np.empty_like(high)
    for r in np.unique(right):
        m = right == r
        out[m] = divide_pow2(high[m], int(r))
    return out


def _nhwc(x):
    return x.transpose(0, 2, 3, 1)


def _store_nhwc(out, y):
    out[...] = np.asarray(y).transpose(0, 3, 1, 2).astype(out.dtype)


def _finish(acc, mult, shift, out_off, amin, amax):
    return np.clip(requantize(wrap32(acc), mult, shift) + out_off, amin, amax).astype(np.int8)


def quantize_per_tensor(args):
    x, scale, zp, qmin, qmax, dtype, out = args[:7]
    inv = np.float32(1.0) / np.float32(scale)
    r = np.rint(np.asarray(x, np.float32) * inv).astype(np.int64) + zp
    out[...] = np.clip(r, qmin, qmax).astype(out.dtype)


def dequantize_per_tensor(args):
    q, scale, zp, qmin, qmax, dtype, out = args[:7]
    out[...] = (q.astype(np.int64) - zp).astype(np.float32) * np.float32(scale)


def _conv_acc(x, w, stride, padding, dilation, in_off):
    """x NHWC int8, w [Cout, kH, kW, Cin/groups] -> int64 accumulators [N, Ho, Wo, Cout]."""
    n, h, wd, cin = x.shape
    cout, kh, kw, kc = w.shape
    groups = cin // kc
    ocg = cout // groups
    ph, pw = padding
    xo = np.zeros((n, h + 2 * ph, wd + 2 * pw, cin), np.float64)
    xo[:, ph:ph + h, pw:pw + wd, :] = x.astype(np.float64) + in_off
    ho = (h + 2 * ph - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd + 2 * pw - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    acc = np.zeros((n, ho, wo, cout), np.float64)
    wf = w.astype(np.float64)
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dilation[0], kx * dilation[1]
            patch = xo[:, y0:y0 + stride[0] * (ho - 1) + 1:stride[0],
                       x0:x0 + stride[1] * (wo - 1) + 1:stride[1], :]
            for g in range(groups):
                acc[..., g * ocg:(g + 1) * ocg] += (
                    patch[..., g * kc:(g + 1) * kc] @ wf[g * ocg:(g + 1) * ocg, ky, kx, :].T)
    return acc.astype(np.int64)


def quantized_conv2d(args):
    (x, w, bias, stride, padding, dilation, in_off, out_off, mult, shift, amin, amax, _scratch,
     out) = args[:14]
    acc = _conv_acc(_nhwc(x), w, stride, padding, dilation, in_off)
    if bias is not None:
        acc = acc + bias.astype(np.int64)
    _store_nhwc(out, _finish(acc, mult.astype(np.int64), shift.astype(np.int64), out_off,
                             amin, amax))


def quantized_depthwise_conv2d(args):
    (x, w, bias, stride, padding, dilation, depth_mult, in_off, out_off, mult, shift, amin, amax,
     _scratch, out) = args[:15]
    xr = np.repeat(_nhwc(x), depth_mult, axis=3)      # output channel c*m+j reads input c
    wg = np.ascontiguousarray(w.transpose(3, 1, 2, 0))   # [Cout, kH, kW, 1]: groups = Cout
    acc = _conv_acc(xr, wg, stride, padding, dilation, in_off)
    if bias is not None:
        acc = acc + bias.astype(np.int64)
    _store_nhwc(out, _finish(acc, mult.astype(np.int64), shift.astype(np.int64), out_off,
                             amin, amax))


def quantized_linear(args):
    (x, w, bias, kernel_sum, in_off, f_off, out_off, mults, shifts, amax, amin, out) = args[:12]
    xi = x.reshape(-1, x.shape[-1]).astype(np.float64)
    wf = w.astype(np.float64) + f_off
    if kernel_sum is not None:
        acc = (xi @ wf.T).astype(np.int64) + kernel_sum.astype(np.int64).reshape(-1)
    else:
        acc = ((xi + in_off) @ wf.T).astype(np.int64)
        if bias is not None:
            acc = acc + bias.astype(np.int64)
    out[...] = _finish(acc, mults[0], shifts[0], out_off, amin, amax).reshape(out.shape)


def _windows(size, k, s, p, osize):
    for o in range(osize):
        start = o * s - p
        yield o, max(start, 0), min(start + k, size)


def quantized_avg_pool2d(args):
    x, kernel, stride, padding, ceil_mode, zp, mult, shift, _scratch, out = args[:10]
    xi = _nhwc(x).astype(np.int64)
    n, h, w, c = xi.shape
    ho, wo = out.shape[2], out.shape[3]
    y = np.zeros((n, ho, wo, c), np.int64)
    for oy, y0, y1 in _windows(h, kernel[0], stride[0], padding[0], ho):
        for ox, x0, x1 in _windows(w, kernel[1], stride[1], padding[1], wo):
            count = (y1 - y0) * (x1 - x0)
            if count <= 0:
                continue
            s = xi[:, y0:y1, x0:x1, :].sum(axis=(1, 2))
            num = np.where(s > 0, s + count // 2, s - count // 2)
            y[:, oy, ox, :] = np.sign(num) * (np.abs(num) // count)   # C truncation
    _store_nhwc(out, np.clip(y, QMIN, QMAX))


def quantized_max_pool2d(args):
    x, kernel, stride, padding, dilation, ceil_mode, in_zp, out_zp, amin, amax, out = args[:11]
    xi = _nhwc(x).astype(np.int64)
    n, h, w, c = xi.shape
    ho, wo = out.shape[2], out.shape[3]
    y = np.zeros((n, ho, wo, c), np.int64)
    for oy, y0, y1 in _windows(h, kernel[0], stride[0], padding[0], ho):
        for ox, x0, x1 in _windows(w, kernel[1], stride[1], padding[1], wo):
            y[:, oy, ox, :] = xi[:, y0:y1, x0:x1, :].max(axis=(1, 2))
    _store_nhwc(out, np.clip(y, amin, amax))


def pad(args):
    x, pre, post, value, out = args[:5]
    xp = _nhwc(x) if x.ndim == 4 else x
    y = np.pad(xp, list(zip(pre, post)), constant_values=value)
    if x.ndim == 4:
        _store_nhwc(out, y)
    else:
        out[...] = y


def quantized_add(args):
    a, za, ma, sa, b, zb, mb, sb, zo, mo, so, amin, amax, out = args[:14]
    xa = requantize(wrap32((a.astype(np.int64) - za) << 20), ma, sa)
    xb = requantize(wrap32((b.astype(np.int64) - zb) << 20), mb, sb)
    out[...] = _finish(xa + xb, mo, so, zo, amin, amax)


def quantized_mul(args):
    a, za, b, zb, zo, mo, so, out = args[:8]
    prod = (a.astype(np.int64) - za) * (b.astype(np.int64) - zb)
    out[...] = _finish(prod, mo, so, zo, QMIN, QMAX)


def quantized_activation(args):
    x, lut, out = args[:3]
    out[...] = np.asarray(lut, np.int8)[x.astype(np.int64) + 128].reshape(out.shape)


def _bilinear_taps(n_in, n_out, align_corners):
    """Per output index: (i0, i1, weight of i1 in 1/1024), from PyTorch's source coordinate
    taken exactly as a fraction (align corners: d (in-1)/(out-1); half-pixel: ((2d+1) in - out) /
    (2 out), clamped at 0) and its fraction rounded half up to 1/1024."""
    taps = []
    for d in range(n_out):
        if align_corners:
            if n_out == 1:
                taps.append((0, 0, 0))
                continue
            num, den = d * (n_in - 1), n_out - 1
        else:
            a = (2 * d + 1) * n_in
            if a <= n_out:
                taps.append((0, 1 if n_in > 1 else 0, 0))
                continue
            num, den = a - n_out, 2 * n_out
        i0, r = divmod(num, den)
        taps.append((i0, min(i0 + 1, n_in - 1), (r * 1024 + den // 2) // den))
    return taps


def quantized_upsample_bilinear2d(args):
    """etmcu's int8 bilinear upsampling: the four taps weighted in 1/1024 per axis, the sum
    rounded half up (floor((acc + 2^19) / 2^20)); same scale and zero point in and out."""
    x, align_corners, out = args[:3]
    xi = _nhwc(x).astype(np.int64)
    ho, wo = out.shape[2], out.shape[3]
    ty = _bilinear_taps(xi.shape[1], ho, bool(align_corners))
    tx = _bilinear_taps(xi.shape[2], wo, bool(align_corners))
    y0 = np.array([t[0] for t in ty]); y1 = np.array([t[1] for t in ty])
    wy = np.array([t[2] for t in ty], np.int64)[None, :, None, None]
    x0 = np.array([t[0] for t in tx]); x1 = np.array([t[1] for t in tx])
    wx = np.array([t[2] for t in tx], np.int64)[None, None, :, None]
    top = xi[:, y0][:, :, x0] * (1024 - wx) + xi[:, y0][:, :, x1] * wx
    bottom = xi[:, y1][:, :, x0] * (1024 - wx) + xi[:, y1][:, :, x1] * wx
    acc = top * (1024 - wy) + bottom * wy
    _store_nhwc(out, (acc + (1 << 19)) >> 20)


# ----------------------------------------------------------------------------- softmax
# arm_softmax_s8 (CMSIS-NN's scalar path): gemmlowp-style fixed point, 5 integer bits on the
# scaled input differences, a 12-bit accumulator of exp values, 1/(1+x) by Newton-Raphson.
# Every int32 operation is emulated with its C wrap-around.
_Q31_MIN, _Q31_MAX = -(1 << 31), (1 << 31) - 1


def _w(x):
    return ((int(x) + (1 << 31)) % _I32) - (1 << 31)


def _mul_sat(a, b):
    """arm_nn_doubling_high_mult: (a*b + nudge) / 2**31 truncated; MIN*MIN saturates."""
    if a == b == _Q31_MIN:
        return _Q31_MAX
    nudge = (1 << 30) if (a < 0) == (b < 0) else 1 - (1 << 30)
    p = nudge + a * b
    q = abs(p) >> 31
    return _w(q if p >= 0 else -q)


def _div_pow2(x, e):
    return int(divide_pow2(np.int64(x), e))


def _mul_pow2(val, e):
    thresh = (1 << (31 - e)) - 1
    if val > thresh:
        return _Q31_MAX
    if val < -thresh:
        return _Q31_MIN
    return _w(val << e)


def _exp_on_negative(val):
    shift = 24
    mod = _w((val & ((1 << shift) - 1)) - (1 << shift))
    remainder = _w(mod - val)
    x = _w((mod << 5) + (1 << 28))
    x2 = _mul_sat(x, x)
    inner = _w(_div_pow2(_mul_sat(x2, x2), 2) + _mul_sat(x2, x))
    inner = _div_pow2(_w(_mul_sat(inner, 715827883) + x2), 1)
    result = _w(1895147668 + _mul_sat(1895147668, _w(x + inner)))
    for k in (1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242):
        if remainder & (1 << shift):
            result = _mul_sat(result, k)
        shift += 1
    return _Q31_MAX if val == 0 else result


def _one_over_one_plus_x(val):
    s = val + _Q31_MAX
    half = s + (1 if s >= 0 else -1)
    half = _w(abs(half) // 2 * (1 if half >= 0 else -1))
    x = _w(1515870810 + _mul_sat(half, -1010580540))
    for _ in range(3):
        x = _w(x + _mul_pow2(_mul_sat(x, _w((1 << 29) - _mul_sat(half, x))), 2))
    return _mul_pow2(x, 1)


def softmax_rows(rows, mult, shift, diff_min):
    out = np.empty(rows.shape, np.int8)
    mask = 1 << shift
    for r, row in enumerate(rows.astype(np.int64).tolist()):
        mx = max(row)
        exps = [(_exp_on_negative(_mul_sat(_w((v - mx) * mask), mult))
                 if v - mx >= diff_min else None) for v in row]
        total = _w(sum(_div_pow2(e, 12) for e in exps if e is not None))
        headroom = 32 - total.bit_length() if total > 0 else (0 if total < 0 else 32)
        shifted = _w(_w(total << headroom if total > 0 else 0) - (1 << 31))
        scale = _one_over_one_plus_x(shifted)
        bits = 12 - headroom + 23
        for c, e in enumerate(exps):
            if e is None:
                out[r, c] = QMIN
            else:
                out[r, c] = min(max(_div_pow2(_mul_sat(scale, e), bits) + QMIN, QMIN), QMAX)
    return out


def softmax(args):
    x, dim, in_zp, out_zp, mult, shift, diff_min, out = args[:8]
    if dim % x.ndim != x.ndim - 1 or out_zp != QMIN:
        raise ValueError("cortex_m::softmax.out: last dim only, output zero point -128")
    rows = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
    out[...] = softmax_rows(rows, mult, shift, diff_min).reshape(out.shape)


INT8_KERNELS = {
    "cortex_m::softmax.out": softmax,
    "cortex_m::quantize_per_tensor.out": quantize_per_tensor,
    "cortex_m::dequantize_per_tensor.out": dequantize_per_tensor,
    "cortex_m::quantized_conv2d.out": quantized_conv2d,
    "cortex_m::quantized_depthwise_conv2d.out": quantized_depthwise_conv2d,
    "cortex_m::quantized_linear.out": quantized_linear,
    "cortex_m::quantized_avg_pool2d.out": quantized_avg_pool2d,
    "cortex_m::quantized_max_pool2d.out": quantized_max_pool2d,
    "cortex_m::pad.out": pad,
    "cortex_m::quantized_add.out": quantized_add,
    "cortex_m::quantized_mul.out": quantized_mul,
    "cortex_m::quantized_activation.out": quantized_activation,
    "etmcu::quantized_upsample_bilinear2d.out": quantized_upsample_bilinear2d,
}


# ----------------------------------------------------------------------------- layout checks
def _strides(shape, order):
    st = [0] * len(shape)
    acc = 1
    for d in reversed(order):
        st[d] = acc
        acc *= shape[d]
    return st


def _nhwc_compatible(shape, order):
    if len(shape) != 4:
        return False
    n, c, h, w = shape
    want = [h * w * c, 1, w * c, c]
    st = _strides(shape, order)
    return all(shape[d] <= 1 or st[d] == want[d] for d in range(4))


def _same_layout(sa, oa, sb, ob):
    if tuple(sa) != tuple(sb):
        return False
    ta, tb = _strides(sa, oa), _strides(sb, ob)
    return all(sa[d] <= 1 or ta[d] == tb[d] for d in range(len(sa)))


_NHWC_OPS = {"cortex_m::quantized_conv2d.out", "cortex_m::quantized_depthwise_conv2d.out",
             "cortex_m::quantized_avg_pool2d.out", "cortex_m::quantized_max_pool2d.out",
             "cortex_m::pad.out", "etmcu::quantized_upsample_bilinear2d.out"}


def check_layouts(key, args, dim_orders):
    """The layout rules of the cortex_m kernels (CMSIS-NN reads raw NHWC bytes): a wrong dim
    order would go unnoticed on logical views, so reject it like the kernels do."""
    def order(a):
        return dim_orders.get(id(a), tuple(range(a.ndim)))
    x, out = args[0], args[-1]
    if key in _NHWC_OPS:
        for t in (x, out):
            if t.ndim == 4 and not _nhwc_compatible(t.shape, order(t)):
                raise ValueError(f"{key}: 4-D tensor {list(t.shape)} with dim order "
                                 f"{list(order(t))} is not NHWC")
    elif x.shape == out.shape and not _same_layout(x.shape, order(x), out.shape, order(out)):
        raise ValueError(f"{key}: input and out layouts differ")
