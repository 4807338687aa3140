// Depthwise micro-kernel with the Arm DSP extension: the scalar one (a 32-bit MLA per tap is as
// fast as SMLAD on unpacked taps here; measured in docs/int8.md).
#pragma once
#include "kernels/cortex_m/isa/scalar/depthwise.h"
