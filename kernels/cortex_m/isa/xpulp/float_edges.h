// The CV32E40P with Xpulp has no FPU either: the integer loops of isa/scalar.
#pragma once
#include "kernels/cortex_m/isa/scalar/float_edges.h"
