/* The offsets of util/pointwise.h's PointwiseBlock (its static_assert checks them) that
   pointwise_4ch.S and pointwise_rows.S read; the requantization fields whose meaning depends on
   the form (A_MULT, A_KOFF4, A_RIGHT4) pointwise_4ch.S defines per form. For the assembly only
   (a header, so that ./etmcu bundle copies it with the ISA's headers). */
#pragma once
#define A_X 0
#define A_XSTEP 4
#define A_PIXELS 8
#define A_WORDS 12
#define A_W 16
#define A_Y 20
#define A_YSTEP 24
#define A_AMIN 28
#define A_AMAX 32
#define A_FULL 36
#define A_KOFF 68
#define A_RIGHT 84
#define A_ROUND_HIGH 100
#define A_OFFSET_HIGH4 136
#define A_ROWS 116
#define A_ROWSKIP 120
#define A_WSTRIDE 124
#define A_FLOOR 128
#define A_WROWSKIP 132
#define A_GROUPS 184
#define A_GFULL 188
#define A_GMULT 192
#define A_GSHIFT 196
#define A_GOFFSET 200
#define A_ROWSFN 188 /* (rows > 1: groups is 0, group_full unused) */
