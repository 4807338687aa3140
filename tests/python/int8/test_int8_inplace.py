"""The alias contract (python/etmcu/lowering/schemas.py INPLACE_ARGS) holds for every variant:
each int8 kernel declared in-place, run with its out *being* the declared input (the same EValue,
as a plan that merges them binds it), gives exactly the result of a separate out buffer."""

import numpy as np
import pytest

import reference as ref
from int8_harness import T, Ref, nhwc
from etmcu.lowering.schemas import INPLACE_ARGS
from test_int8_ops import _add_params, act_range, i8, rq_params

DECLARED = sorted(k for k in INPLACE_ARGS if k.startswith("cortex_m::"))


def test_every_declared_int8_op_is_covered_here():
    assert DECLARED == ["cortex_m::quantized_activation.out", "cortex_m::quantized_add.out",
                        "cortex_m::quantized_mul.out"]


def _shape(rng):
    return tuple(int(v) for v in rng.integers(1, 7, size=4))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("over", [0, 4])     # out on self (arg 0) or on other (arg 4)
def test_quantized_add_in_place(call, seed, over):
    rng = np.random.default_rng(3100 + seed)
    a, b = i8(rng, _shape(rng)), None
    b = i8(rng, a.shape)
    pa, pb = _add_params(rng), _add_params(rng)
    zo = int(rng.integers(-128, 128))
    mo, so = (int(v[0]) for v in rq_params(rng, 1, -10, 2))
    lo, hi = act_range(rng)
    want = ref.add(a, *pa, b, *pb, zo, mo, so, lo, hi)
    ta, tb = nhwc(a, write=over == 0), nhwc(b, write=over == 4)
    (got,) = call("cortex_m::quantized_add.out",
                  [ta, *pa, tb, *pb, zo, mo, so, lo, hi, Ref(over), Ref(over)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("over", [0, 2])
def test_quantized_mul_in_place(call, seed, over):
    rng = np.random.default_rng(3200 + seed)
    a = i8(rng, _shape(rng))
    b = i8(rng, a.shape)
    za, zb, zo = (int(v) for v in rng.integers(-128, 128, size=3))
    mo, so = (int(v[0]) for v in rq_params(rng, 1, -14, 0))
    want = ref.mul(a, za, b, zb, zo, mo, so)
    (got,) = call("cortex_m::quantized_mul.out",
                  [nhwc(a, write=over == 0), za, nhwc(b, write=over == 2), zb, zo, mo, so,
                   Ref(over), Ref(over)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(3))
def test_quantized_activation_in_place(call, seed):
    rng = np.random.default_rng(3300 + seed)
    x = i8(rng, _shape(rng))
    lut = i8(rng, (256,))
    (got,) = call("cortex_m::quantized_activation.out",
                  [T(x, write=True), T(lut), Ref(0), Ref(0)])
    np.testing.assert_array_equal(got, ref.activation(x, lut))
