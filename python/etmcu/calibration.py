"""Calibration samples for int8 export: N generated inputs, a directory of .npy/.npz files, or
samples given in Python. Every sample is a tuple of numpy arrays shaped like the example inputs.

Directory format: each `.npy` file holds one input array of the model's (single) input shape,
or a stack of K of them ([K, *shape]); for a model with several inputs each sample is a `.npz`
file whose arrays (in file order, e.g. arr_0, arr_1 from np.savez) are the inputs. Files are
read in sorted name order.
"""

from pathlib import Path

import numpy as np
import torch

from .errors import ExportError

DEFAULT_SAMPLES = 32


def _as_sample(x, example_inputs, where=None):
    if isinstance(x, (torch.Tensor, np.ndarray)):
        x = (x,)
    x = tuple(np.asarray(v.numpy() if isinstance(v, torch.Tensor) else v) for v in x)
    if len(x) != len(example_inputs):
        raise ExportError(f"calibration sample has {len(x)} inputs, the model takes "
                          f"{len(example_inputs)}", op="calibration")
    out = []
    for i, (v, e) in enumerate(zip(x, example_inputs)):
        # Shapes, not just element counts: [1, 49, 40] for a [1, 40, 49] input is another layout.
        # Only dims of size 1 may differ.
        if _squeezed(v.shape) != _squeezed(e.shape):
            what = f"calibration sample{'' if where is None else f' {where}'}"
            if len(x) > 1:
                what += f" (input {i})"
            hint = (": the same number of elements in another layout (transpose it to the model's "
                    "axis order rather than reshape it)" if v.size == e.numel() else "")
            raise ExportError(f"{what} has shape {list(v.shape)}, which does not match the model's "
                              f"input shape {list(e.shape)}{hint}", op="calibration")
        out.append(v.astype(np.float32).reshape(tuple(e.shape)))
    return tuple(out)


def _squeezed(shape):
    return [int(d) for d in shape if d != 1]


def _from_dir(path, example_inputs):
    files = sorted(p for p in Path(path).iterdir() if p.suffix in (".npy", ".npz"))
    if not files:
        raise ExportError(f"no .npy/.npz calibration samples in {path}", op="calibration")
    samples = []
    for f in files:
        if f.suffix == ".npz":
            with np.load(f) as z:
                samples.append(_as_sample(tuple(z[k] for k in z.files), example_inputs, f.name))
            continue
        a = np.load(f)
        if len(example_inputs) != 1:
            raise ExportError(f"{f.name}: a model with {len(example_inputs)} inputs needs .npz "
                              "samples (one array per input)", op="calibration")
        shape = tuple(example_inputs[0].shape)
        if a.ndim == len(shape) + 1 and tuple(a.shape[1:]) == shape:
            samples.extend(_as_sample(v, example_inputs, f.name) for v in a)
        elif (a.ndim == len(shape) and tuple(a.shape[1:]) == shape[1:] and shape[0] == 1
              and a.shape[0] > 1):
            samples.extend(_as_sample(v[None], example_inputs, f.name) for v in a)
        else:
            samples.append(_as_sample(a, example_inputs, f.name))   # one sample, shape checked
    return samples


def generated_samples(n, example_inputs, seed=0):
    """n seeded standard-normal samples (seed 1000 + seed, distinct from the tracing inputs)."""
    gen = torch.Generator().manual_seed(1000 + seed)
    return [tuple(torch.randn(tuple(e.shape), generator=gen).numpy() for e in example_inputs)
            for _ in range(n)]


def calibration_samples(calibration, example_inputs, seed=0):
    if calibration is None:
        calibration = DEFAULT_SAMPLES
    if isinstance(calibration, bool):
        raise ExportError("calibration must be a count, a directory or samples", op="calibration")
    if isinstance(calibration, int):
        if calibration < 1:
            raise ExportError("calibration count must be >= 1", op="calibration")
        return generated_samples(calibration, example_inputs, seed)
    if isinstance(calibration, (str, Path)):
        p = Path(calibration)
        if p.is_dir():
            return _from_dir(p, example_inputs)
        if str(calibration).isdigit():
            return generated_samples(int(calibration), example_inputs, seed)
        raise ExportError(f"calibration directory not found: {calibration}", op="calibration")
    return [_as_sample(x, example_inputs, f"#{i}") for i, x in enumerate(calibration)]
