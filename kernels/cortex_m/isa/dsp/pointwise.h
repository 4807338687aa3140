// No pointwise micro-kernel of its own yet: the scalar declarations (the row path computes 1x1
// layers).
#pragma once
#include "kernels/cortex_m/isa/scalar/pointwise.h"
