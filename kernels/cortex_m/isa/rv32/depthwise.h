// The plain RV32IMC core: the scalar depthwise micro-kernel.
#pragma once
#include "kernels/cortex_m/isa/scalar/depthwise.h"
