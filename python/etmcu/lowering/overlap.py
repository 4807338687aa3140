"""Offset-overlap contracts: an op whose kernel may write its out over the *start* of an input's
bytes, the out beginning at least d bytes before the input (out address <= input address - d).
d is derived from the kernel's loop order: the largest distance by which a write could run ahead of
the input bytes not read yet. The planner (memory_planner.py) places such pairs as one composite
buffer; method load recomputes d (kernels/api/alias_contract.h, the same loop) and refuses a plan
with less. Correct for every shape the kernel accepts, or None (then no overlap is planned).
"""

import numpy as np

CL = (0, 2, 3, 1)


def pad_min_distance(x, out, pre, post):
    """cortex_m::pad.out (kernels/cortex_m/ref/op_pad.cpp, the only variant): it walks the out
    rows of the innermost physical dim in memory order; a row is either filled or is
    memset(pre) + memmove(input row) + memset(post), input rows read in increasing order. Every
    byte written for out row q must lie below the first input row not yet read (strict: the
    leading memset comes before the memmove): d >= (q + 1) * R - read * Ri while read < rows_in.
    Only exact channels-last 4-D tensors (the int8 activations), where the kernel's NHWC view is
    the memory order."""
    if len(x.shape) != 4 or x.order != CL or out.order != CL or len(pre) != 4:
        return None
    if any(getattr(t, "dtype", np.int8) != np.int8 for t in (x, out)):
        return None
    dims = [x.shape[i] for i in CL]
    odims = [out.shape[i] for i in CL]
    if any(odims[i] != dims[i] + pre[i] + post[i] for i in range(4)) or min(dims) < 1:
        return None
    r_out, r_in = odims[3], dims[3]
    rows_in = dims[0] * dims[1] * dims[2]
    read, q, worst = 0, 0, None
    for a in range(odims[0]):
        ia = a - pre[0]
        for b in range(odims[1]):
            ib = b - pre[1]
            for c in range(odims[2]):
                ic = c - pre[2]
                if read < rows_in:
                    need = (q + 1) * r_out - read * r_in
                    worst = need if worst is None or need > worst else worst
                inside = 0 <= ia < dims[0] and 0 <= ib < dims[1] and 0 <= ic < dims[2]
                read += 1 if inside else 0
                q += 1
    return worst if worst is not None else 0


def pad_min_distance_closed(x, out, pre, post):
    """The same d in O(1), as method load computes it (kernels/api/alias_contract.h): the lead
    grows by R at a filled row and by R - Ri >= 0 at a copied one, so it peaks just before the
    last input row is read, at that row's out position q*."""
    if pad_min_distance(x, out, pre, post) is None:
        return None
    dims = [x.shape[i] for i in CL]
    odims = [out.shape[i] for i in CL]
    qs = ((dims[0] - 1 + pre[0]) * odims[1] + dims[1] - 1 + pre[1]) * odims[2] + dims[2] - 1 + pre[2]
    return (qs + 1) * odims[3] - (dims[0] * dims[1] * dims[2] - 1) * dims[3]


# Output pixels per strip of the opt conv's 1x1 path (kernels/api/alias_contract.h
# kPointwiseStripPixels; kernels/cortex_m/opt/op_quantized_conv2d.cpp pointwise_strips).
POINTWISE_STRIP = 24


def _cl_int8(*tensors):
    """Every tensor exact channels-last int8 (the activations the contracts cover)."""
    return all(t.order == CL and getattr(t, "dtype", np.int8) == np.int8 for t in tensors)


def _pointwise_shape(x, w, stride, padding, dilation, out):
    """(P pixels, Cin, Cout) of an ungrouped 1x1, stride 1, unpadded, undilated layer on exact
    channels-last int8 tensors, else None."""
    if len(x.shape) != 4 or len(out.shape) != 4 or len(w.shape) != 4:
        return None
    if not _cl_int8(x, out):
        return None
    if list(stride) != [1, 1] or list(padding) != [0, 0] or list(dilation) != [1, 1]:
        return None
    n, cin, h, wd = x.shape
    cout = out.shape[1]
    if tuple(w.shape) != (cout, 1, 1, cin) or tuple(out.shape) != (n, cout, h, wd):
        return None
    if n * h * wd < 1 or cin < 1:
        return None
    return n * h * wd, cin, cout


def pointwise_distance(x, w, stride, padding, dilation, out, after=False):
    """cortex_m::quantized_conv2d.out for 1x1, stride 1, unpadded, undilated, ungrouped layers on
    exact channels-last int8 tensors. With the out over the input, the opt variants (every ISA)
    compute the P output pixels (batches included, memory order) in strips of
    S = POINTWISE_STRIP: all output channels of strip k, reading input pixels
    [kS, end_k = min(kS + S, P)) only, before the next strip reads anything. An out that begins
    before its input (after=False): strips first to last, so strip k's writes must end at or below
    input pixel kS: d >= end_k * Cout - kS * Cin (input - out address). An out that begins after
    it: strips last to first, strip k's writes beginning at or above input pixel end_k:
    e >= end_k * Cin - kS * Cout (out - input address). ref goes one pixel at a time in the same
    directions (its writes for pixel p clear the input bytes still needed either way)."""
    shape = _pointwise_shape(x, w, stride, padding, dilation, out)
    if shape is None:
        return None
    p, cin, cout = shape
    s = POINTWISE_STRIP
    if after:
        return max(0, max(min(k + s, p) * cin - k * cout for k in range(0, p, s)))
    return max(0, max(min(k + s, p) * cout - k * cin for k in range(0, p, s)))


def pointwise_distance_closed(x, w, stride, padding, dilation, out, after=False):
    """The same distance as method load computes it (alias_contract.h): linear in the strip except
    at the last one, so the first, the second-to-last and the last strips decide."""
    shape = _pointwise_shape(x, w, stride, padding, dilation, out)
    if shape is None:
        return None
    p, cin, cout = shape
    s = POINTWISE_STRIP
    strips = (p + s - 1) // s
    a, b = (cin, cout) if after else (cout, cin)

    def need(k):
        return min(k * s + s, p) * a - k * s * b
    return max([0, need(0), need(strips - 1)] + ([need(strips - 2)] if strips >= 2 else []))


# Output rows per slab of the convolution family's kernels when their out shares bytes with their
# input (kernels/api/alias_contract.h kOverlapSlabRows; kernels/cortex_m/util/conv_util.h
# by_row_slabs).
SLAB_ROWS = 4


def slab_distance(x, w, out, stride, padding, dilation, after=False):
    """cortex_m::quantized_conv2d.out (other than the 1x1 strips above) and
    quantized_depthwise_conv2d.out on one exact channels-last int8 image, any kernel, stride,
    padding, dilation or grouping (w: the weight, [Cout or 1, kh, kw, C]). With their out over
    their input the opt variants (every ISA) run slabs of S = SLAB_ROWS output rows
    (util/conv_util.h by_row_slabs), slab k (rows oy0 = kS .. end) reading input rows
    [lo_k, hi_k) only, lo_k = clamp(oy0 * stride - pad, 0, H),
    hi_k = clamp((end - 1) * stride - pad + (kh - 1) * dilation + 1, 0, H), writing only its
    own output rows. An out before its input: slabs top to bottom, d >= end * out row - lo_k *
    input row. An out after it: slabs bottom to top, e >= hi_k * input row - oy0 * out row. ref
    goes one output pixel at a time, or in the same slabs bottom to top for an out after its
    input. None for batches and for layers with an output row whose window starts below the
    input."""
    if len(x.shape) != 4 or len(out.shape) != 4 or len(w.shape) != 4:
        return None
    if not _cl_int8(x, out):
        return None
    n, c, h, wd = x.shape
    on, oc, oh, ow = out.shape
    kh = int(w.shape[1])
    sh, ph, dh = int(stride[0]), int(padding[0]), int(dilation[0])
    if n != 1 or on != 1 or h < 1 or oh < 1 or kh < 1 or sh < 1 or ph < 0 or dh < 1 \
            or (oh - 1) * sh - ph >= h:
        return None
    r_in, r_out, s = wd * c, ow * oc, SLAB_ROWS

    def rows(r):
        return min(max(r, 0), h)
    need = []
    for oy0 in range(0, oh, s):
        end = min(oy0 + s, oh)
        if after:
            need.append(rows((end - 1) * sh - ph + (kh - 1) * dh + 1) * r_in - oy0 * r_out)
        else:
            need.append(end * r_out - rows(oy0 * sh - ph) * r_in)
    return max(0, max(need))


def dw_rows_distance(x, w, out, stride, padding, dilation):
    """cortex_m::quantized_depthwise_conv2d.out, stride 1, undilated, the out of the input's shape
    (multiplier 1, "same" padding), one exact channels-last int8 image: every variant writes the
    out rows top to bottom without slabs (ref and the channel-block loops pixel by pixel, the plane
    path a strip of rows per channel, strips top to bottom), out row r overwriting only input row
    r - pad_h - 1 of the same channels, which no later output reads. So an out that begins before
    its input needs d = (pad_h + 1) input rows (kernels/api/alias_contract.h dw_rows_distance;
    the kernels then run whole, util/conv_util.h). None where it does not apply."""
    if len(x.shape) != 4 or len(out.shape) != 4:
        return None
    if not _cl_int8(x, out):
        return None
    if tuple(x.shape) != tuple(out.shape) or x.shape[0] != 1:
        return None
    if list(stride) != [1, 1] or list(dilation) != [1, 1] or int(padding[0]) < 0:
        return None
    n, c, h, wd = x.shape
    return (int(padding[0]) + 1) * wd * c


def dw_distance(args, out, after=False):
    """cortex_m::quantized_depthwise_conv2d.out: the row contract where it applies (an out before
    its input), else (or when smaller) the slabs."""
    slabs = slab_distance(args[0], args[1], out, args[3], args[4], args[5], after)
    if after:
        return slabs
    rows = dw_rows_distance(args[0], args[1], out, args[3], args[4], args[5])
    if rows is None:
        return slabs
    return rows if slabs is None else min(rows, slabs)


def conv_distance(args, out, after=False):
    """cortex_m::quantized_conv2d.out: the strips for ungrouped 1x1, stride 1, unpadded layers,
    the slabs for the rest (the kernel's choice, opt/op_quantized_conv2d.cpp)."""
    x, w = args[0], args[1]
    if len(x.shape) == 4 and len(w.shape) == 4 and tuple(w.shape[1:]) == (1, 1, x.shape[1]):
        d = pointwise_distance(x, w, args[3], args[4], args[5], out, after)
        if d is not None:
            return d
    return slab_distance(x, w, out, args[3], args[4], args[5], after)


# op -> (index of the input argument the out may overlap, d(args, out): the least input - out
# address of an out that begins before the input, e(args, out): the least out - input address
# of an out that begins after it, or None where the kernel has no such loop order).
OVERLAP_CONTRACTS = {
    "cortex_m::pad.out": (0, lambda args, out: pad_min_distance(args[0], out, args[1], args[2]),
                          None),
    "cortex_m::quantized_conv2d.out": (0, conv_distance,
                                       lambda args, out: conv_distance(args, out, True)),
    "cortex_m::quantized_depthwise_conv2d.out": (
        0, dw_distance, lambda args, out: dw_distance(args, out, True)),
}
