// The plain RV32IMC core has no FPU: the integer loops of isa/scalar.
#pragma once
#include "kernels/cortex_m/isa/scalar/float_edges.h"
