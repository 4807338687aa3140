"""int8 post-training static quantization of the IR into upstream's Cortex-M (`cortex_m::*`) ops.

    graph (fp32 IR, BN folded) --observe()--> per-tensor float ranges (calibration samples)
          --Int8Rewriter--> IR with cortex_m::* nodes, int8 channels-last activations,
                            quantize/dequantize only at the edges of the int8 regions

Scheme (TFLite / CMSIS-NN style, as upstream's Cortex-M backend):
  * activations: per-tensor affine int8, scale = (max - min) / 255 over the calibrated range
    widened to contain 0, zero point in [-128, 127] (so real 0 is exact: zero padding is exact);
  * conv / depthwise weights: per-output-channel symmetric int8 in [-127, 127] (zero point 0);
    linear weights: per-tensor symmetric (cortex_m::quantized_linear requantizes with element 0
    of its lists only); biases int32 at scale s_in * s_w;
  * requantization folded at export: M = s_in * s_w / s_out as CMSIS-NN (multiplier Q31, shift)
    by frexp (upstream's quantize_multiplier_aot convention), except convolution channels and
    per-tensor linear layers, made dyadic by default (dyadic_requant, dyadic_linear_requant:
    M = m / 2**21, weight scale widened by < 2**-9);
  * ReLU / ReLU6 / clamp right after a conv, linear or add are fused into activation_min/max;
    elsewhere on int8 they, sigmoid and tanh become cortex_m::quantized_activation with a
    256-entry LUT computed here;
  * pools, pads and views keep their input's quantization (the kernels do not requantize).
Anything else runs in fp32 between a dequantize and a quantize (listed in `fp32_ops`).
"""

import math

import numpy as np

from .errors import ExportError
from .ir import ALIAS, Graph, Node

CL = (0, 2, 3, 1)            # channels-last dim order of 4-D int8 activations
INT8 = 1                     # ScalarType CHAR
QMIN, QMAX = -128, 127
ADD_LEFT_SHIFT = 20          # CMSIS-NN's left shift of both inputs of an int8 add


# ----------------------------------------------------------------------------- numerics
def f32(x):
    return float(np.float32(x))


def quantize_multiplier(m):
    """Real factor m > 0 -> (multiplier Q31, shift) with m ~= multiplier * 2**(shift - 31)."""
    if m <= 0.0:
        return 0, 0
    mant, shift = math.frexp(m)
    q = int(round(mant * (1 << 31)))
    if q == 1 << 31:
        q //= 2
        shift += 1
    if shift < -31:              # negligible factor: the product rounds to 0
        return 0, 0
    if shift > 30:
        raise ExportError(f"requantization factor {m:g} too large for CMSIS-NN", op="quantize")
    return q, shift


def activation_qparams(lo, hi):
    """(scale, zero_point) of an int8 per-tensor affine quantization covering [lo, hi] and 0."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ExportError("calibration produced a non-finite activation", op="quantize")
    if hi - lo < 1e-12:
        hi = lo + 1e-6
    scale = f32((hi - lo) / 255.0)
    zp = int(round(QMIN - lo / scale))
    return scale, max(QMIN, min(QMAX, zp))


def quantize_value(x, scale, zp):
    """Export-time quantization of a scalar (pad values, clamp bounds)."""
    return max(QMIN, min(QMAX, int(round(x / scale)) + zp))


def quantize_array(x, scale, zp):
    """Same arithmetic as cortex_m::quantize_per_tensor (float32 reciprocal, ties to even)."""
    inv = np.float32(1.0) / np.float32(scale)
    r = np.rint(np.asarray(x, np.float32) * inv).astype(np.int64) + zp
    return np.clip(r, QMIN, QMAX).astype(np.int8)


def dequantize_array(q, scale, zp):
    """Same arithmetic as cortex_m::dequantize_per_tensor: (q - zp) * scale in float32."""
    return ((np.asarray(q, np.int32) - zp).astype(np.float32) * np.float32(scale)).astype(np.float32)


def symmetric_weights(w, per_channel):
    """int8 weights in [-127, 127] and float scales (one per output channel, axis 0)."""
    w = np.asarray(w, np.float64)
    if per_channel:
        amax = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
    else:
        amax = np.array([np.abs(w).max()])
    scales = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32).astype(np.float64)
    s = scales.reshape((-1,) + (1,) * (w.ndim - 1)) if per_channel else scales[0]
    q = np.clip(np.round(w / s), -127, 127).astype(np.int8)
    return q, scales


# Dyadic requantization (our exports' default): a convolution's per-channel factor
# M = s_in * s_w / s_out is made exactly m / 2**21 with an integer m in [2**9, 2**20), by widening
# the channel's weight scale to s_w' = ceil(M * 2**21) * s_out / (s_in * 2**21) (at most 2**-9
# larger, so no weight clips) and quantizing the weights and bias with it. It is emitted as
# multiplier m << 11 with shift -1: the same CMSIS-NN arithmetic as any (multiplier, shift), so
# every runtime computes the same outputs, but a kernel can requantize with one 32-bit `mul`
# instead of a 64-bit product (docs/quantization.md "Dyadic requantization"). Channels whose M is
# outside [2**-12, 2**-1) keep the frexp form.
DYADIC_BITS = 21             # M = m / 2**DYADIC_BITS
DYADIC_MIN = 1 << 9          # below: under 10 bits of precision, the frexp form instead
DYADIC_LIMIT = 1 << 20       # m << 11 stays below 2**31


def dyadic_requant(w, wq, ws, s_in, s_out):
    """(weights, scales, multipliers, shifts) with each channel's factor dyadic where it can be
    (above); w the float weights [out, ...], wq / ws symmetric_weights' per-channel result."""
    wq, ws = wq.copy(), np.array(ws, np.float64)
    mults, shifts = [], []
    w = np.asarray(w, np.float64).reshape(wq.shape[0], -1)
    for c, sw in enumerate(ws):
        m = math.ceil(s_in * sw / s_out * (1 << DYADIC_BITS))
        if not DYADIC_MIN <= m < DYADIC_LIMIT:
            mult, shift = quantize_multiplier(s_in * sw / s_out)
            mults.append(mult)
            shifts.append(shift)
            continue
        ws[c] = m * s_out / (s_in * (1 << DYADIC_BITS))
        wq.reshape(wq.shape[0], -1)[c] = np.clip(np.round(w[c] / ws[c]), -127, 127)
        mults.append(m << 11)
        shifts.append(-1)
    return wq, ws, mults, shifts


# A linear layer's one factor is made dyadic differently (dyadic_linear_requant): still M = m / 2**21,
# but emitted with frexp's shift -r (M = f * 2**-r, f in [1/2, 1)) as multiplier m << (10 + r), so
# CMSIS-NN's second rounding stays r bits wide. The convolutions' shift -1 rounds twice at nearly
# the same bit: a quarter of the outputs one step off, which moved the autoencoder's anomaly
# scores (192 -> 147 of 200 within 10 % of fp32's, measured); with frexp's shift its outputs are
# frexp's within the widened scale. The CV32E40P's linear row kernels apply every r with one
# `mul` (kernels/cortex_m/util/cmsis_math.h dyadic_linear). r in [1, 11] (m >= 2**9); else frexp.
DYADIC_LINEAR_MAX_SHIFT = 11


def dyadic_linear_requant(w, wq, ws, s_in, s_out):
    """(weights, scales, multiplier, shift) of a per-tensor layer (wq, ws: symmetric_weights'
    per-tensor result, w the float weights) with its factor dyadic as above where it can be."""
    mult, shift = quantize_multiplier(s_in * ws[0] / s_out)
    r = -shift
    m = math.ceil(s_in * ws[0] / s_out * (1 << DYADIC_BITS))
    if not (1 <= r <= DYADIC_LINEAR_MAX_SHIFT and DYADIC_MIN <= m < 1 << (DYADIC_BITS - r)):
        return wq, ws, mult, shift
    ws = np.array([m * s_out / (s_in * (1 << DYADIC_BITS))], np.float64)
    wq = np.clip(np.round(np.asarray(w, np.float64) / ws[0]), -127, 127).astype(np.int8)
    return wq, ws, m << (10 + r), -r


def int32_bias(b, n, s_in, s_w):
    if b is None:
        return np.zeros(n, np.int32)
    q = np.round(np.asarray(b, np.float64) / (s_in * np.asarray(s_w, np.float64)))
    return np.clip(q, -(1 << 31), (1 << 31) - 1).astype(np.int32)


def fold_input_offset(bias_q, wq, z_in):
    """(bias, input offset) for a convolution that pads nothing: bias + input_offset * sum(w) per
    output channel (int32, wrapping as the kernels' sums do; linear's kernel_sum) and 0. With every window inside the
    input, sum((x + input_offset) * w) = sum(x * w) + input_offset * sum(w), so the accumulators
    are the same int32 values in any runtime (CMSIS-NN's, upstream's), and the device computes
    no weight sums (they are computed here once: the program carries them, as linear's
    kernel_sum). A padded window would take the offset for taps outside the input too: those
    layers keep it."""
    wsum = wq.astype(np.int64).reshape(wq.shape[0], -1).sum(axis=1)
    folded = (bias_q.astype(np.int64) + (-z_in) * wsum + (1 << 31)) % (1 << 32) - (1 << 31)
    return folded.astype(np.int32), 0


def round_half_away(x):
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def _sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0


def _hardsigmoid(x):
    return min(max(x + 3.0, 0.0), 6.0) / 6.0


# Activations without a cortex_m op of their own: a 256-entry lookup table each
# (cortex_m::quantized_activation, as CMSIS-NN's int8 LUT activations).
_LUT_FNS = {
    "aten::sigmoid.out": _sigmoid,
    "aten::tanh.out": math.tanh,
    "aten::hardswish.out": lambda x: x * _hardsigmoid(x),
    "aten::hardsigmoid.out": _hardsigmoid,
    "aten::silu.out": lambda x: x * _sigmoid(x),
}


def activation_lut(fn, in_q, out_q):
    (si, zi), (so, zo) = in_q, out_q
    lut = np.empty(256, np.int8)
    for q in range(-128, 128):
        y = fn((q - zi) * si)
        lut[q + 128] = max(QMIN, min(QMAX, round_half_away(y / so + zo)))
    return lut


SOFTMAX_SCALE = 1.0 / 256.0
SOFTMAX_INPUT_INT_BITS = 5


def softmax_params(input_scale):
    """(input_multiplier, input_shift, diff_min) of arm_softmax_s8 for an input scale: the
    differences x - max are scaled to Q5.26 (5 integer bits); diff_min is the most negative
    difference whose exp still counts (TFLite's PreprocessSoftmaxScaling / CalculateInputRadius,
    the convention of upstream's Cortex-M pass)."""
    real = min(input_scale * (1 << (31 - SOFTMAX_INPUT_INT_BITS)), float((1 << 31) - 1))
    mult, shift = quantize_multiplier(real)
    radius = ((1 << SOFTMAX_INPUT_INT_BITS) - 1) * math.ldexp(1.0, 31 - SOFTMAX_INPUT_INT_BITS) \
        / math.ldexp(1.0, shift)
    return mult, shift, -int(math.floor(radius))


# ----------------------------------------------------------------------------- scratch sizes
# CMSIS-NN's *_get_buffer_size (non-MVE builds, GCC) for the kernels' build: "portable" = the
# plain C path our kernels are sized for (kernels/cortex_m/scratch.h); "dsp" = builds with the
# DSP extension (Cortex-M4/M7/M33), what upstream's Arduino KWS example was planned for.
def _align4(n):
    return n + (4 - n % 4) % 4


def conv_scratch(target, in_c, k_c, kh, kw, pad, dil):
    """arm_convolve_wrapper_s8_get_buffer_size: 0 for a 1x1 conv without padding/dilation (the
    1x1 'fast' path needs a buffer only with Arm Compiler 6), else two int16 im2col columns of
    kH*kW*Cin padded to a multiple of 4 (also for 1xN); the same on both targets."""
    is_1x1 = kh == kw == 1 and list(pad) == [0, 0] and list(dil) == [1, 1] and in_c == k_c
    if is_1x1:
        return 0
    return 2 * _align4(kh * kw * in_c) * 2


def depthwise_scratch(target, in_c, out_c, batch, kh, kw, pad, dil):
    """arm_depthwise_conv_wrapper_s8_get_buffer_size: portable 0; DSP: Cin*kH*kW int16 for the
    optimised path (multiplier 1, batch 1, no dilation), except 3x3 with padding <= 1."""
    if target != "dsp" or in_c != out_c or batch != 1 or list(dil) != [1, 1]:
        return 0
    if kh == kw == 3 and pad[0] <= 1 and pad[1] <= 1:
        return 0
    return in_c * kh * kw * 2


def avgpool_scratch(target, channels):
    """arm_avgpool_s8_get_buffer_size: portable 0, DSP Cin * 4 (int32 sums)."""
    return channels * 4 if target == "dsp" else 0


# etmcu's optimised kernels declare the buffers they take (kernels/api/kernel.h temp_bytes) and
# take them from the call's planned scratch when it is large enough (kernels/api/kernel_scratch.h).
# This is the depthwise plane's declaration for the ISA that takes the most layers (Xpulp and the
# Arm DSP: kernels/cortex_m/util/depthwise_planes.h dw_plane_geometry and dw_plane_bytes; the other
# ISAs take a subset of these layers, with the same bytes); tests/python/int8 checks it against
# the C++ declaration of every host variant.
DW_PLANE_BYTES = 720  # kDwPlaneBytes


def depthwise_plane_bytes(out_h, out_w, kh, kw, stride, dil, input_offset):
    """Bytes of the plane buffer the depthwise kernels take for this layer, 0 for none."""
    if list(dil) != [1, 1] or kw > 4 or kh > 12 or not -127 <= input_offset <= 128:
        return 0
    ls = ((out_w - 1) * stride[1] + 4 + 3) // 4 * 4
    lines = DW_PLANE_BYTES // ls - kh - 1
    if lines < 0:
        return 0
    strip = min(lines // stride[0] + 1, out_h)
    return ((strip - 1) * stride[0] + kh + 1) * ls


SCRATCH_TARGETS = ("etmcu", "portable", "dsp")


# ----------------------------------------------------------------------------- calibration
def observe(graph: Graph, samples):
    """Run the fp32 IR on every sample (tuple of numpy inputs); min/max of every tensor."""
    from .reference import KERNELS
    ranges = {}
    for sample in samples:
        env = {}
        for t, x in zip(graph.inputs, sample):
            env[t.id] = np.asarray(x, dtype=t.dtype).reshape(t.shape)

        def val(a):
            if hasattr(a, "id") and hasattr(a, "shape"):
                return a.data if a.is_const else env[a.id]
            if isinstance(a, (list, tuple)):
                return [val(x) for x in a]
            return a

        for n in graph.nodes:
            if n.op == ALIAS:
                src = val(n.args[0])
                env[n.outputs[0].id] = np.asarray(src).reshape(n.outputs[0].shape)
                continue
            fn = KERNELS.get(n.op)
            if fn is None:
                raise ExportError(f"calibration: no reference kernel for {n.op}", op=n.op,
                                  source=n.source)
            outs = [np.zeros(o.shape, o.dtype) for o in n.outputs]
            fn([val(a) for a in n.args] + outs)
            for o, v in zip(n.outputs, outs):
                env[o.id] = v
        for tid, v in env.items():
            if v.dtype.kind != "f" or v.size == 0:
                continue
            lo, hi = float(v.min()), float(v.max())
            if tid in ranges:
                plo, phi = ranges[tid]
                ranges[tid] = (min(lo, plo), max(hi, phi))
            else:
                ranges[tid] = (lo, hi)
    return ranges


# ----------------------------------------------------------------------------- rewrite
def _ambiguous(shape):
    return len(shape) == 4 and (shape[1] == 1 or shape[2] * shape[3] == 1)


def _nhwc_ok(t):
    return len(t.shape) != 4 or t.order == CL or _ambiguous(t.shape)



def layer_name(w):
    """The layer a (float) weight belongs to, from its name ("fc1.weight.T" -> "fc1"): the prefix
    of the names of the constants made from it (the keys of external constants)."""
    name = w.name or "layer"
    for suffix in (".T", ".weight"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name or "layer"

class Int8Rewriter:
    def __init__(self, graph: Graph, ranges, scratch_target="etmcu",
                 linear_per_channel=False, int8_softmax=False, int8_io=False,
                 upstream_ops=False, dyadic=True):
        if scratch_target not in SCRATCH_TARGETS:
            raise ExportError(f"unknown scratch target '{scratch_target}'", op="quantize")
        self.g = graph
        self.ranges = ranges
        self.target = scratch_target
        self.linear_per_channel = linear_per_channel
        self.int8_softmax = int8_softmax
        self.dyadic = dyadic
        self.nodes = []
        self.q = {}          # float tensor id -> int8 tensor
        self.qcl = {}        # float tensor id -> int8 tensor in NHWC-compatible layout
        self.f = {}          # float tensor id -> fp32 tensor holding its value
        self.qp = {}         # int8 tensor id -> (scale, zero point)
        self.fp32_ops = []   # ops left in fp32: Fp32Op (op, source) + module, why, fix
        self.why = {}        # id(node) -> (why, fix): a handler's own reason for refusing it
        self.cur = None      # the node being rewritten (its module path names what we emit)
        self.int8_ops = []
        self.users = graph.users()
        self.outputs = {t.id for t in graph.outputs}
        self.int8_io = int8_io
        self.upstream_ops = upstream_ops  # only ops upstream ExecuTorch registers (no etmcu::)
        # With int8_io: (scale, zero point) of every method input and output, in order.
        self.io_quant = None
        # float tensor id -> (module, source) of the node that computes it in the fp32 graph
        self.producer = {o.id: (n.module, n.source) for n in graph.nodes for o in n.outputs}

    # -- helpers ---------------------------------------------------------------------------
    def emit(self, op, args, out, src=""):
        self.nodes.append(Node(op, args, [out], src, self.cur.module if self.cur else ""))
        return out

    def qparams_of(self, t):
        if t.id not in self.ranges:
            raise ExportError("internal: no calibrated range for a quantized tensor",
                              op="quantize")
        return activation_qparams(*self.ranges[t.id])

    def new_q(self, ftensor, qparams, dim_order=None):
        shape = ftensor.shape
        if dim_order is None and len(shape) == 4:
            dim_order = CL
        t = self.g.new_tensor(shape, np.int8, name="q", dim_order=dim_order)
        self.qp[t.id] = qparams
        return t

    def clone(self, t, order, src=""):
        out = self.g.new_tensor(t.shape, t.dtype, name="clone", dim_order=order)
        if t.dtype == np.int8:
            self.qp[out.id] = self.qp[t.id]
        return self.emit("dim_order_ops::_clone_dim_order.out", [t, False, list(order)], out, src)

    def get_q(self, t, nhwc=True, src=""):
        """int8 version of float tensor t (quantizing it if it only exists in fp32)."""
        if t.id not in self.q:
            if t.is_const:
                s, z = activation_qparams(float(t.data.min()), float(t.data.max()))
                c = self.g.constant(quantize_array(t.data, s, z), f"{t.name or 'constant'}.int8")
                self.qp[c.id] = (s, z)
                self.q[t.id] = c
            else:
                s, z = self.qparams_of(t)
                x = self.f.get(t.id, t)
                out = self.g.new_tensor(t.shape, np.int8, name="q", dim_order=x.dim_order)
                self.qp[out.id] = (s, z)
                self.q[t.id] = self.emit("cortex_m::quantize_per_tensor.out",
                                         [x, s, z, QMIN, QMAX, INT8], out, src)
        x = self.q[t.id]
        if nhwc and not _nhwc_ok(x):
            if t.id not in self.qcl:
                self.qcl[t.id] = self.clone(x, CL, src)
            return self.qcl[t.id]
        return x

    def get_f(self, t, src=""):
        if t.id in self.f:
            return self.f[t.id]
        if t.id not in self.q:
            return t                                   # constants, untouched fp32 values
        x = self.q[t.id]
        if len(x.shape) == 4 and x.order != (0, 1, 2, 3):
            x = self.clone(x, (0, 1, 2, 3), src)
        s, z = self.qp[x.id]
        out = self.g.new_tensor(t.shape, np.float32, name="dq", dim_order=x.dim_order)
        self.f[t.id] = self.emit("cortex_m::dequantize_per_tensor.out",
                                 [x, s, z, QMIN, QMAX, INT8], out, src)
        return self.f[t.id]

    def is_q(self, t):
        return t.id in self.q and not t.is_const

    def single_user(self, t, node):
        return t.id not in self.outputs and self.users.get(t.id, []) == [node]

    # -- fusion ----------------------------------------------------------------------------
    @staticmethod
    def clamp_bounds(n):
        """(lo, hi) in real units if n is a ReLU / hardtanh / clamp, else None."""
        if n.op == "aten::relu.out":
            return 0.0, math.inf
        if n.op == "aten::hardtanh.out":
            return float(n.args[1]), float(n.args[2])
        if n.op == "aten::clamp.out":
            lo, hi = n.args[1], n.args[2]
            return (-math.inf if lo is None else float(lo)), (math.inf if hi is None else float(hi))
        return None

    def fused_activation(self, node, idx):
        """If node's output feeds only a clamp-like activation, fuse it: returns
        (out float tensor, (lo, hi) real bounds, the activation node) or None."""
        out = node.outputs[0]
        users = self.users.get(out.id, [])
        if len(users) == 1 and out.id not in self.outputs:
            act = users[0]
            b = self.clamp_bounds(act)
            if b is not None:
                return act.outputs[0], b, act
        return None

    def act_range(self, bounds, qparams):
        if bounds is None:
            return QMIN, QMAX
        s, z = qparams
        lo = QMIN if bounds[0] == -math.inf else quantize_value(bounds[0], s, z)
        hi = QMAX if bounds[1] == math.inf else quantize_value(bounds[1], s, z)
        return lo, hi

    # -- driver ----------------------------------------------------------------------------
    def run(self):
        skip = set()
        nodes = self.g.nodes
        if self.int8_io:
            self.int8_inputs()
        for i, n in enumerate(nodes):
            if id(n) in skip:
                continue
            self.cur = n
            handler = self.HANDLERS.get(n.op)
            done = False
            if handler is not None:
                done = handler(self, n, skip)
            if not done:
                self.fallback(n)
        if self.int8_io:
            # The caller gets the int8 tensors (MLPerf Tiny style) and dequantizes itself.
            outs = [self.get_q(t, nhwc=False) for t in self.g.outputs]
            self.io_quant["outputs"] = [self.qp[t.id] for t in outs]
            self.g.outputs = outs
        else:
            self.g.outputs = [self.get_f(t) for t in self.g.outputs]
        self.mark_references()
        self.g.nodes = self.nodes
        return self.g

    def int8_inputs(self):
        """Replace every float input by an int8 one (channels-last when 4-D, the layout the int8
        kernels read, as MLPerf Tiny feeds its models): no on-device quantize, 1/4 the bytes."""
        new = []
        for t in self.g.inputs:
            q = self.new_q(t, self.qparams_of(t))
            q.name = t.name or "input"
            self.q[t.id] = q
            new.append(q)
        self.g.inputs = new
        self.io_quant = {"inputs": [self.qp[t.id] for t in new], "outputs": []}

    def mark_references(self):
        """Give every int8 instruction whose output stands for a float tensor of the fp32 graph
        `node.ref = (module, source, scale, zero point)`: the layer whose fp32 output it
        approximates (with a fused activation, the activation's) and how to dequantize it. The
        program carries it (Frame.context), so `etmcu compare` can line the layers of an fp32
        and an int8 program up."""
        rev = {}
        for fid, t in self.q.items():
            rev.setdefault(t.id, fid)
        for n in reversed(self.nodes):   # the tensor a view is made from stands for it too
            if n.op == ALIAS and n.outputs[0].id in rev and n.args[0].id not in rev:
                rev[n.args[0].id] = rev[n.outputs[0].id]
        for n in self.nodes:
            o = n.outputs[0] if n.outputs else None
            if n.op == ALIAS or o is None or o.id not in rev or o.id not in self.qp:
                continue
            if n.op == "cortex_m::quantize_per_tensor.out":
                continue
            fid = rev[o.id]
            if fid not in self.producer:
                continue
            module, source = self.producer[fid]
            n.ref = (module, source) + tuple(self.qp[o.id])

    def fallback(self, n):
        args = []
        for a in n.args:
            if hasattr(a, "id") and hasattr(a, "shape"):
                args.append(self.get_f(a, n.source))
            elif isinstance(a, list) and a and all(hasattr(x, "shape") for x in a):
                args.append([self.get_f(x, n.source) for x in a])
            else:
                args.append(a)
        n.args = args
        self.nodes.append(n)
        for o in n.outputs:
            self.f[o.id] = o
        if n.op != ALIAS:
            why, fix = fp32_reason(n, self)
            self.fp32_ops.append(Fp32Op(n.op, n.source, n.module, why, fix))

    # -- handlers: return True when the node was lowered to int8 ----------------------------
    def h_conv(self, n, skip):
        x, w, b, stride, padding, dilation, transposed, _, groups = n.args
        if (transposed or len(x.shape) != 4 or not w.is_const or (b is not None and not b.is_const)
                or len(padding) != 2 or len(stride) != 2 or len(dilation) != 2):
            return False
        cin, cout = x.shape[1], w.shape[0]
        depthwise = groups == cin and cout % cin == 0 and x.shape[0] == 1
        if cin % groups or cout % groups:
            return False
        fused = self.fused_activation(n, 0)
        out_f, bounds = (fused[0], fused[1]) if fused else (n.outputs[0], None)
        xq = self.get_q(x, src=n.source)
        s_in, z_in = self.qp[xq.id]
        s_out, z_out = self.qparams_of(out_f)
        wq, ws = symmetric_weights(w.data, per_channel=True)
        if self.dyadic:
            wq, ws, mults, shifts = dyadic_requant(w.data, wq, ws, s_in, s_out)
        else:
            mults, shifts = zip(*(quantize_multiplier(s_in * sw / s_out) for sw in ws))
        layer = layer_name(w)
        bias_q, ioff = int32_bias(None if b is None else b.data, cout, s_in, ws), -z_in
        if list(padding) == [0, 0]:
            bias_q, ioff = fold_input_offset(bias_q, wq, z_in)
        bias = self.g.constant(bias_q, f"{layer}.bias_int32")
        mult_t = self.g.constant(np.array(mults, np.int32), f"{layer}.requant_mult")
        shift_t = self.g.constant(np.array(shifts, np.int32), f"{layer}.requant_shift")
        amin, amax = self.act_range(bounds, (s_out, z_out))
        out = self.new_q(out_f, (s_out, z_out))
        kh, kw = w.shape[2], w.shape[3]
        if depthwise:
            wt = self.g.constant(np.ascontiguousarray(wq.transpose(1, 2, 3, 0)), f"{layer}.weight_ihwo")
            size = depthwise_scratch(self.target, cin, cout, x.shape[0], kh, kw, list(padding),
                                     list(dilation))
            if self.target == "etmcu":  # also the plane our kernels take (in the arena, not temp)
                size = max(size, depthwise_plane_bytes(out_f.shape[2], out_f.shape[3], kh, kw,
                                                       list(stride), list(dilation), ioff))
            scratch = self.g.new_tensor((size,), np.uint8, name="scratch")
            scratch.scratch = True
            self.emit("cortex_m::quantized_depthwise_conv2d.out",
                      [xq, wt, bias, list(stride), list(padding), list(dilation), cout // cin,
                       ioff, z_out, mult_t, shift_t, amin, amax, scratch], out, n.source)
        else:
            wt = self.g.constant(np.ascontiguousarray(wq.transpose(0, 2, 3, 1)), f"{layer}.weight_ohwi")
            size = conv_scratch(self.target, cin, w.shape[1], kh, kw, list(padding),
                                list(dilation))
            scratch = self.g.new_tensor((size,), np.uint8, name="scratch")
            scratch.scratch = True
            self.emit("cortex_m::quantized_conv2d.out",
                      [xq, wt, bias, list(stride), list(padding), list(dilation), ioff, z_out,
                       mult_t, shift_t, amin, amax, scratch], out, n.source)
        self.q[out_f.id] = out
        if fused:
            skip.add(id(fused[2]))
        self.int8_ops.append(n.op)
        return True

    def h_linear(self, n, skip):
        if n.op == "aten::addmm.out":
            b, x, wt, beta, alpha = n.args
            if beta != 1 or alpha != 1 or not b.is_const:
                return False
            bias = np.broadcast_to(b.data, (wt.shape[1],))
        else:
            x, wt = n.args
            bias = None
        if len(x.shape) != 2 or not wt.is_const or len(wt.shape) != 2:
            return False
        fused = self.fused_activation(n, 0)
        out_f, bounds = (fused[0], fused[1]) if fused else (n.outputs[0], None)
        xq = self.get_q(x, src=n.source)
        s_in, z_in = self.qp[xq.id]
        s_out, z_out = self.qparams_of(out_f)
        w = np.ascontiguousarray(wt.data.T)              # [out, in]
        if self.linear_per_channel:
            return self._linear_as_conv(n, xq, w, bias, out_f, bounds, fused, skip, layer_name(wt))
        wq, ws = symmetric_weights(w, per_channel=False)
        if self.dyadic:
            wq, ws, mult, shift = dyadic_linear_requant(w, wq, ws, s_in, s_out)
        else:
            mult, shift = quantize_multiplier(s_in * ws[0] / s_out)
        layer = layer_name(wt)
        bias_q = int32_bias(bias, w.shape[0], s_in, ws[0])
        bias_t = self.g.constant(bias_q, f"{layer}.bias_int32")
        # kernel_sum = bias + input_offset * sum(w) per output, computed here once instead of
        # per call on the device (int32, wrapping as the kernels' sums do). Kernels that read it
        # skip the weight sums; those that ignore it (CMSIS-NN's portable and DSP paths in
        # upstream's runtime) use the bias and get the same int32 accumulator.
        ksum_t = self.g.constant(fold_input_offset(bias_q, wq, z_in)[0], f"{layer}.kernel_sum")
        w_t = self.g.constant(wq, f"{layer}.weight_int8")
        amin, amax = self.act_range(bounds, (s_out, z_out))
        out = self.new_q(out_f, (s_out, z_out))
        self.emit("cortex_m::quantized_linear.out",
                  [xq, w_t, bias_t, ksum_t, -z_in, 0, z_out, [mult], [shift], amax, amin],
                  out, n.source)
        self.q[out_f.id] = out
        if fused:
            skip.add(id(fused[2]))
        self.int8_ops.append(n.op)
        return True

    def _linear_as_conv(self, n, xq, w, bias, out_f, bounds, fused, skip, layer):
        """Linear with per-channel weights: a 1x1 quantized_conv2d on the [B, in, 1, 1] view
        of the input (H = W = 1, so the layout is both NCHW and NHWC; no copies)."""
        s_in, z_in = self.qp[xq.id]
        s_out, z_out = self.qparams_of(out_f)
        b_, cin = xq.shape
        cout = w.shape[0]
        wq, ws = symmetric_weights(w, per_channel=True)
        # (frexp factors: the convolution kernels' dyadic form is dyadic_requant's, shift -1,
        # whose double rounding dyadic_linear_requant's note measured on these layers)
        mults, shifts = zip(*(quantize_multiplier(s_in * sw / s_out) for sw in ws))
        bias_q, ioff = fold_input_offset(int32_bias(bias, cout, s_in, ws), wq, z_in)
        bias_t = self.g.constant(bias_q, f"{layer}.bias_int32")
        w_t = self.g.constant(np.ascontiguousarray(wq.reshape(cout, 1, 1, cin)), f"{layer}.weight_ohwi")
        mult_t = self.g.constant(np.array(mults, np.int32), f"{layer}.requant_mult")
        shift_t = self.g.constant(np.array(shifts, np.int32), f"{layer}.requant_shift")
        amin, amax = self.act_range(bounds, (s_out, z_out))
        x4 = self.g.new_tensor((b_, cin, 1, 1), np.int8, name="view")
        self.qp[x4.id] = (s_in, z_in)
        self.nodes.append(Node(ALIAS, [xq], [x4], n.source, n.module))
        scratch = self.g.new_tensor((conv_scratch(self.target, cin, cin, 1, 1, [0, 0], [1, 1]),),
                                    np.uint8, name="scratch")
        scratch.scratch = True
        y4 = self.g.new_tensor((b_, cout, 1, 1), np.int8, name="q", dim_order=CL)
        self.qp[y4.id] = (s_out, z_out)
        self.emit("cortex_m::quantized_conv2d.out",
                  [x4, w_t, bias_t, [1, 1], [0, 0], [1, 1], ioff, z_out, mult_t, shift_t,
                   amin, amax, scratch], y4, n.source)
        out = self.g.new_tensor(out_f.shape, np.int8, name="view")
        self.qp[out.id] = (s_out, z_out)
        self.nodes.append(Node(ALIAS, [y4], [out], n.source, n.module))
        self.q[out_f.id] = out
        if fused:
            skip.add(id(fused[2]))
        self.int8_ops.append(n.op)
        return True

    def h_add(self, n, skip):
        a, b = n.args[0], n.args[1]
        if n.args[2] != 1 or a.shape != b.shape or a.shape != n.outputs[0].shape:
            return False
        if a.dtype != np.float32 or b.dtype != np.float32 or (a.is_const and b.is_const):
            return False
        fused = self.fused_activation(n, 0)
        out_f, bounds = (fused[0], fused[1]) if fused else (n.outputs[0], None)
        aq, bq = self.get_q(a, src=n.source), self.get_q(b, src=n.source)
        if aq.order != bq.order and not (_nhwc_ok(aq) and _nhwc_ok(bq)):
            return False
        (sa, za), (sb, zb) = self.qp[aq.id], self.qp[bq.id]
        s_out, z_out = self.qparams_of(out_f)
        twice = 2.0 * max(sa, sb)
        ma, sha = quantize_multiplier(sa / twice)
        mb, shb = quantize_multiplier(sb / twice)
        mo, sho = quantize_multiplier(twice / (s_out * (1 << ADD_LEFT_SHIFT)))
        amin, amax = self.act_range(bounds, (s_out, z_out))
        out = self.new_q(out_f, (s_out, z_out), dim_order=aq.dim_order if len(aq.shape) != 4
                         else CL)
        self.emit("cortex_m::quantized_add.out",
                  [aq, za, ma, sha, bq, zb, mb, shb, z_out, mo, sho, amin, amax], out, n.source)
        self.q[out_f.id] = out
        if fused:
            skip.add(id(fused[2]))
        self.int8_ops.append(n.op)
        return True

    def h_mul(self, n, skip):
        a, b = n.args
        if a.shape != b.shape or a.shape != n.outputs[0].shape or (a.is_const and b.is_const):
            return False
        if a.dtype != np.float32 or b.dtype != np.float32:
            return False
        aq, bq = self.get_q(a, src=n.source), self.get_q(b, src=n.source)
        (sa, za), (sb, zb) = self.qp[aq.id], self.qp[bq.id]
        out_f = n.outputs[0]
        s_out, z_out = self.qparams_of(out_f)
        mo, sho = quantize_multiplier(sa * sb / s_out)
        out = self.new_q(out_f, (s_out, z_out), dim_order=None if len(aq.shape) == 4
                         else aq.dim_order)
        self.emit("cortex_m::quantized_mul.out", [aq, za, bq, zb, z_out, mo, sho], out, n.source)
        self.q[out_f.id] = out
        self.int8_ops.append(n.op)
        return True

    # Followers: int8 only when their input already is.
    def h_activation(self, n, skip):
        x = n.args[0]
        if not self.is_q(x):
            return False
        xq = self.q[x.id]
        in_q = self.qp[xq.id]
        b = self.clamp_bounds(n)
        if b is not None:
            out_q = in_q
            lo, hi = b

            def fn(v, lo=lo, hi=hi):
                return min(max(v, lo), hi)
        else:
            fn = _LUT_FNS[n.op]
            out_q = self.qparams_of(n.outputs[0])
        lut = self.g.constant(activation_lut(fn, in_q, out_q), "lut")
        out = self.new_q(n.outputs[0], out_q, dim_order=xq.order)
        self.emit("cortex_m::quantized_activation.out", [xq, lut], out, n.source)
        self.q[n.outputs[0].id] = out
        self.int8_ops.append(n.op)
        return True

    def h_softmax(self, n, skip):
        """int8 softmax (opt-in): cortex_m::softmax, output scale 1/256, zero point -128."""
        x, dim, _ = n.args
        if not self.int8_softmax or not self.is_q(x) or dim % len(x.shape) != len(x.shape) - 1:
            return False
        if len(x.shape) == 4:
            return False
        xq = self.q[x.id]
        s_in, z_in = self.qp[xq.id]
        mult, shift, diff_min = softmax_params(s_in)
        out = self.new_q(n.outputs[0], (SOFTMAX_SCALE, QMIN), dim_order=xq.order)
        self.emit("cortex_m::softmax.out", [xq, len(x.shape) - 1, z_in, QMIN, mult, shift,
                                            diff_min], out, n.source)
        self.q[n.outputs[0].id] = out
        self.int8_ops.append(n.op)
        return True

    def h_alias(self, n, skip):
        x = n.args[0]
        if not self.is_q(x):
            return False
        xq = self.q[x.id]
        if len(xq.shape) == 4 and xq.order != (0, 1, 2, 3) and not _ambiguous(xq.shape):
            xq = self.clone(xq, (0, 1, 2, 3), n.source)      # views index in logical order
        out = self.g.new_tensor(n.outputs[0].shape, np.int8, name="view")
        self.qp[out.id] = self.qp[xq.id]
        self.nodes.append(Node(ALIAS, [xq], [out], n.source, n.module))
        self.q[n.outputs[0].id] = out
        return True

    def h_pad(self, n, skip):
        x, pad, value = n.args
        if len(x.shape) != 4 or len(pad) > 8 or x.dtype != np.float32:
            return False
        # A pad is int8 when its input is, or when it only feeds a convolution (the usual
        # Keras-'same' pad at the model input): quantize before the pad, not after.
        feeds_conv = all(u.op == "aten::convolution.out"
                         for u in self.users.get(n.outputs[0].id, [None]) if u is not None)
        if not self.is_q(x) and not (feeds_conv and not x.is_const and
                                     n.outputs[0].id not in self.outputs):
            return False
        pre, post = [0] * 4, [0] * 4
        for i in range(len(pad) // 2):
            d = 3 - i
            pre[d], post[d] = int(pad[2 * i]), int(pad[2 * i + 1])
        if min(pre + post) < 0:
            return False
        xq = self.get_q(x, src=n.source)
        s, z = self.qp[xq.id]
        phys = [0, 2, 3, 1]
        out = self.new_q(n.outputs[0], (s, z))
        self.emit("cortex_m::pad.out", [xq, [pre[d] for d in phys], [post[d] for d in phys],
                                        quantize_value(float(value), s, z)], out, n.source)
        self.q[n.outputs[0].id] = out
        self.int8_ops.append(n.op)
        return True

    def _avg_pool(self, n, xq, kernel, stride, padding, ceil_mode):
        s, z = self.qp[xq.id]
        mult, shift = quantize_multiplier(s)
        scratch = self.g.new_tensor((avgpool_scratch(self.target, xq.shape[1]),), np.uint8,
                                    name="scratch")
        scratch.scratch = True
        out = self.new_q(n.outputs[0], (s, z))
        self.emit("cortex_m::quantized_avg_pool2d.out",
                  [xq, list(kernel), list(stride), list(padding), bool(ceil_mode), z, mult, shift,
                   scratch], out, n.source)
        self.q[n.outputs[0].id] = out
        self.int8_ops.append(n.op)
        return True

    def h_avg_pool(self, n, skip):
        x, kernel, stride, padding, ceil_mode, count_include_pad, divisor = n.args
        if not self.is_q(x) or len(x.shape) != 4 or divisor is not None or ceil_mode:
            return False
        stride = list(stride) or list(kernel)
        xq = self.get_q(x, src=n.source)
        if count_include_pad and any(padding):
            # Padded taps count: pad with the real 0 first, then pool without padding.
            s, z = self.qp[xq.id]
            shape = (x.shape[0], x.shape[1], x.shape[2] + 2 * padding[0],
                     x.shape[3] + 2 * padding[1])
            padded = self.g.new_tensor(shape, np.int8, name="q", dim_order=CL)
            self.qp[padded.id] = (s, z)
            pre = [0, padding[0], padding[1], 0]
            xq = self.emit("cortex_m::pad.out", [xq, pre, pre, z], padded, n.source)
            padding = [0, 0]
        return self._avg_pool(n, xq, kernel, stride, padding, False)

    def h_mean(self, n, skip):
        """mean over the spatial dims of a 4-D tensor (dims {2, 3}, or the one of them that is
        not 1) -> a global quantized_avg_pool2d, plus a view when keepdim is False."""
        x, dims, keepdim, dtype = n.args
        if not self.is_q(x) or len(x.shape) != 4 or dtype is not None:
            return False
        dims = sorted({d % 4 for d in (dims or [])})
        if not dims or any(d not in (2, 3) for d in dims):
            return False
        if any(x.shape[d] != 1 for d in (2, 3) if d not in dims):
            return False
        xq = self.get_q(x, src=n.source)
        hw = [x.shape[2], x.shape[3]]
        out_f = n.outputs[0]
        if keepdim and len(dims) == 2:
            return self._avg_pool(n, xq, hw, hw, [0, 0], False)
        s, z = self.qp[xq.id]
        mult, shift = quantize_multiplier(s)
        scratch = self.g.new_tensor((avgpool_scratch(self.target, xq.shape[1]),), np.uint8,
                                    name="scratch")
        scratch.scratch = True
        pooled = self.g.new_tensor((x.shape[0], x.shape[1], 1, 1), np.int8, name="q",
                                   dim_order=CL)
        self.qp[pooled.id] = (s, z)
        self.emit("cortex_m::quantized_avg_pool2d.out",
                  [xq, hw, hw, [0, 0], False, z, mult, shift, scratch], pooled, n.source)
        out = self.g.new_tensor(out_f.shape, np.int8, name="view")   # H = W = 1: same bytes
        self.qp[out.id] = (s, z)
        self.nodes.append(Node(ALIAS, [pooled], [out], n.source, n.module))
        self.q[out_f.id] = out
        self.int8_ops.append(n.op)
        return True

    def h_max_pool(self, n, skip):
        x, kernel, stride, padding, dilation, ceil_mode = n.args
        if not self.is_q(x) or len(x.shape) != 4 or ceil_mode or any(d != 1 for d in dilation):
            return False
        if self.users.get(n.outputs[1].id) or n.outputs[1].id in self.outputs:
            return False
        xq = self.get_q(x, src=n.source)
        s, z = self.qp[xq.id]
        out = self.new_q(n.outputs[0], (s, z))
        self.emit("cortex_m::quantized_max_pool2d.out",
                  [xq, list(kernel), list(stride) or list(kernel), list(padding), list(dilation),
                   False, z, z, QMIN, QMAX], out, n.source)
        self.q[n.outputs[0].id] = out
        self.int8_ops.append(n.op)
        return True

    def h_upsample_bilinear(self, n, skip):
        """Bilinear upsampling on int8 (etmcu::quantized_upsample_bilinear2d): its weights sum
        to one, so the output keeps the input's scale and zero point. The kernel takes the
        source coordinate as the fraction in/out of the sizes: with scale factors that is
        PyTorch's 1/scale only when in * scale == out exactly (integer factors)."""
        x, size, align_corners, scales = n.args
        out_f = n.outputs[0]
        if not self.is_q(x) or len(x.shape) != 4:
            return False
        if self.upstream_ops:
            self.why[id(n)] = (
                "int8 bilinear upsampling is etmcu's own op (etmcu::quantized_upsample_bilinear2d,"
                " no upstream library has one) and upstream_ops (--upstream-ops) asks for a "
                "program upstream ExecuTorch loads",
                "drop --upstream-ops to run it in int8 on etmcu")
            return False
        if scales is not None and any(float(x.shape[2 + k]) * float(scales[k])
                                      != float(out_f.shape[2 + k]) for k in range(2)):
            self.why[id(n)] = (
                f"bilinear upsampling by scale factors {list(scales)} that do not give whole "
                "output sizes (int8 takes the source step as in/out of the sizes)",
                "give the output size (size=...) or an integer scale factor")
            return False
        xq = self.get_q(x, src=n.source)
        out = self.new_q(out_f, self.qp[xq.id])
        self.emit("etmcu::quantized_upsample_bilinear2d.out", [xq, bool(align_corners)], out,
                  n.source)
        self.q[out_f.id] = out
        self.int8_ops.append(n.op)
        return True

    HANDLERS = {
        "aten::convolution.out": h_conv,
        "aten::addmm.out": h_linear,
        "aten::mm.out": h_linear,
        "aten::add.out": h_add,
        "aten::mul.out": h_mul,
        "aten::relu.out": h_activation,
        "aten::hardtanh.out": h_activation,
        "aten::clamp.out": h_activation,
        "aten::sigmoid.out": h_activation,
        "aten::tanh.out": h_activation,
        "aten::hardswish.out": h_activation,
        "aten::hardsigmoid.out": h_activation,
        "aten::silu.out": h_activation,
        ALIAS: h_alias,
        "aten::_softmax.out": h_softmax,
        "aten::constant_pad_nd.out": h_pad,
        "aten::avg_pool2d.out": h_avg_pool,
        "aten::mean.out": h_mean,
        "aten::max_pool2d_with_indices.out": h_max_pool,
        "aten::upsample_bilinear2d.vec_out": h_upsample_bilinear,
    }


class Fp32Op(tuple):
    """One op left in fp32: unpacks as (op, source); also .module (the layer's path, "net.0"),
    .why (what keeps it in fp32) and .fix (what to change for int8)."""

    def __new__(cls, op, source, module="", why="", fix=""):
        self = super().__new__(cls, (op, source))
        self.op, self.source, self.module, self.why, self.fix = op, source, module, why, fix
        return self

    def describe(self):
        where = self.module or "(top level)"
        text = f"{self.op} in {where}"
        if self.source:
            text += f" ({self.source})"
        if self.why:
            text += f": {self.why}"
        if self.fix:
            text += f"; fix: {self.fix}"
        return text


# Ops with no int8 kernel: why, and what a user can do instead.
_NO_INT8 = {
    "aten::_log_softmax.out": ("no int8 log-softmax kernel",
                               "end with softmax (int8), or take log-softmax of the fp32 output "
                               "on the host"),
    "aten::_native_batch_norm_legit_no_training.out": (
        "batch norm that does not directly follow a convolution or linear cannot be folded",
        "put the BatchNorm right after a Conv/Linear whose output nothing else reads"),
    "aten::native_layer_norm.out": ("no int8 layer-norm kernel", "none yet (runs in fp32)"),
    "aten::cat.out": ("no int8 concatenation kernel", "none yet (runs in fp32)"),
    "aten::permute_copy.out": ("no int8 permute kernel", "avoid permutes in the int8 part"),
    "aten::upsample_nearest2d.vec_out": ("no int8 upsampling kernel", "none yet (runs in fp32)"),
    "aten::_log_softmax": ("no int8 log-softmax kernel", ""),
}


def fp32_reason(n, rw):
    """(why, fix) for node n staying in fp32."""
    if id(n) in rw.why:
        return rw.why[id(n)]
    if n.op in _NO_INT8:
        return _NO_INT8[n.op]
    ins = [t for t in n.tensor_inputs() if not t.is_const]
    if n.op == "aten::convolution.out":
        x, w = n.args[0], n.args[1]
        if n.args[6]:
            return ("transposed convolution has no int8 kernel", "none yet (runs in fp32)")
        if not w.is_const:
            return ("the weight is computed, not a constant", "use a constant weight")
        return (f"a {len(x.shape) - 2}-D convolution (int8 has 2-D kernels, Conv1d is mapped "
                "onto them)", "use Conv1d or Conv2d")
    if n.op in ("aten::addmm.out", "aten::mm.out"):
        return ("a matrix product on computed weights or a non-2-D input",
                "use nn.Linear on [batch, features]")
    if n.op == "aten::mean.out":
        x, dims, keepdim, _ = n.args
        return (f"mean over dims {list(dims or [])} of a {len(x.shape)}-D tensor (int8 averages "
                "over H,W of [N,C,H,W] or over the last dim of [N,C,L])",
                "average over the spatial/time dims: x.mean((2, 3)), x.mean(-1), or "
                "nn.AdaptiveAvgPool1d/2d(1)")
    if ins and not all(rw.is_q(t) for t in ins):
        return ("its input is fp32 (an earlier op stayed fp32), and this op is int8 only after "
                "an int8 op", "make the op before it int8")
    if n.op in ("aten::add.out", "aten::mul.out", "aten::sub.out", "aten::div.out"):
        return ("int8 add/mul need two tensors of the same shape (no scalars, no broadcasting)",
                "use same-shape tensor operands")
    return ("no int8 kernel for this op", "none yet (runs in fp32)")


def quantize_graph(graph, samples, scratch_target="etmcu", linear_per_channel=False,
                   int8_softmax=False, int8_io=False, upstream_ops=False, dyadic=True):
    """Calibrate on `samples` (list of tuples of numpy inputs) and rewrite `graph` to int8."""
    if not samples:
        raise ExportError("int8 quantization needs at least one calibration sample",
                          op="quantize")
    for t in graph.inputs:
        if np.dtype(t.dtype) != np.float32:
            raise ExportError("int8 quantization supports float32 inputs only", op="quantize")
    ranges = observe(graph, samples)
    rw = Int8Rewriter(graph, ranges, scratch_target, linear_per_channel, int8_softmax, int8_io,
                      upstream_ops, dyadic)
    rw.run()
    return graph, rw
