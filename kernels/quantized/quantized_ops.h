// Declarations of the quantized_decomposed kernels with their upstream schemas (quantized.yaml) and
// KernelCall argument counts: one value per schema argument (an omitted out_dtype is None), then
// the out tensor again. See docs/int8.md.
#pragma once
#include "kernels/api/kernel.h"

namespace etmcu {
namespace kernels {
// quantized_decomposed::quantize_per_tensor.out(Tensor input, float scale, int zero_point, int
// quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 8 values (7 schema arguments + out)
Error quantized_decomposed_quantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args);
// quantized_decomposed::quantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor
// zero_point, int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 8 values (7 schema arguments + out)
Error quantized_decomposed_quantize_per_tensor_Tensor_out(KernelContext& ctx, Span<EValue*> args);
// quantized_decomposed::dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int
// quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) ->
// Tensor(a!)
//   -> args: 9 values (8 schema arguments + out)
Error quantized_decomposed_dequantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args);
// quantized_decomposed::dequantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor
// zero_point, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None,
// Tensor(a!) out) -> Tensor(a!)
//   -> args: 9 values (8 schema arguments + out)
Error quantized_decomposed_dequantize_per_tensor_Tensor_out(KernelContext& ctx, Span<EValue*> args);
// quantized_decomposed::quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points,
// int axis, int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
//   -> args: 9 values (8 schema arguments + out)
Error quantized_decomposed_quantize_per_channel_out(KernelContext& ctx, Span<EValue*> args);
// quantized_decomposed::dequantize_per_channel.out(Tensor input, Tensor scales, Tensor?
// zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *, ScalarType?
// out_dtype=None, Tensor(a!) out) -> Tensor(a!)
//   -> args: 10 values (9 schema arguments + out)
Error quantized_decomposed_dequantize_per_channel_out(KernelContext& ctx, Span<EValue*> args);
}  // namespace kernels
}  // namespace etmcu
