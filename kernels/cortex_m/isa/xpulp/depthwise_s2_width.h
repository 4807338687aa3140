/* The widest output rows etmcu_xpulp_dw_s2_words takes: a row pair's first input row comes from
   a buffer in its frame of the last pair's fifth, W_out / 2 + 1 words (the pairs' 4-byte steps and
   the last pair's B). Preprocessor only: depthwise_s2.S sizes its frame from it,
   depthwise_s2.h's path tests it. */
#pragma once
#define ETMCU_XPULP_DW_S2_MAX_WIDTH 127
