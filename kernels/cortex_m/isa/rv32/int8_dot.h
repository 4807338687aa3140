// The plain RV32IMC core: the scalar dot products.
#pragma once
#include "kernels/cortex_m/isa/scalar/int8_dot.h"
