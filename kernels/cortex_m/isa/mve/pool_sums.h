// The average pool's micro-kernel: the plain C one (SWAR over 16-bit lanes).
#pragma once
#include "kernels/cortex_m/isa/scalar/pool_sums.h"
