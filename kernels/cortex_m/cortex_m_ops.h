// Declarations of every cortex_m int8 kernel with the upstream schema it implements (operators.yaml
// of the KWS program's exporter, 2026-08) and its KernelCall argument count (schema arguments, then
// out again); other counts (older schemas) are rejected naming what differs. See docs/int8.md.
#pragma once
#include "kernels/api/kernel.h"

namespace etmcu {
namespace kernels {
// cortex_m::quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int
// quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 8 values (7 schema arguments + out)
Error cortex_m_quantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int
// quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 8 values (7 schema arguments + out)
Error cortex_m_dequantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::quantized_add.out(Tensor self, int self_zero_point, int self_multiplier, int
// self_shift, Tensor other, int other_zero_point, int other_multiplier, int other_shift, int
// output_zero_point, int output_multiplier, int output_shift, int activation_min, int
// activation_max, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 15 values (14 schema arguments + out)
Error cortex_m_quantized_add_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::quantized_mul.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point,
// int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 9 values (8 schema arguments + out)
Error cortex_m_quantized_mul_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::quantized_div.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point,
// int output_zero_point, float output_scale, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 8 values (7 schema arguments + out)
Error cortex_m_quantized_div_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::quantized_activation.out(Tensor input, Tensor lut, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 4 values (3 schema arguments + out)
Error cortex_m_quantized_activation_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 4 values (3 schema arguments + out)
Error cortex_m_minimum_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 4 values (3 schema arguments + out)
Error cortex_m_maximum_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::quantized_linear.out(Tensor input, Tensor weights, Tensor? bias, Tensor? kernel_sum,
// int input_offset, int filter_offset, int output_offset, int[] requantize_multipliers, int[]
// requantize_shifts, int activation_max, int activation_min, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 13 values (12 schema arguments + out)
Error cortex_m_quantized_linear_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::softmax.out(Tensor input, int dim, int input_zero_point, int output_zero_point, int
// input_multiplier, int input_shift, int diff_min, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 9 values (8 schema arguments + out)
Error cortex_m_softmax_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::transpose.out(Tensor input, int[] perm, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 4 values (3 schema arguments + out)
Error cortex_m_transpose_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::pad.out(Tensor input, int[] pre_pad, int[] post_pad, int pad_value, *, Tensor(a!) out)
// -> Tensor(a!)
//   -> args: 6 values (5 schema arguments + out)
Error cortex_m_pad_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::quantized_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[]
// padding, int[] dilation, int input_offset, int output_offset, Tensor requantize_multipliers,
// Tensor requantize_shifts, int activation_min, int activation_max, Tensor scratch, *, Tensor(a!)
// out) -> Tensor(a!)
//   -> args: 15 values (14 schema arguments + out)
Error cortex_m_quantized_conv2d_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::quantized_depthwise_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride,
// int[] padding, int[] dilation, int depth_multiplier, int input_offset, int output_offset, Tensor
// requantize_multipliers, Tensor requantize_shifts, int activation_min, int activation_max, Tensor
// scratch, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 16 values (15 schema arguments + out)
Error cortex_m_quantized_depthwise_conv2d_out(KernelContext& ctx, Span<EValue*> args);
// The optimised variants' buffer declarations (KernelEntry::temp_bytes; ref/ declares none).
uint32_t cortex_m_quantized_depthwise_conv2d_out_temp_bytes(Span<EValue*> args);
// cortex_m::quantized_transpose_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride,
// int[] padding, int[] output_padding, int[] dilation, int input_offset, int output_offset, Tensor
// requantize_multipliers, Tensor requantize_shifts, int activation_min, int activation_max, Tensor
// scratch, Tensor output_scratch, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 17 values (16 schema arguments + out)
Error cortex_m_quantized_transpose_conv2d_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::quantized_avg_pool2d.out(Tensor input, int[] kernel_size, int[] stride, int[] padding,
// bool ceil_mode, int zero_point, int multiplier, int shift, Tensor scratch, *, Tensor(a!) out) ->
// Tensor(a!)
//   -> args: 11 values (10 schema arguments + out)
Error cortex_m_quantized_avg_pool2d_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::quantized_max_pool2d.out(Tensor input, int[] kernel_size, int[] stride, int[] padding,
// int[] dilation, bool ceil_mode, int input_zero_point, int output_zero_point, int activation_min,
// int activation_max, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 12 values (11 schema arguments + out)
Error cortex_m_quantized_max_pool2d_out(KernelContext& ctx, Span<EValue*> args);
// cortex_m::quantized_batch_matmul.out(Tensor lhs, int lhs_zero_point, Tensor rhs_transposed, int
// rhs_zero_point, int output_zero_point, int output_multiplier, int output_shift, Tensor scratch,
// *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 10 values (9 schema arguments + out)
Error cortex_m_quantized_batch_matmul_out(KernelContext& ctx, Span<EValue*> args);
// etmcu::quantized_upsample_bilinear2d.out(Tensor input, bool align_corners, *, Tensor(a!) out)
// -> Tensor(a!)   (etmcu's own op: int8 bilinear upsampling, integer weights in 1/1024)
//   -> args: 4 values (3 schema arguments + out)
Error etmcu_quantized_upsample_bilinear2d_out(KernelContext& ctx, Span<EValue*> args);
}  // namespace kernels
}  // namespace etmcu
