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


# op -> (index of the input argument the out may overlap, d(node) function of the node's args)
OVERLAP_CONTRACTS = {
    "cortex_m::pad.out": (0, lambda args, out: pad_min_distance(args[0], out, args[1], args[2])),
}
