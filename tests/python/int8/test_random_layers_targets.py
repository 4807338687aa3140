"""Randomly shaped int8 models on the CV32E40P, with and without Xpulp: each kernel variant runs on
the simulator itself (the rv32 kernels on the plain core, the xpulp micro-kernels, assembly
included, on the PULP core) and must print the host reference kernels' output bits.

Each model is a chain of convolutions (kernels 1-7, strides 1-2, padding), depthwise layers
(multipliers 1, 2 and 4, windows up to 10x4), pointwise layers to odd and multiple-of-4 channel
counts and a final linear layer, drawn from a fixed seed (so the firmware builds are cached), then
quantized by the exporter (`--quantize int8`: cortex_m::* ops) and run with a random input."""
import json
import pathlib
import random
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
SIM = ROOT / "build" / "host" / "sim" / "etmcu-sim"
FW = ROOT / "tools" / "firmware" / "etmcu_fw.py"
sys.path.insert(0, str(ROOT / "tools" / "firmware"))
import corpus_table  # noqa: E402  (compare())
sys.path.insert(0, str(ROOT / "tests" / "python"))
from export_batch import export_all  # noqa: E402

pytestmark = pytest.mark.skipif(not CLI.exists() or not SIM.exists(), reason="host tools not built")

SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
# The exporter's default requantization is dyadic (one 32-bit multiply where a kernel has that
# form: python/etmcu/quantize.py dyadic_requant); these seeds also run exported with
# `--requant frexp` (upstream's Q31 factors), so both forms of each kernel run on the simulator.
FREXP_SEEDS = [5, 6, 7, 9, 11]
MODELS = [(s, "dyadic") for s in SEEDS] + [(s, "frexp") for s in FREXP_SEEDS]

# Seed 5 is not drawn: one layer of each shape class the optimised kernels pick, so every one of
# them runs on the simulated core whatever the draws give: a 3-channel layer (with Xpulp gathered
# columns, seed 11; the plain core's runs are 9 bytes), 3x3 layers with padding (border rows clipped, left and
# right columns gathered; strides 1 and 2), a stride-1 3x3 depthwise layer taller than wide
# (neighbouring outputs in pairs; with Xpulp from transposed planes) and one with a ReLU whose
# rows hold an odd number of pairs (Xpulp's ReLU pair loop, two pairs a pass), 1 -> 4 multiplier depthwise layers (the four-channel row kernel: a
# 10x4 one with a ReLU, whose negative sums skip their requantization, and a 3x3 one without,
# whose negative sums must not), pointwise layers over long runs (four or three pixels per pass),
# average pools over parts of rows (the pool kernel's column pairs with an odd last column, and a
# one-column window).
CLASSES = ((1, 3, 26, 12), [
    "nn.Conv2d(3, 8, (3, 3), stride=1, padding=(0, 0))", "nn.ReLU()",
    "nn.Conv2d(8, 8, (3, 3), stride=1, padding=(1, 1))", "nn.ReLU()",
    "nn.Conv2d(8, 8, (3, 3), stride=1, padding=(1, 1), groups=8)",
    "nn.Conv2d(8, 32, (10, 4), stride=2, padding=(2, 1), groups=8)", "nn.ReLU()",
    "nn.Conv2d(32, 12, 1, stride=1)",
    "nn.Conv2d(12, 12, (3, 3), stride=1, padding=(1, 2), groups=12)", "nn.ReLU()",
    "nn.Conv2d(12, 48, (3, 3), stride=1, padding=(1, 1), groups=12)",
    "nn.Conv2d(48, 8, (3, 3), stride=2, padding=(1, 1))",
    "nn.AvgPool2d((2, 3), stride=1)", "nn.AvgPool2d((3, 1), stride=1)",
    "nn.Flatten()", "nn.Linear(32, 10)"])
# Seed 6 is not drawn either: 3x3 stride-1 depthwise layers with a ReLU (Xpulp's channel loop,
# etmcu_xpulp_dw_k3_channels) whose lines end in each of the four tails after the four-output
# blocks: transposed planes with 17, 15, 15, 14, 12 outputs per line (tails 1, 3, 3, 2, 0; one
# layer without bias) and upright planes with 7 (tail 3), gathering odd and even byte counts.
DW_LINES = ((1, 4, 17, 7), [
    "nn.Conv2d(4, 4, 3, stride=1, padding=1, groups=4)", "nn.ReLU()",
    "nn.Conv2d(4, 4, 3, stride=1, padding=(0, 1), groups=4)", "nn.ReLU()",
    "nn.Conv2d(4, 4, 3, stride=1, padding=(1, 1), groups=4, bias=False)", "nn.ReLU()",
    "nn.Conv2d(4, 4, (2, 1), stride=1)",
    "nn.Conv2d(4, 4, 3, stride=1, padding=1, groups=4)", "nn.ReLU()",
    "nn.Conv2d(4, 4, 3, stride=1, padding=(0, 1), groups=4)", "nn.ReLU()",
    "nn.Conv2d(4, 4, 3, stride=1, padding=(0, 1), groups=4)", "nn.ReLU()",
    "nn.Flatten()", "nn.Linear(4 * 10 * 7, 10)"])
# Seed 7 is not drawn: pointwise layers with a ReLU over runs of pixels that leave each count
# after Xpulp's five-pixel blocks (rows of an even number of words: 99, 63, 42, 28, 20 and 16
# pixels, the last 4, 3, 2, 3, 0 and 1 pixels to the four-, three-, two- and one-pixel paths) and
# one of an odd number of words (12 channels: the four-pixel loop). The last layer is one of them,
# so each of its outputs is compared, not only what reaches a final linear layer.
PW_BLOCKS = ((1, 8, 11, 9), [
    "nn.Conv2d(8, 16, 1, stride=1)", "nn.ReLU()",
    "nn.Conv2d(16, 8, (3, 3), stride=1)", "nn.ReLU()",
    "nn.Conv2d(8, 24, 1, stride=1)", "nn.ReLU()",
    "nn.Conv2d(24, 8, (3, 1), stride=1)",
    "nn.Conv2d(8, 8, (1, 2), stride=1)", "nn.ReLU()",
    "nn.Conv2d(8, 32, 1, stride=1)", "nn.ReLU()",
    "nn.Conv2d(32, 8, (1, 3), stride=1)", "nn.ReLU()",
    "nn.Conv2d(8, 12, 1, stride=1)", "nn.ReLU()",
    "nn.Conv2d(12, 8, 1, stride=1)", "nn.ReLU()",
    "nn.Conv2d(8, 8, (3, 1), stride=1)", "nn.ReLU()",
    "nn.Conv2d(8, 16, 1, stride=1)", "nn.ReLU()",
    "nn.Conv2d(16, 8, (2, 1), stride=1)", "nn.ReLU()",
    "nn.Conv2d(8, 16, 1, stride=1)", "nn.ReLU()"])
# Seed 8 is not drawn: convolutions whose window rows are not whole words, for the plain core's
# kernel, which takes such runs unwidened (isa/rv32/pointwise_4ch.S enters its 16-byte step at
# D = (-run) mod 16, its pairs' 4-byte step at (-run) mod 4): runs of every length mod 16 that is
# not a multiple of 4 (each branch's comment: its interior run and D, the clipped border columns'
# runs), rows of interior pixels that leave one or two pixels for the pairs (1-channel layers
# would be depthwise ones: their runs come from 1x1 layers of 7 and 17 channels). Each convolution's
# output is one of the model's outputs (after a chain of layers a missed multiply-accumulate
# rarely reaches the output: checked); a 1x1 stem gives it its input channels. With Xpulp the
# same layers take widened rows and gathered columns.
BYTE_RUNS = ((1, 3, 13, 11), [
    "nn.Sequential(nn.Conv2d(3, 5, 3, stride=1, padding=1), nn.ReLU())",   # 9 (D 7); columns 6
    "nn.Sequential(nn.Conv2d(3, 5, 1), nn.Conv2d(5, 7, 3, stride=1, padding=(0, 1)))",  # 15 (D 1); 10
    "nn.Sequential(nn.Conv2d(3, 7, 1), nn.Conv2d(7, 6, (2, 2), stride=1), nn.ReLU())",  # 14 (D 2)
    "nn.Sequential(nn.Conv2d(3, 2, 1), nn.Conv2d(2, 6, (3, 5), stride=1, padding=(1, 2)))",  # 10 (D 6)
    "nn.Sequential(nn.Conv2d(3, 6, 1), nn.Conv2d(6, 4, 3, stride=1, padding=1), nn.ReLU())",  # 18 (D 14)
    "nn.Sequential(nn.Conv2d(3, 17, 1), nn.Conv2d(17, 4, 1, stride=(2, 1)))",  # 17 (D 15)
    "nn.Sequential(nn.Conv2d(3, 7, 1), nn.Conv2d(7, 5, 1, stride=2), nn.ReLU())",  # 7 (D 9)
    "nn.Sequential(nn.Conv2d(3, 13, 1), nn.Conv2d(13, 4, 1, stride=2))",   # 13 (D 3)
    "nn.Sequential(nn.Conv2d(3, 11, 1), nn.Conv2d(11, 5, 1, stride=(1, 2)), nn.ReLU())",  # 11 (D 5)
    "nn.Sequential(nn.Conv2d(3, 5, 1, stride=(2, 1)))",                   # 3 (D 13)
    "nn.Sequential(nn.Conv2d(3, 5, 1), nn.Conv2d(5, 6, 1, stride=(2, 1)))"])  # 5 (D 11)
# Seed 9 is not drawn: 3x3 stride-2 depthwise layers with a ReLU, for Xpulp's stride-2 lines
# (etmcu_xpulp_dw_k3s2_lines: pairs of outputs from aligned plane words, in twos). Each branch's
# stem sets its output's size (rows x columns): lines of 25, 24, 8, 7, 3, 2 and 1 outputs (pairs
# even and odd, with and without an odd last output, none), a layer of three strips of rows (the
# first), one without bias, one without padding, two after MobileNetV1's asymmetric pad (the
# second on the 3-channel input: rows moved by 3 bytes each, the pad's shifted-row copy) and one
# taller than wide (transposed planes: lines of 11). Each branch is an output. The last three:
# 3x4 windows with channel multiplier 4 (etmcu_xpulp_dw_row4's five-window passes); then two
# 7 x 7 -> 3 x 3 layers.
DW_S2 = ((1, 3, 21, 49), [
    "nn.Sequential(nn.Conv2d(3, 4, 1), nn.Conv2d(4, 4, 3, stride=2, padding=1, groups=4), nn.ReLU())",  # 11 x 25
    "nn.Sequential(nn.Conv2d(3, 3, (1, 3)), nn.Conv2d(3, 3, 3, stride=2, padding=1, groups=3), nn.ReLU())",  # 11 x 24
    "nn.Sequential(nn.Conv2d(3, 5, (7, 35)), nn.Conv2d(5, 5, 3, stride=2, padding=1, groups=5), nn.ReLU())",  # 8 x 8
    "nn.Sequential(nn.Conv2d(3, 2, (9, 37)), "
    "nn.Conv2d(2, 2, 3, stride=2, padding=1, groups=2, bias=False), nn.ReLU())",  # 7 x 7
    "nn.Sequential(nn.Conv2d(3, 4, (17, 45)), nn.Conv2d(4, 4, 3, stride=2, padding=1, groups=4), nn.ReLU())",  # 3 x 3
    "nn.Sequential(nn.Conv2d(3, 3, (18, 47)), nn.Conv2d(3, 3, 3, stride=2, padding=1, groups=3), nn.ReLU())",  # 2 x 2
    "nn.Sequential(nn.Conv2d(3, 2, (20, 48)), nn.Conv2d(2, 2, 3, stride=2, padding=1, groups=2), nn.ReLU())",  # 1 x 1
    "nn.Sequential(nn.Conv2d(3, 4, (1, 39)), nn.Conv2d(4, 4, 3, stride=2, groups=4), nn.ReLU())",  # 10 x 5
    "nn.Sequential(nn.Conv2d(3, 4, 1), nn.ZeroPad2d((0, 1, 0, 1)), "
    "nn.Conv2d(4, 4, 3, stride=2, groups=4), nn.ReLU())",  # 10 x 24
    "nn.Sequential(nn.Conv2d(3, 3, (1, 37)), nn.Conv2d(3, 3, 3, stride=2, padding=1, groups=3), nn.ReLU())",  # 11 x 7
    "nn.Sequential(nn.ZeroPad2d((0, 1, 0, 1)), nn.Conv2d(3, 3, 3, stride=2, groups=3), nn.ReLU())",  # 10 x 24
    # channel multiplier 4 at stride 2 (Xpulp's four-channel row kernel: five windows a pass with
    # a ReLU, then pairs and a single; without one, pairs only): three strips of rows of 24, rows
    # of 11 (two passes and a single), the same without a ReLU
    "nn.Sequential(nn.Conv2d(3, 2, 1), nn.Conv2d(2, 8, (3, 4), stride=2, padding=1, groups=2), nn.ReLU())",  # 11 x 24
    "nn.Sequential(nn.Conv2d(3, 2, (1, 28)), "
    "nn.Conv2d(2, 8, (3, 4), stride=2, padding=1, groups=2), nn.ReLU())",  # 11 x 11
    "nn.Sequential(nn.Conv2d(3, 2, (1, 28)), nn.Conv2d(2, 8, (3, 4), stride=2, padding=1, groups=2))",  # 11 x 11
    # 7 x 7 -> 3 x 3 without padding (the plain core's 3 x 3 planes, util/depthwise_small.h), and
    # after MobileNetV1's asymmetric pad
    "nn.Sequential(nn.Conv2d(3, 6, (15, 43)), nn.Conv2d(6, 6, 3, stride=2, groups=6), nn.ReLU())",  # 3 x 3
    "nn.Sequential(nn.Conv2d(3, 5, (16, 44)), nn.ZeroPad2d((0, 1, 0, 1)), "
    "nn.Conv2d(5, 5, 3, stride=2, groups=5), nn.ReLU())"])  # 3 x 3
# Seed 10 is not drawn: 3x3 stride-1 depthwise layers with a ReLU whose lines are six outputs
# long, which the Xpulp channel loop's dyadic lines run in a loop of their own (SIX_LINES in
# depthwise_rows.S: MobileNetV1's 6x6 layers): an upright 6x6 plane (one line's outputs right
# after the last's: the loop without the step of y), a 6x3 output from transposed planes (lines
# of six down the columns: the loop with it), an 8-channel one without bias; and a 3x3 output
# (MobileNetV1's 3x3-output layer: lines of a pair and a third; the plain core's 3 x 3 planes),
# that one again without bias and with a clamp. Each branch is an output.
DW_SIX = ((1, 3, 6, 6), [
    "nn.Sequential(nn.Conv2d(3, 4, 1), nn.Conv2d(4, 4, 3, stride=1, padding=1, groups=4), nn.ReLU())",  # 6 x 6
    "nn.Sequential(nn.Conv2d(3, 4, (1, 4)), nn.Conv2d(4, 4, 3, stride=1, padding=1, groups=4), nn.ReLU())",  # 6 x 3
    "nn.Sequential(nn.Conv2d(3, 8, 1), "
    "nn.Conv2d(8, 8, 3, stride=1, padding=1, groups=8, bias=False), nn.ReLU())",  # 6 x 6
    "nn.Sequential(nn.Conv2d(3, 5, (4, 4)), nn.Conv2d(5, 5, 3, stride=1, padding=1, groups=5), nn.ReLU())",  # 3 x 3
    # the same without bias and with a clamp to [0, 0.25] (many sums at the plain core's 3 x 3
    # planes' bound V, util/depthwise_small.h)
    "nn.Sequential(nn.Conv2d(3, 7, (4, 4)), "
    "nn.Conv2d(7, 7, 3, stride=1, padding=1, groups=7, bias=False), nn.Hardtanh(0.0, 0.25))"])  # 3 x 3
# Seed 11 is not drawn: first layers, whose window rows are not whole words (3 input channels),
# which with Xpulp go as gathered columns through the pointwise kernel's four-pixel loop
# (im2col_runs in opt/op_quantized_conv2d.cpp): 16 channels over 38-pixel rows (runs of 8 columns
# and a last of 6: the four-pixel loop, then a pair) with padding on every side (border columns
# gathered whole, rows in the padding filled with the zero point: the inputs after the first
# follow a ReLU, zero point -128), a stride-2 one without a ReLU, and a 5-channel one (not whole
# blocks of four: the widened rows and the row path).
FIRST_LAYERS = ((1, 3, 9, 38), [
    "nn.Conv2d(3, 16, 3, stride=1, padding=1)", "nn.ReLU()",
    "nn.Conv2d(16, 3, 1)", "nn.ReLU()",
    "nn.Conv2d(3, 5, 3, stride=1, padding=1)", "nn.ReLU()",
    "nn.Conv2d(5, 3, 1)", "nn.ReLU()",
    "nn.Conv2d(3, 8, 3, stride=2, padding=1)",
    "nn.Flatten()", "nn.Linear(760, 10)"])
# Seed 12 is not drawn: 3x3 stride-1 depthwise layers with a fused ReLU whose rows are five
# outputs (DS-CNN's and KWS's 25 x 5 layers), which the plain core runs five outputs a pass
# (etmcu_rv32_dw_quint5 in isa/rv32/depthwise_rows.S): 120 rows (the plane in several strips),
# 23 rows unpadded without bias, a clamp to [0, 0.25] (many results at its upper bound: a wrong
# fixup there fails this seed, checked), 3x2 windows (the fifth output's third tap past the
# plane's columns, its weight zero) and one of 3 channels. Each branch is an output.
DW_FIVE = ((1, 3, 120, 7), [
    "nn.Sequential(nn.Conv2d(3, 4, (1, 3)), nn.Conv2d(4, 4, 3, stride=1, padding=1, groups=4), nn.ReLU())",  # 120 x 5
    "nn.Sequential(nn.Conv2d(3, 2, (96, 1)), "
    "nn.Conv2d(2, 2, 3, stride=1, groups=2, bias=False), nn.ReLU())",  # 23 x 5
    "nn.Sequential(nn.Conv2d(3, 4, (96, 3)), nn.Conv2d(4, 4, 3, stride=1, padding=1, groups=4), "
    "nn.Hardtanh(0.0, 0.25))",  # 25 x 5
    "nn.Sequential(nn.Conv2d(3, 4, (96, 2)), nn.Conv2d(4, 4, (3, 2), stride=1, padding=(1, 0), groups=4), "
    "nn.ReLU())",  # 25 x 5
    "nn.Sequential(nn.Conv2d(3, 3, (100, 3)), nn.Conv2d(3, 3, 3, stride=1, padding=1, groups=3), nn.ReLU())"])  # 21 x 5
# Seed 13 is not drawn: 3x3 stride-1 depthwise layers with padding 1 and a fused ReLU whose rows
# are 6 or more outputs, which the plain core runs straight from NHWC (util/depthwise_direct.h,
# isa/rv32/depthwise_direct.S): rows of 8, 9 and 10 (the kernel's three entry steps), 7 and 12,
# heights of 1 (both window rows at the edges left out), 2, 3 and 17, one without bias, one of 7
# channels, and a clamp to [0, 0.25] (many sums at the bound V). Each branch is an output.
DW_DIRECT = ((1, 3, 20, 24), [
    "nn.Sequential(nn.Conv2d(3, 4, (10, 17)), nn.Conv2d(4, 4, 3, stride=1, padding=1, groups=4), nn.ReLU())",  # 11 x 8
    "nn.Sequential(nn.Conv2d(3, 5, (12, 16)), "
    "nn.Conv2d(5, 5, 3, stride=1, padding=1, groups=5, bias=False), nn.ReLU())",  # 9 x 9
    "nn.Sequential(nn.Conv2d(3, 3, (18, 15)), nn.Conv2d(3, 3, 3, stride=1, padding=1, groups=3), nn.ReLU())",  # 3 x 10
    "nn.Sequential(nn.Conv2d(3, 4, (20, 13)), nn.Conv2d(4, 4, 3, stride=1, padding=1, groups=4), nn.ReLU())",  # 1 x 12
    "nn.Sequential(nn.Conv2d(3, 2, (19, 9)), nn.Conv2d(2, 2, 3, stride=1, padding=1, groups=2), nn.ReLU())",  # 2 x 16
    "nn.Sequential(nn.Conv2d(3, 6, (15, 18)), nn.Conv2d(6, 6, 3, stride=1, padding=1, groups=6), nn.ReLU())",  # 6 x 7
    "nn.Sequential(nn.Conv2d(3, 4, (14, 14)), nn.Conv2d(4, 4, 3, stride=1, padding=1, groups=4), "
    "nn.Hardtanh(0.0, 0.25))",  # 7 x 11
    "nn.Sequential(nn.Conv2d(3, 7, (4, 12)), nn.Conv2d(7, 7, 3, stride=1, padding=1, groups=7), nn.ReLU())"])  # 17 x 13
# Seed 14 is not drawn: 3x3 stride-2 depthwise layers without padding and with a fused ReLU,
# which Xpulp runs straight from NHWC two output rows at a time (isa/xpulp/depthwise_s2.S):
# widths 2 and 3 (no loop pair: the even and the odd tail), 4, 6, 7, 9 and 13 (an odd count of
# loop pairs, an even one, longer loops), heights 1 (the odd last row alone), 2, 3, 4, 5 and 6,
# an input a row and a column wider than the windows need, one without bias, one channel, odd
# counts, a clamp to [0, 0.25] (many sums at the bound V). Each branch is an output.
DW_S2_WORDS = ((1, 3, 14, 28), [
    "nn.Sequential(nn.Conv2d(3, 4, (12, 24)), nn.Conv2d(4, 4, 3, stride=2, groups=4), nn.ReLU())",  # 1 x 2
    "nn.Sequential(nn.Conv2d(3, 5, (10, 22)), "
    "nn.Conv2d(5, 5, 3, stride=2, groups=5, bias=False), nn.ReLU())",  # 2 x 3
    "nn.Sequential(nn.Conv2d(3, 3, (7, 19)), nn.Conv2d(3, 3, 3, stride=2, groups=3), nn.ReLU())",  # 3 x 4
    "nn.Sequential(nn.Conv2d(3, 2, (4, 16)), nn.Conv2d(2, 2, 3, stride=2, groups=2), "
    "nn.Hardtanh(0.0, 0.25))",  # 5 x 6
    "nn.Sequential(nn.Conv2d(3, 6, (2, 14)), nn.Conv2d(6, 6, 3, stride=2, groups=6), nn.ReLU())",  # 6 x 7
    "nn.Sequential(nn.Conv2d(3, 1, (2, 2)), nn.Conv2d(1, 1, 3, stride=2, groups=1), nn.ReLU())",  # 6 x 13
    "nn.Sequential(nn.Conv2d(3, 7, (6, 10)), nn.Conv2d(7, 7, 3, stride=2, groups=7), nn.ReLU())"])  # 4 x 9
# Seed 15 is not drawn: the widest output rows that kernel takes (127: the buffer of a row pair's
# first input row in its frame, depthwise_s2.h kDwS2MaxWidth; three rows: a pair and the odd last
# row), and rows one wider, which take the plane path.
DW_S2_WIDE = ((1, 3, 7, 258), [
    "nn.Sequential(nn.Conv2d(3, 2, (1, 3)), nn.Conv2d(2, 2, 3, stride=2, groups=2), nn.ReLU())",  # 3 x 127
    "nn.Sequential(nn.Conv2d(3, 3, 1), nn.Conv2d(3, 3, 3, stride=2, groups=3), nn.ReLU())"])  # 3 x 128
BOARDS = {"cv32e40p": "rv32", "cv32e40p-pulp": "xpulp"}


def out_size(n, k, s, p):
    return (n + 2 * p - k) // s + 1


def draw_model(seed):
    """(input shape, python source of nn.Sequential layers) for one seed."""
    if seed == 5:
        return CLASSES
    if seed == 6:
        return DW_LINES
    if seed == 7:
        return PW_BLOCKS
    if seed == 8:
        return BYTE_RUNS
    if seed == 9:
        return DW_S2
    if seed == 10:
        return DW_SIX
    if seed == 11:
        return FIRST_LAYERS
    if seed == 12:
        return DW_FIVE
    if seed == 13:
        return DW_DIRECT
    if seed == 14:
        return DW_S2_WORDS
    if seed == 15:
        return DW_S2_WIDE
    rng = random.Random(seed)
    c, h, w = rng.choice([1, 2, 3, 4, 8]), rng.randint(8, 22), rng.randint(6, 22)
    shape = (1, c, h, w)
    layers = []
    for _ in range(rng.randint(5, 8)):
        kind = rng.choice(["conv", "dw", "dw", "pw", "pw"])
        s = rng.choice([1, 1, 2])
        if kind == "pw":
            co = rng.choice([3, 4, 5, 8, 12, 16, 7, 20])
            layers.append(f"nn.Conv2d({c}, {co}, 1, stride={s})")
            c, h, w = co, out_size(h, 1, s, 0), out_size(w, 1, s, 0)
        else:
            kh, kw = rng.choice([(3, 3), (3, 3), (5, 5), (10, 4), (3, 1), (1, 3), (2, 2), (7, 7), (4, 4)])
            if kind == "conv":
                kh = kw = rng.choice([1, 2, 3, 5, 7])
            if kh > h + 2 * (kh // 2) or kw > w + 2 * (kw // 2):
                kh = kw = 1
            ph, pw_ = rng.randint(0, kh // 2), rng.randint(0, kw // 2)
            if out_size(h, kh, s, ph) < 1 or out_size(w, kw, s, pw_) < 1:
                s, ph, pw_ = 1, kh // 2, kw // 2
            if kind == "conv":
                co = rng.choice([3, 4, 5, 8, 12, 16])
                layers.append(f"nn.Conv2d({c}, {co}, ({kh}, {kw}), stride={s}, padding=({ph}, {pw_}))")
            else:
                co = c * rng.choice([1, 1, 2, 4])
                layers.append(f"nn.Conv2d({c}, {co}, ({kh}, {kw}), stride={s}, padding=({ph}, {pw_}), "
                              f"groups={c})")
            c, h, w = co, out_size(h, kh, s, ph), out_size(w, kw, s, pw_)
        if rng.random() < 0.7:
            layers.append("nn.ReLU()")
        if h * w * c > 6000:  # keep the activations small: a 2x2 average pool
            layers.append("nn.AvgPool2d(2)")
            h, w = h // 2, w // 2
    layers += ["nn.Flatten()", f"nn.Linear({c * h * w}, {rng.randint(3, 20)})"]
    return shape, layers


MODEL_TEMPLATE = """import torch
from torch import nn

INPUT_SHAPES = [{shape}]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed({seed})
        self.net = {net}

    def forward(self, x):
        return {forward}
"""
# A chain of layers, or (seed 8) branches whose outputs are each an output of the model.
CHAIN = ("nn.Sequential(\n            {})", "self.net(x)")
BRANCHES = ("nn.ModuleList([\n            {}])", "tuple(b(x) for b in self.net)")


def model_source(shape, seed, layers, branches=False):
    """The Python source of a drawn model: its layers chained, or each a branch and an output."""
    net, forward = BRANCHES if branches else CHAIN
    return MODEL_TEMPLATE.format(shape=shape, seed=seed, forward=forward,
                                 net=net.format(",\n            ".join(layers)))


@pytest.fixture(scope="module")
def random_models(tmp_path_factory):
    out = tmp_path_factory.mktemp("random_int8")
    models, exports = {}, []
    for seed, requant in MODELS:
        shape, layers = draw_model(seed)
        src = out / f"random_{seed}.py"
        src.write_text(model_source(shape, seed, layers, branches=seed in (8, 9, 10, 12, 13, 14, 15)))
        pte = out / f"random_{seed}_{requant}.pte"
        exports.append(["export", f"{src}:Model", "-o", str(pte), "--quantize", "int8", "--calibration", "8",
                        "--requant", requant, "--every-overlap"])
        x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
        inp = out / f"random_{seed}_in.npy"
        np.save(inp, x)
        models[seed, requant] = (pte, inp, layers)
    p = export_all(exports)  # in one process: torch imported once
    failed = re.search(r"export failed: (\S+)", p.stderr)
    assert p.returncode == 0, p.stderr[-6000:] + ("\n" + pathlib.Path(failed.group(1).split(":")[0]).read_text()
                                                  if failed else "")
    return models


def test_the_models_cover_the_kernel_shapes():
    """The drawn set has depthwise multipliers > 1, 10x4 windows, strides 2 and pointwise layers
    from multiple-of-4 channel counts (the Xpulp micro-kernels' shape classes) and others."""
    text = "\n".join("\n".join(draw_model(s)[1]) for s in SEEDS)
    assert "groups=" in text and "stride=2" in text and "(10, 4)" in text
    assert any("nn.Conv2d(8, " in l or "nn.Conv2d(12, " in l or "nn.Conv2d(16, " in l
               for s in SEEDS for l in draw_model(s)[1] if ", 1, stride" in l)


def run_host_and_board(pte, inp, board, extra=()):
    """The program's JSON result on the host CLI and on the simulated board, both runs checked."""
    host = subprocess.run([str(CLI), "run", str(pte), "--input", str(inp), "--json"], capture_output=True,
                          text=True)
    assert host.returncode == 0, host.stderr
    p = subprocess.run(["/usr/bin/python3", str(FW), str(pte), "--target", "cv32e40p", "--board", board,
                        "--input", str(inp), "--json", "--quiet", *extra], capture_output=True, text=True,
                       timeout=900)
    assert p.returncode == 0, p.stderr
    return (json.loads(host.stdout.strip().splitlines()[-1]),
            json.loads(p.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("board", list(BOARDS))
@pytest.mark.parametrize("seed,requant", MODELS)
def test_random_int8_model_on_cv32e40p_matches_host(seed, requant, board, random_models):
    pte, inp, layers = random_models[seed, requant]
    host, result = run_host_and_board(pte, inp, board)
    assert result["int8_kernels"] == BOARDS[board]
    assert corpus_table.compare(host, result) is None, (corpus_table.compare(host, result), layers)


@pytest.mark.parametrize("board", list(BOARDS))
@pytest.mark.parametrize("seed,requant", [(1, "dyadic"), (2, "dyadic"), (6, "dyadic"), (6, "frexp"),
                                          (10, "dyadic"), (13, "dyadic"), (14, "dyadic")])
def test_overdriven_input_matches_host(seed, requant, board, random_models, tmp_path):
    """The same models with their input four times past the calibration range: most layers clamp at
    both ends of their activation range, so the kernels' out-of-range paths (the RISC-V kernels'
    clamp fixups after their return, the dyadic form's clamp of its sums) run on the simulator and
    must give the host's bytes."""
    pte, inp, layers = random_models[seed, requant]
    loud = tmp_path / "loud.npy"
    np.save(loud, np.load(inp) * 4)
    host, result = run_host_and_board(pte, loud, board)
    assert corpus_table.compare(host, result) is None, (corpus_table.compare(host, result), layers)


@pytest.mark.parametrize("board", list(BOARDS))
@pytest.mark.parametrize("seed", [SEEDS[0], 5])
def test_program_kernel_paths_match_host(seed, board, random_models):
    """The firmware a user ships (--kernel-paths program, ./etmcu run's default): built again with
    only the int8 kernel paths the first build's run took, whose outputs the tool checks equal to
    the first's; both equal the host's, with less code than the build with every path. Seed 5
    (CLASSES) also has two multiplier-4 depthwise layers: with Xpulp its 10x4 one takes the dyadic
    four-channel kernel, and its 3x3 one without a ReLU, which that kernel leaves, runs the C row
    in the shipped firmware (the frexp kernel is not linked into a dyadic program)."""
    pte, inp, layers = random_models[seed, "dyadic"]
    host, result = run_host_and_board(pte, inp, board, ["--kernel-paths", "program"])
    assert corpus_table.compare(host, result) is None, (corpus_table.compare(host, result), layers)
    assert result["kernel_paths"] != "all"
    _, full = run_host_and_board(pte, inp, board, ["--kernel-paths", "all"])
    assert full["kernel_paths"] == "all"
    assert result["flash"][".text"] < full["flash"][".text"], (result["flash"], full["flash"])
