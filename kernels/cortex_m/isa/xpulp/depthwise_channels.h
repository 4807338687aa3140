// The channels' part of the argument blocks of the Xpulp depthwise kernels straight from NHWC
// (DwSmallWords in depthwise_small.h, DwS2Words in depthwise_s2.h: their first 32 bytes, which
// depthwise_small.S and depthwise_s2.S read at the same offsets), and its filling from the layer.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/cortex_m/util/depthwise_conv2d.h"

namespace etmcu {
namespace kernels {
namespace int8 {

struct DwWordsChannels {
  const int8_t* x;      // channel 0 of input pixel (0, 0); pixel p, channel c at x + p * c_step + c
  int8_t* y;            // the same for the out
  const int8_t* w;      // tap t of channel c at w + t * c_step + c
  const int32_t* bias;  // channel c's at bias + c * bias_step / 4
  int32_t bias_step;    // 4, or 0 with bias at a zero word (no bias)
  const int32_t* mult;  // dyadic (cmsis::requant_dyadic_ok) multipliers
  int32_t channels;     // >= 1
  int32_t c_step;       // C
};
static_assert(sizeof(void*) != 4 ||
                  (offsetof(DwWordsChannels, bias_step) == 16 && sizeof(DwWordsChannels) == 32),
              "DwWordsChannels layout differs from the one the kernels read");

// The layer's (multiplier 1: in.c == out.c), with `zero` the zero word for a layer without bias.
inline DwWordsChannels dw_words_channels(const DwJob& j, const int32_t* zero) {
  return DwWordsChannels{j.x,    j.y,    j.w,   j.bias ? j.bias : zero, j.bias ? 4 : 0,
                         j.mult, j.in.c, j.in.c};
}
// channel c's bias
inline int32_t dw_words_bias(const DwWordsChannels& a, int32_t c) {
  return a.bias[c * (a.bias_step / 4)];
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
