"""Helpers shared by the exporter tests: zoo loading and cached exports (exports cost seconds)."""

import functools
import importlib

import torch

import etmcu

ZOO = ["add", "mlp", "cnn", "ds_cnn", "mobilenet_v1", "resnet8", "autoencoder"]
MLPERF = {  # name: (reference MACs, reference params from the MLCommons tables)
    "ds_cnn": (2_656_768, 22_606),
    "mobilenet_v1": (7_489_664, 210_852),
    "resnet8": (12_501_632, 77_708),
    "autoencoder": (264_192, 265_864),
}


def zoo_module(name):
    return importlib.import_module(f"models.{name}")


def random_inputs(name, seed):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(s, generator=g) for s in zoo_module(name).INPUT_SHAPES)


@functools.lru_cache(maxsize=None)
def exported(name):
    mod = zoo_module(name)
    model = mod.Model().eval()
    return model, etmcu.export(model, random_inputs(name, 0))
