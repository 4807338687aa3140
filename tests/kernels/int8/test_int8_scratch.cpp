// Scratch sizes exported by kernels/cortex_m/scratch.h match CMSIS-NN's *_get_buffer_size for its
// portable C path (values worked out by hand from the CMSIS-NN sources), and the KWS program's
// planned scratch tensors are accepted by the reference kernels whatever their size.
#include <gtest/gtest.h>

#include "kernels/cortex_m/scratch.h"

namespace etmcu {
namespace kernels {
namespace {

ConvScratchParams conv(int32_t in_c, int32_t k, int32_t kc, int32_t pad, int32_t stride,
                       int32_t out_c) {
  ConvScratchParams p{};
  p.in_n = 1;
  p.in_h = p.in_w = 8;
  p.in_c = in_c;
  p.k_h = p.k_w = k;
  p.k_c = kc;
  p.out_h = p.out_w = 8;
  p.out_c = out_c;
  p.stride_h = p.stride_w = stride;
  p.pad_h = p.pad_w = pad;
  p.dil_h = p.dil_w = 1;
  return p;
}

TEST(Int8Scratch, ConvMatchesCmsisPortablePath) {
  EXPECT_EQ(quantized_conv2d_scratch_size(conv(64, 1, 64, 0, 1, 64)), 0);        // KWS 1x1 layers
  EXPECT_EQ(quantized_conv2d_scratch_size(conv(64, 1, 64, 0, 2, 64)), 0);        // 1x1, any stride
  EXPECT_EQ(quantized_conv2d_scratch_size(conv(3, 3, 3, 1, 1, 8)), 2 * 28 * 2);  // 27 -> 28
  EXPECT_EQ(quantized_conv2d_scratch_size(conv(4, 3, 4, 1, 1, 8)), 2 * 36 * 2);  // 36 aligned
  EXPECT_EQ(quantized_conv2d_scratch_size(conv(8, 1, 4, 0, 1, 8)), 2 * 8 * 2);   // grouped 1x1
  EXPECT_EQ(quantized_conv2d_scratch_size(conv(5, 1, 5, 1, 1, 8)), 2 * 8 * 2);   // padded 1x1
}

TEST(Int8Scratch, OthersMatchCmsisPortablePath) {
  EXPECT_EQ(quantized_depthwise_conv2d_scratch_size(conv(64, 3, 1, 1, 1, 64)), 0);
  EXPECT_EQ(quantized_avg_pool2d_scratch_size(1, 64), 0);  // the DSP path would want 256
  EXPECT_EQ(quantized_batch_matmul_scratch_size(16), 0);
  // Transpose conv, row path (Cin <= 16): ((in_w - 1) * stride + max(k, stride)) * out_c * 4 rows.
  ConvScratchParams t = conv(8, 3, 8, 1, 2, 4);
  EXPECT_EQ(quantized_transpose_conv2d_scratch_size(t), ((8 - 1) * 2 + 3) * 4 * 3 * 4);
  EXPECT_EQ(quantized_transpose_conv2d_output_scratch_size(t), 0);
  // Reverse-conv path (Cin > 16, stride <= 2): im2col of the upscaled input, reversed filter.
  t = conv(32, 3, 32, 1, 2, 4);
  EXPECT_EQ(quantized_transpose_conv2d_scratch_size(t), 2 * 288 * 2);
  EXPECT_EQ(quantized_transpose_conv2d_output_scratch_size(t), 32 * 9 * 4);
}

}  // namespace
}  // namespace kernels
}  // namespace etmcu
