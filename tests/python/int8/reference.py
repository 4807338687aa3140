"""Pure-numpy reference of the int8 kernels' arithmetic (cortex_m::* with CMSIS-NN semantics and
quantized_decomposed::*), written from the published semantics, independently of the C++ kernels.

Activations are handled in NHWC (channels-last) numpy arrays; integer math is done in int64 and
wrapped to int32 where CMSIS-NN's C code wraps.
"""

import numpy as np

INT8_MIN, INT8_MAX = -128, 127


def wrap32(x):
    """Two's complement wrap of an int64 array to int32 values (kept as int64)."""
    x = np.asarray(x, dtype=np.int64)
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def rounding_divide_pow2(x, exponent):
    """x / 2**exponent rounded to nearest, ties away from zero."""
    x = np.asarray(x, dtype=np.int64)
    if exponent == 0:
        return x.copy()
    floor = x >> exponent
    rem = x - (floor << exponent)
    half = 1 << (exponent - 1)
    up = (rem > half) | ((rem == half) & (x >= 0))
    return floor + up.astype(np.int64)


def requantize(acc, multiplier, shift):
    """CMSIS-NN arm_nn_requantize (default build): doubling high multiply rounded by +2**30 and an
    arithmetic shift by 31, then a rounding (ties away from zero) shift right; a positive shift
    scales the value first (wrapping in int32). `multiplier`/`shift` may be per-element arrays."""
    acc = np.asarray(acc, dtype=np.int64)
    mult = np.broadcast_to(np.asarray(multiplier, dtype=np.int64), acc.shape)
    sh = np.broadcast_to(np.asarray(shift, dtype=np.int64), acc.shape)
    out = np.empty(acc.shape, dtype=np.int64)
    for s in np.unique(sh):
        m = sh == s
        left, right = max(int(s), 0), max(-int(s), 0)
        v = wrap32(acc[m] * (1 << left))
        high = wrap32((v * mult[m] + (1 << 30)) >> 31)
        out[m] = rounding_divide_pow2(high, right)
    return out


def sat_doubling_high_mult(a, b):
    """VQRDMULH: round(a*b / 2**31), ties away from zero; INT32_MIN*INT32_MIN saturates."""
    a, b = int(a), int(b)
    if a == b == -(1 << 31):
        return (1 << 31) - 1
    p = a * b
    nudge = (1 << 30) if p >= 0 else (1 - (1 << 30))
    q = p + nudge
    # C integer division truncates toward zero.
    r = abs(q) >> 31
    return r if q >= 0 else -r


def _div_pow2_int(x, e):
    return int(rounding_divide_pow2(np.int64(x), e))


def _mul_pow2_sat(x, e):
    thresh = (1 << (31 - e)) - 1
    if x > thresh:
        return (1 << 31) - 1
    if x < -thresh:
        return -(1 << 31)
    return int(wrap32(x << e))


# --------------------------------------------------------------------------- quantize
def quantize(x, scale, zero_point, qmin, qmax, dtype=np.int8):
    """float32 x * float32(1/float32(scale)), round half to even, + zero_point, clamp."""
    inv = np.float32(1.0) / np.float32(scale)
    r = np.rint(np.asarray(x, dtype=np.float32) * inv).astype(np.int64)
    return np.clip(r + zero_point, qmin, qmax).astype(dtype)


def dequantize(q, scale, zero_point):
    return (np.asarray(q, dtype=np.int64) - zero_point).astype(np.float32) * np.float32(scale)


def quantize_per_channel(x, scales, zero_points, axis, qmin, qmax, dtype):
    shape = [1] * x.ndim
    shape[axis] = -1
    inv = (np.float32(1.0) / np.asarray(scales, dtype=np.float64).astype(np.float32)).reshape(shape)
    r = np.rint(np.asarray(x, dtype=np.float32) * inv).astype(np.int64)
    return np.clip(r + np.asarray(zero_points).reshape(shape), qmin, qmax).astype(dtype)


def dequantize_per_channel(q, scales, zero_points, axis):
    shape = [1] * q.ndim
    shape[axis] = -1
    zp = 0 if zero_points is None else np.asarray(zero_points, dtype=np.int64).reshape(shape)
    s = np.asarray(scales, dtype=np.float64).astype(np.float32).reshape(shape)
    return (q.astype(np.int64) - zp).astype(np.float32) * s


# --------------------------------------------------------------------------- convolutions
def _finish(acc, mult, shift, out_offset, act_min, act_max):
    return np.clip(requantize(acc, mult, shift) + out_offset, act_min, act_max).astype(np.int8)


def conv2d_nhwc(x, w, bias, stride, padding, dilation, in_off, out_off, mult, shift, act_min,
                act_max):
    """x [N,H,W,Cin], w [Cout,kH,kW,Cin/groups] -> [N,Ho,Wo,Cout]."""
    n, h, wd, cin = x.shape
    cout, kh, kw, kc = w.shape
    groups = cin // kc
    xo = np.pad(x.astype(np.int64) + in_off,
                ((0, 0), (padding[0], padding[0]), (padding[1], padding[1]), (0, 0)))
    ho = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    acc = np.zeros((n, ho, wo, cout), dtype=np.int64)
    ocg = cout // groups
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dilation[0], kx * dilation[1]
            patch = xo[:, y0:y0 + stride[0] * (ho - 1) + 1:stride[0],
                       x0:x0 + stride[1] * (wo - 1) + 1:stride[1], :]
            for g in range(groups):
                pg = patch[..., g * kc:(g + 1) * kc]
                wg = w[g * ocg:(g + 1) * ocg, ky, kx, :].astype(np.int64)
                acc[..., g * ocg:(g + 1) * ocg] += np.einsum("nhwc,oc->nhwo", pg, wg)
    if bias is not None:
        acc += np.asarray(bias, dtype=np.int64)
    return _finish(acc, mult, shift, out_off, act_min, act_max)


def depthwise_conv2d_nhwc(x, w, bias, stride, padding, dilation, depth_mult, in_off, out_off,
                          mult, shift, act_min, act_max):
    """x [1,H,W,Cin], w [1,kH,kW,Cin*depth_mult]; output channel c*m+j reads input channel c."""
    xr = np.repeat(x, depth_mult, axis=3)  # channel k of xr is input channel k // depth_mult
    cout = w.shape[3]
    # A depthwise conv is a grouped conv with groups = Cout and one input channel per group.
    wg = np.transpose(w, (3, 1, 2, 0))  # [Cout, kH, kW, 1]
    return conv2d_nhwc(xr, wg, bias, stride, padding, dilation, in_off, out_off, mult, shift,
                       act_min, act_max) if cout else None


def transpose_conv2d_nhwc(x, w, bias, stride, padding, output_padding, in_off, out_off, mult,
                          shift, act_min, act_max):
    """Scatter formulation: every input pixel adds w * (x + in_off) into the full output, which is
    then cropped by `padding` (output_padding extends the bottom/right)."""
    n, h, wd, cin = x.shape
    cout, kh, kw, _ = w.shape
    fh = (h - 1) * stride[0] + kh + output_padding[0]
    fw = (wd - 1) * stride[1] + kw + output_padding[1]
    full = np.zeros((n, fh + padding[0], fw + padding[1], cout), dtype=np.int64)
    xi = x.astype(np.int64) + in_off
    wi = w.astype(np.int64)
    for iy in range(h):
        for ix in range(wd):
            contrib = np.einsum("nc,oyxc->nyxo", xi[:, iy, ix, :], wi)
            full[:, iy * stride[0]:iy * stride[0] + kh, ix * stride[1]:ix * stride[1] + kw, :] += contrib
    ho = fh - 2 * padding[0]
    wo = fw - 2 * padding[1]
    acc = full[:, padding[0]:padding[0] + ho, padding[1]:padding[1] + wo, :]
    if bias is not None:
        acc = acc + np.asarray(bias, dtype=np.int64)
    return _finish(acc, mult, shift, out_off, act_min, act_max)


# --------------------------------------------------------------------------- pooling
def _pool_out(size, k, s, p, ceil_mode):
    num = size + 2 * p - k
    out = num // s + 1
    if ceil_mode and num % s:
        out += 1
        if (out - 1) * s >= size + p:
            out -= 1
    return out


def avg_pool2d_nhwc(x, kernel, stride, padding, ceil_mode):
    """Mean over in-bounds taps only, (sum +- count//2) / count truncating, clamp to int8."""
    n, h, w, c = x.shape
    ho = _pool_out(h, kernel[0], stride[0], padding[0], ceil_mode)
    wo = _pool_out(w, kernel[1], stride[1], padding[1], ceil_mode)
    out = np.zeros((n, ho, wo, c), dtype=np.int8)
    for oy in range(ho):
        y0 = oy * stride[0] - padding[0]
        ys = slice(max(y0, 0), min(y0 + kernel[0], h))
        for ox in range(wo):
            x0 = ox * stride[1] - padding[1]
            xs = slice(max(x0, 0), min(x0 + kernel[1], w))
            win = x[:, ys, xs, :].astype(np.int64)
            count = win.shape[1] * win.shape[2]
            s = win.sum(axis=(1, 2))
            half = count // 2
            num = np.where(s > 0, s + half, s - half)
            q = np.sign(num) * (np.abs(num) // count)  # C division truncates
            out[:, oy, ox, :] = np.clip(q, INT8_MIN, INT8_MAX)
    return out


def max_pool2d_nhwc(x, kernel, stride, padding, act_min, act_max):
    n, h, w, c = x.shape
    ho = (h + 2 * padding[0] - kernel[0]) // stride[0] + 1
    wo = (w + 2 * padding[1] - kernel[1]) // stride[1] + 1
    xp = np.pad(x.astype(np.int64), ((0, 0), (padding[0],) * 2, (padding[1],) * 2, (0, 0)),
                constant_values=-(1 << 20))
    out = np.full((n, ho, wo, c), -(1 << 20), dtype=np.int64)
    for ky in range(kernel[0]):
        for kx in range(kernel[1]):
            out = np.maximum(out, xp[:, ky:ky + stride[0] * (ho - 1) + 1:stride[0],
                                     kx:kx + stride[1] * (wo - 1) + 1:stride[1], :])
    return np.clip(out, act_min, act_max).astype(np.int8)


# --------------------------------------------------------------------------- matmuls
def linear(x, w, bias, kernel_sum, in_off, f_off, out_off, mult, shift, act_min, act_max):
    acc = (x.astype(np.int64) + in_off) @ (w.astype(np.int64) + f_off).T
    if kernel_sum is not None:  # kernel_sum = bias + in_off * sum(w + f_off): same total
        acc = x.astype(np.int64) @ (w.astype(np.int64) + f_off).T + np.asarray(kernel_sum, np.int64)
    elif bias is not None:
        acc = acc + np.asarray(bias, dtype=np.int64)
    return _finish(wrap32(acc), mult, shift, out_off, act_min, act_max)


def batch_matmul(lhs, lhs_off, rhs_t, rhs_off, out_off, mult, shift):
    acc = np.einsum("bmk,bnk->bmn", lhs.astype(np.int64) + lhs_off, rhs_t.astype(np.int64) + rhs_off)
    return _finish(acc, mult, shift, out_off, INT8_MIN, INT8_MAX)


# --------------------------------------------------------------------------- elementwise
def add(a, zp_a, m_a, s_a, b, zp_b, m_b, s_b, zp_o, m_o, s_o, act_min, act_max):
    xa = requantize((a.astype(np.int64) - zp_a) << 20, m_a, s_a)
    xb = requantize((b.astype(np.int64) - zp_b) << 20, m_b, s_b)
    return _finish(wrap32(xa + xb), m_o, s_o, zp_o, act_min, act_max)


def mul(a, zp_a, b, zp_b, zp_o, m_o, s_o):
    prod = (a.astype(np.int64) - zp_a) * (b.astype(np.int64) - zp_b)
    return _finish(prod, m_o, s_o, zp_o, INT8_MIN, INT8_MAX)


def div(a, zp_a, b, zp_b, zp_o, scale, dtype=np.int8):
    info = np.iinfo(dtype)
    num = (a.astype(np.int64) - zp_a).astype(np.float32)
    den = (b.astype(np.int64) - zp_b).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(den != 0, num / np.where(den != 0, den, np.float32(1)), np.float32(0))
    prod = (q.astype(np.float32) * np.float32(scale)).astype(np.float32)
    # roundf (half away from zero), evaluated exactly in float64.
    p64 = prod.astype(np.float64)
    r = np.sign(p64) * np.floor(np.abs(p64) + 0.5)
    v = r.astype(np.float32) + np.float32(zp_o)
    return np.clip(v, info.min, info.max).astype(dtype)


def activation(x, lut):
    return np.asarray(lut, dtype=np.int8)[x.astype(np.int64) + 128]


def softmax(x, mult, shift, diff_min):
    """arm_softmax_s8 on the last dim (output zero point -128, scale 1/256)."""
    rows = x.reshape(-1, x.shape[-1]).astype(np.int64)
    out = np.empty(rows.shape, dtype=np.int8)
    mask = 1 << shift
    for r, row in enumerate(rows):
        mx = int(row.max())
        exps = []
        total = 0
        for v in row:
            diff = int(v) - mx
            if diff >= diff_min:
                e = _exp_on_negative(sat_doubling_high_mult(int(wrap32(diff * mask)), mult))
                total += _div_pow2_int(e, 12)
                exps.append(e)
            else:
                exps.append(None)
        total = int(wrap32(total))
        headroom = 32 - total.bit_length() if total > 0 else (0 if total < 0 else 32)
        shifted = int(wrap32((total << headroom) if total > 0 else 0)) - (1 << 31)
        scale = _one_over_one_plus_x(int(wrap32(shifted)))
        bits = 12 - headroom + 23
        for c, e in enumerate(exps):
            if e is None:
                out[r, c] = -128
            else:
                res = _div_pow2_int(sat_doubling_high_mult(scale, e), bits) - 128
                out[r, c] = min(max(res, -128), 127)
    return out.reshape(x.shape)


def _exp_on_negative(val):
    shift = 24
    mod = (val & ((1 << shift) - 1)) - (1 << shift)
    remainder = mod - val
    x = int(wrap32((mod << 5) + (1 << 28)))
    x2 = sat_doubling_high_mult(x, x)
    t = _div_pow2_int(sat_doubling_high_mult(x2, x2), 2) + sat_doubling_high_mult(x2, x)
    t = _div_pow2_int(sat_doubling_high_mult(int(wrap32(t)), 715827883) + x2, 1)
    result = int(wrap32(1895147668 + sat_doubling_high_mult(1895147668, x + t)))
    for k in (1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242):
        if remainder & (1 << shift):
            result = sat_doubling_high_mult(result, k)
        shift += 1
    return (1 << 31) - 1 if val == 0 else result


def _one_over_one_plus_x(val):
    s = val + (1 << 31) - 1
    half = (s + (1 if s >= 0 else -1))
    half = abs(half) // 2 * (1 if half >= 0 else -1)
    x = 1515870810 + sat_doubling_high_mult(half, -1010580540)
    for _ in range(3):
        x += _mul_pow2_sat(sat_doubling_high_mult(x, (1 << 29) - sat_doubling_high_mult(half, x)), 2)
    return _mul_pow2_sat(x, 1)


def pad(x_phys4, pre, post, value):
    """x in physical 4-D order, pads per physical dim."""
    return np.pad(x_phys4, list(zip(pre, post)), constant_values=value).astype(np.int8)


def upsample_bilinear_nhwc(x, out_hw, align_corners):
    """etmcu::quantized_upsample_bilinear2d (docs/int8.md), element by element with exact
    fractions: PyTorch's source coordinate (align corners: d (in-1)/(out-1); half-pixel:
    (d + 1/2) in/out - 1/2, clamped at 0), the weight of the upper tap floor(frac * 1024 + 1/2),
    the 2^20-weighted sum of the four taps rounded half up."""
    from fractions import Fraction

    def taps(n_in, n_out):
        out = []
        for d in range(n_out):
            if align_corners:
                src = Fraction(d * (n_in - 1), n_out - 1) if n_out > 1 else Fraction(0)
            else:
                src = max((d + Fraction(1, 2)) * Fraction(n_in, n_out) - Fraction(1, 2), 0)
            i0 = int(src)              # floor: src >= 0
            w = int((src - i0) * 1024 + Fraction(1, 2))
            out.append((i0, i0 + 1 if i0 + 1 < n_in else i0, w))
        return out

    n, h, w_, c = x.shape
    ty, tx = taps(h, out_hw[0]), taps(w_, out_hw[1])
    y = np.zeros((n, out_hw[0], out_hw[1], c), np.int8)
    xi = x.astype(np.int64)
    for oy, (y0, y1, wy) in enumerate(ty):
        for ox, (x0, x1, wx) in enumerate(tx):
            acc = ((1024 - wy) * ((1024 - wx) * xi[:, y0, x0] + wx * xi[:, y0, x1])
                   + wy * ((1024 - wx) * xi[:, y1, x0] + wx * xi[:, y1, x1]))
            y[:, oy, ox] = (acc + (1 << 19)) // (1 << 20)
    return y
