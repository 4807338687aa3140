"""nn.LSTM and nn.GRU (fp32), unrolled over the example input's time steps into ops every runtime
has: select_copy (one time step), addmm / mm (the gates), slice_copy (one gate), sigmoid, tanh,
mul, add, sub, and cat (the output sequence). The program has static shapes, so the sequence
length is the example input's; each step costs ~15 instructions per layer.

Supported: any num_layers, batch_first or not, bias or not, a given initial state or zeros, 2-D
(unbatched) or 3-D input. Not supported (an error naming it): bidirectional, proj_size. Dropout
between layers is an identity in inference.

PyTorch's gate order: LSTM rows of weight_ih = [input, forget, cell, output]; GRU = [reset,
update, new], with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)) and h' = (1 - z) * n + z * h,
computed here as n + z * (h - n).
"""

import numpy as np


def _check(fe, mod, kind):
    if mod.bidirectional:
        raise fe.error(f"bidirectional {kind} is not supported (run two {kind}s and concatenate)")
    if getattr(mod, "proj_size", 0):
        raise fe.error(f"{kind} with proj_size is not supported")


class _Emit:
    """Small helpers over the front end's emit for [B, N] float tensors."""

    def __init__(self, fe):
        self.fe = fe

    def op(self, name, args, shape):
        return self.fe.emit(name, args, [tuple(shape)], [np.float32])[0]

    def add(self, a, b):
        return self.op("aten::add.out", [a, b, 1], a.shape)

    def sub(self, a, b):
        return self.op("aten::sub.out", [a, b, 1], a.shape)

    def mul(self, a, b):
        return self.op("aten::mul.out", [a, b], a.shape)

    def sigmoid(self, a):
        return self.op("aten::sigmoid.out", [a], a.shape)

    def tanh(self, a):
        return self.op("aten::tanh.out", [a], a.shape)

    def gate(self, g, k, hidden):
        return self.op("aten::slice_copy.Tensor_out", [g, 1, k * hidden, (k + 1) * hidden, 1],
                       (g.shape[0], hidden))

    def linear(self, x, wt, bias):
        """x @ wt (+ bias): wt is [in, out] (constant)."""
        shape = (x.shape[0], wt.shape[1])
        if bias is None:
            return self.op("aten::mm.out", [x, wt], shape)
        return self.op("aten::addmm.out", [bias, x, wt, 1, 1], shape)


def _weights(fe, mod, layer):
    def const(name, transpose=False):
        t = getattr(mod, f"{name}_l{layer}", None)
        if t is None:
            return None
        data = t.detach().cpu().numpy()
        return fe.g.constant(np.ascontiguousarray(data.T if transpose else data),
                             f"{fe.module or 'rnn'}.{name}_l{layer}" + (".T" if transpose else ""))
    return (const("weight_ih", True), const("weight_hh", True), const("bias_ih"),
            const("bias_hh"))


def _run(fe, mod, args, kwargs, res, kind):
    _check(fe, mod, kind)
    x = fe.tensor(args[0])
    hx = args[1] if len(args) > 1 else kwargs.get("hx")
    e = _Emit(fe)
    unbatched = len(x.shape) == 2
    if unbatched:
        x = fe.alias(x, (x.shape[0], 1, x.shape[1]) if not mod.batch_first else
                     (1, x.shape[0], x.shape[1]))
    if len(x.shape) != 3:
        raise fe.error(f"{kind} input must be 2-D or 3-D, got {list(x.shape)}")
    tdim = 1 if mod.batch_first else 0
    steps, batch = x.shape[tdim], x.shape[1 - tdim]
    hidden, layers = mod.hidden_size, mod.num_layers

    def initial(i, which):
        """Layer i's initial h (which=0) or c (1) as [B, H]: given, or zeros."""
        state = hx
        if kind == "LSTM" and state is not None:
            state = state[which]
        if state is None:
            return fe.g.constant(np.zeros((batch, hidden), np.float32), "rnn.zero_state")
        state = fe.tensor(state)
        if unbatched:
            state = fe.alias(state, (state.shape[0], 1, hidden))
        return e.op("aten::select_copy.int_out", [state, 0, i], (batch, hidden))

    seq = [e.op("aten::select_copy.int_out", [x, tdim, t], (batch, x.shape[2]))
           for t in range(steps)]
    finals_h, finals_c = [], []
    for layer in range(layers):
        w_ih, w_hh, b_ih, b_hh = _weights(fe, mod, layer)
        h = initial(layer, 0)
        c = initial(layer, 1) if kind == "LSTM" else None
        bias = None          # LSTM: both biases in one addmm
        if kind == "LSTM" and b_ih is not None:
            bias = fe.g.constant((b_ih.data + b_hh.data).astype(np.float32),
                                 f"{fe.module or 'rnn'}.bias_l{layer}")
        outs = []
        for xt in seq:
            if kind == "LSTM":
                g = e.add(e.linear(xt, w_ih, bias), e.linear(h, w_hh, None))
                i, f, gg, o = (e.gate(g, k, hidden) for k in range(4))
                c = e.add(e.mul(e.sigmoid(f), c), e.mul(e.sigmoid(i), e.tanh(gg)))
                h = e.mul(e.sigmoid(o), e.tanh(c))
            else:
                gi = e.linear(xt, w_ih, b_ih)
                gh = e.linear(h, w_hh, b_hh)
                r = e.sigmoid(e.add(e.gate(gi, 0, hidden), e.gate(gh, 0, hidden)))
                z = e.sigmoid(e.add(e.gate(gi, 1, hidden), e.gate(gh, 1, hidden)))
                n = e.tanh(e.add(e.gate(gi, 2, hidden), e.mul(r, e.gate(gh, 2, hidden))))
                h = e.add(n, e.mul(z, e.sub(h, n)))
            outs.append(h)
        seq = outs
        finals_h.append(h)
        finals_c.append(c)

    def stack(ts, dim):
        """[B, H] tensors stacked along dim (a view adds the unit dim, then one cat)."""
        views = []
        for t in ts:
            shape = (1, batch, hidden) if dim == 0 else (batch, 1, hidden)
            views.append(fe.alias(t, shape))
        shape = (len(ts), batch, hidden) if dim == 0 else (batch, len(ts), hidden)
        if len(views) == 1:
            return e.op("aten::clone.out", [views[0], None], shape)
        return e.op("aten::cat.out", [views, dim], shape)

    out = stack(seq, tdim)
    h_n = stack(finals_h, 0)
    if unbatched:
        out = fe.alias(out, (steps, hidden))
        h_n = fe.alias(h_n, (layers, hidden))
    if kind == "GRU":
        return (out, h_n)
    c_n = stack(finals_c, 0)
    if unbatched:
        c_n = fe.alias(c_n, (layers, hidden))
    return (out, (h_n, c_n))


def lstm_module(fe, mod, args, kwargs, res):
    return _run(fe, mod, args, kwargs, res, "LSTM")


def gru_module(fe, mod, args, kwargs, res):
    return _run(fe, mod, args, kwargs, res, "GRU")

