/* etmcu_xpulp_pointwise_4ch_dy / etmcu_xpulp_pointwise_1px_dy: pointwise_4ch.S assembled again
   for blocks whose four channels are dyadic (cmsis_math.h requant_dyadic; util/pointwise.h
   PointwiseBlock::dyadic): the same loops, each output requantized with one mul instead of a
   mulh. Functions of their own, in sections of their own, so a program links the forms its
   layers use (kernel paths kPathDyadic and kPathFrexp, util/paths.h). */
#define PW_DYADIC 1
#include "pointwise_4ch.S"
