// The quantized add's long same-shape loop: the plain C one.
#pragma once
#include "kernels/cortex_m/isa/scalar/add_table.h"
