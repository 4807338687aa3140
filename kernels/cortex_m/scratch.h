// Scratch sizes of the cortex_m int8 kernels, as CMSIS-NN's *_get_buffer_size computes them for its
// portable C path (no DSP, no MVE). The exporter plans one uint8 scratch tensor of this size per
// call. The etmcu reference kernels (ref/) need no scratch at all; they accept any planned size.
#pragma once
#include <stdint.h>

namespace etmcu {
namespace kernels {

// Shapes of a 2-D convolution, all in CMSIS-NN terms (NHWC activations).
struct ConvScratchParams {
  int32_t in_n, in_h, in_w, in_c;  // input [N, H, W, C]
  int32_t k_h, k_w, k_c;           // filter kernel height/width and input channels per group
  int32_t out_h, out_w, out_c;     // output
  int32_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
};

// arm_convolve_wrapper_s8_get_buffer_size: 0 for 1x1 (no pad/dilation, stride any), else the
// im2col buffer of two int16 columns padded to a multiple of 4.
inline int32_t quantized_conv2d_scratch_size(const ConvScratchParams& p) {
  const bool is_1x1 = p.pad_w == 0 && p.pad_h == 0 && p.k_w == 1 && p.k_h == 1 && p.dil_w == 1 &&
                      p.dil_h == 1 && p.in_c == p.k_c;
  if (is_1x1) return 0;
  const int32_t rhs_cols = p.k_w * p.k_h * p.in_c;
  const int32_t aligned = (rhs_cols % 4) != 0 ? rhs_cols + 4 - rhs_cols % 4 : rhs_cols;
  return 2 * aligned * static_cast<int32_t>(sizeof(int16_t));
}

// arm_depthwise_conv_wrapper_s8_get_buffer_size: the portable path needs none.
inline int32_t quantized_depthwise_conv2d_scratch_size(const ConvScratchParams&) { return 0; }

// arm_transpose_conv_s8_get_buffer_size (scratch) and ..._get_reverse_conv_buffer_size
// (output_scratch). `k_c` here is the filter's input channels, out_c the output channels.
inline int32_t quantized_transpose_conv2d_scratch_size(const ConvScratchParams& p) {
  const bool reverse = p.stride_w <= 2 && p.stride_h <= 2 && p.in_c > 16;
  if (reverse) {
    const int32_t rhs_cols = p.k_w * p.k_h * p.in_c;
    const int32_t aligned = (rhs_cols % 4) != 0 ? rhs_cols + 4 - rhs_cols % 4 : rhs_cols;
    return 2 * aligned * static_cast<int32_t>(sizeof(int16_t));
  }
  const int32_t buf_x =
      ((p.in_w - 1) * p.stride_w + (p.k_w > p.stride_h ? p.k_w : p.stride_h)) * p.out_c;
  const int32_t buf_y = p.k_h > p.stride_h ? p.k_h : p.stride_h;
  return buf_x * buf_y * static_cast<int32_t>(sizeof(int32_t));
}
inline int32_t quantized_transpose_conv2d_output_scratch_size(const ConvScratchParams& p) {
  const bool reverse = p.stride_w <= 2 && p.stride_h <= 2 && p.in_c > 16;
  return reverse ? p.in_c * p.k_w * p.k_h * p.out_c : 0;
}

// arm_avgpool_s8_get_buffer_size: 0 on the portable path (the DSP path wants channels * 4).
inline int32_t quantized_avg_pool2d_scratch_size(int32_t /*out_w*/, int32_t /*channels*/) {
  return 0;
}

// arm_fully_connected_s8_get_buffer_size as used by quantized_batch_matmul: 0 without MVE.
inline int32_t quantized_batch_matmul_scratch_size(int32_t /*n*/) { return 0; }

}  // namespace kernels
}  // namespace etmcu
