"""int8 vs fp32 on 200 seeded random inputs, through the Python int8 reference interpreter
(the same program bytes the runtime runs; test_quantize_runtime.py shows the runtime gives the
same bits). Criteria in etmcu/quant_eval.py and docs/quantization.md."""

import pytest

import q_util
from q_util import N_EVAL, ZOO

from etmcu import quant_eval


@pytest.mark.parametrize("name", ZOO)
def test_int8_agrees_with_fp32(name):
    xs = q_util.inputs(name)
    ref = q_util.eager_outputs(name)
    outs = q_util.reference_outputs(name)
    agree = quant_eval.agreement(name, xs, ref, outs)
    print(f"{name}: int8 agrees with fp32 on {agree}/{N_EVAL}")
    assert agree >= 0.95 * N_EVAL, f"{name}: {agree}/{N_EVAL}"


def test_autoencoder_reconstruction_close():
    xs = q_util.inputs("autoencoder")
    ok, median_rel = quant_eval.ae_agreement(xs, q_util.eager_outputs("autoencoder"),
                                             q_util.reference_outputs("autoencoder"))
    assert median_rel < 0.1, median_rel
    rank = quant_eval.ae_rank_correlation(xs, q_util.eager_outputs("autoencoder"),
                                          q_util.reference_outputs("autoencoder"))
    print(f"autoencoder: score rank correlation {rank:.4f}, median rel. diff {median_rel:.3f}")
    assert rank >= 0.99


@pytest.mark.parametrize("name", ["mlp", "ds_cnn", "resnet8"])
def test_int8_saves_memory(name):
    p8, p32 = q_util.int8(name), q_util.fp32(name)
    assert p8.constant_bytes < 0.45 * p32.constant_bytes
    assert p8.plan.planned_bytes <= p32.plan.planned_bytes
