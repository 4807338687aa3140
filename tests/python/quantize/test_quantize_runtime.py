"""int8 programs on the host runtime (build/host/tools/etmcu-cli): every zoo model, 200 inputs.
These fail (never skip) while the CLI or its cortex_m kernels are missing.

* the runtime's top-1 agrees with fp32 eager on >= 95 % (autoencoder: anomaly score criterion);
* bit-exactness vs the Python int8 reference interpreter (etmcu/reference.py, independent of the
  C++ kernels): every output identical, except where the program ends in fp32 ops (mlp's
  log_softmax: different float code on each side), which must agree to 1e-6 of the output scale
  with the same top-1; the int8 trunk programs (models without their final softmax /
  log_softmax) are identical on every input.
"""

import numpy as np
import pytest

import q_util
from q_util import N_EVAL, ZOO

from etmcu import quant_eval


@pytest.mark.parametrize("name", ZOO)
def test_runtime_int8(name, tmp_path):
    rt = q_util.runtime_outputs(name, tmp_path)
    ref = q_util.reference_outputs(name)
    xs = q_util.inputs(name)
    agree = quant_eval.agreement(name, xs, q_util.eager_outputs(name), rt)
    print(f"{name}: host runtime int8 agrees with fp32 on {agree}/{N_EVAL}")
    assert agree >= 0.95 * N_EVAL
    fp32 = {op for op, _ in q_util.int8(name).fp32_ops}
    if not fp32 or name == "cnn":      # cnn: fp32 ops only mid-network, int8 tail
        same = sum(int(a.tobytes() == b.tobytes()) for a, b in zip(rt, ref))
        assert same == N_EVAL, f"{name}: runtime == reference on {same}/{N_EVAL}"
    else:
        for a, b in zip(rt, ref):
            assert np.argmax(a) == np.argmax(b)
            assert np.abs(a - b).max() <= 1e-6 * max(float(np.abs(b).max()), 1e-30)


@pytest.mark.parametrize("name", [n for n in ZOO if n not in ("add", "autoencoder")])
def test_runtime_int8_trunk_bit_exact(name, tmp_path):
    rt = q_util.runtime_outputs(name, tmp_path, which="trunk")
    ref = q_util.reference_outputs(name, which="trunk")
    same = sum(int(a.tobytes() == b.tobytes()) for a, b in zip(rt, ref))
    assert same == N_EVAL, f"{name}: runtime == reference on {same}/{N_EVAL}"


@pytest.mark.corpus
def test_runtime_runs_upstream_kws(tmp_path):
    """The corpus's upstream int8 program also runs on the host runtime (interchangeability)."""
    import json
    from q_util import CORPUS, KWS_PTE
    ref = json.loads((CORPUS / "upstream/kws_reference/kws_reference.json").read_text())
    case = ref["cases"][0]
    x = np.fromfile(CORPUS / "upstream/kws_test_inputs" / case["input"],
                    dtype=np.float32).reshape(1, 1, 49, 10)
    if not q_util.CLI.exists():
        pytest.fail("host runtime CLI not built")
    out = quant_eval.run_runtime(q_util.CLI, KWS_PTE, [(x,)], tmp_path)[0].reshape(-1)
    assert ["0x%08x" % v for v in out.view(np.uint32)] == case["outputs_f32_hex"]


@pytest.mark.parametrize("name", ["seq1d", "nobias", "gate"])
def test_runtime_op_models_int8(name, tmp_path):
    import sys
    import torch
    import etmcu
    sys.path.insert(0, str(q_util.ROOT / "tests" / "python"))
    from op_models import OP_MODELS
    cls = OP_MODELS[name]
    m = cls().eval()
    g = torch.Generator().manual_seed(0)
    ex = tuple(torch.randn(s, generator=g) for s in cls.INPUT_SHAPES)
    prog = etmcu.export(m, ex, quantize="int8")
    xs = [tuple(torch.randn(s, generator=g).numpy() for s in cls.INPUT_SHAPES) for _ in range(5)]
    if not q_util.CLI.exists():
        pytest.fail("host runtime CLI not built")
    try:
        rt = quant_eval.run_runtime(q_util.CLI, prog.save(tmp_path / "m.pte"), xs, tmp_path)
    except RuntimeError as e:
        pytest.fail(str(e))
    for a, b in zip(rt, quant_eval.run_reference(prog, xs)):
        assert np.abs(a.astype(np.float64) - b).max() <= 1e-5 * max(float(np.abs(b).max()), 1.0)
