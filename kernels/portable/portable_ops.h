// Declarations of every portable kernel (the kernel ABI of kernels/api/kernel.h), each with its
// upstream out-variant schema and the resulting KernelCall argument count. Layout of `args`: one
// value per schema argument in order (defaults and kwarg-only ones included), then the out tensor
// again (single output) or a TensorList of the outs (several outputs). Every kernel validates tags,
// dtypes and out shapes and returns InvalidArgument / InvalidType / NotSupported without writing
// on failure; see docs/kernels.md for the dtypes and dim orders each op supports.
#pragma once
#include "kernels/api/kernel.h"

namespace etmcu {
namespace kernels {
// aten::_adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten__adaptive_avg_pool2d_out(KernelContext& ctx, Span<EValue*> args);
// aten::_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten__log_softmax_out(KernelContext& ctx, Span<EValue*> args);
// aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias, Tensor
// running_mean, Tensor running_var, float momentum, float eps, *, Tensor(a!) out0, Tensor(b!) out1,
// Tensor(c!) out2) -> (out0, out1, out2)   [+ TensorList of the outs]
//   -> args: 11 values (10 schema arguments + TensorList of the 3 outs)
Error aten__native_batch_norm_legit_no_training_out(KernelContext& ctx, Span<EValue*> args);
// aten::_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten__softmax_out(KernelContext& ctx, Span<EValue*> args);
// aten::_to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None,
// Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten__to_copy_out(KernelContext& ctx, Span<EValue*> args);
// aten::abs.out(Tensor self, *, Tensor(a!) out) -> out
//   -> args: 3 values (2 schema arguments + out)
Error aten_abs_out(KernelContext& ctx, Span<EValue*> args);
// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_add_out(KernelContext& ctx, Span<EValue*> args);
// aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_add_Scalar_out(KernelContext& ctx, Span<EValue*> args);
// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
// Tensor(a!) out) -> out
//   -> args: 7 values (6 schema arguments + out)
Error aten_addmm_out(KernelContext& ctx, Span<EValue*> args);
// aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool
// ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *, Tensor(a!) out) ->
// out
//   -> args: 9 values (8 schema arguments + out)
Error aten_avg_pool2d_out(KernelContext& ctx, Span<EValue*> args);
// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_bmm_out(KernelContext& ctx, Span<EValue*> args);
// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_cat_out(KernelContext& ctx, Span<EValue*> args);
// aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_clamp_out(KernelContext& ctx, Span<EValue*> args);
// aten::clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_clone_out(KernelContext& ctx, Span<EValue*> args);
// aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_constant_pad_nd_out(KernelContext& ctx, Span<EValue*> args);
// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, SymInt[] padding,
// int[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, *, Tensor(a!) out) ->
// out
//   -> args: 11 values (10 schema arguments + out)
Error aten_convolution_out(KernelContext& ctx, Span<EValue*> args);
// aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_div_out(KernelContext& ctx, Span<EValue*> args);
// aten::div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_div_out_mode(KernelContext& ctx, Span<EValue*> args);
// aten::div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_div_Scalar_out(KernelContext& ctx, Span<EValue*> args);
// aten::eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_eq_Scalar_out(KernelContext& ctx, Span<EValue*> args);
// aten::eq.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_eq_Tensor_out(KernelContext& ctx, Span<EValue*> args);
// aten::exp.out(Tensor self, *, Tensor(a!) out) -> out
//   -> args: 3 values (2 schema arguments + out)
Error aten_exp_out(KernelContext& ctx, Span<EValue*> args);
// aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_expand_copy_out(KernelContext& ctx, Span<EValue*> args);
// aten::full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_full_out(KernelContext& ctx, Span<EValue*> args);
// aten::ge.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_ge_Scalar_out(KernelContext& ctx, Span<EValue*> args);
// aten::ge.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_ge_Tensor_out(KernelContext& ctx, Span<EValue*> args);
// aten::gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_gelu_out(KernelContext& ctx, Span<EValue*> args);
// aten::gt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_gt_Scalar_out(KernelContext& ctx, Span<EValue*> args);
// aten::gt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_gt_Tensor_out(KernelContext& ctx, Span<EValue*> args);
// aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_hardtanh_out(KernelContext& ctx, Span<EValue*> args);
// aten::le.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_le_Scalar_out(KernelContext& ctx, Span<EValue*> args);
// aten::le.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_le_Tensor_out(KernelContext& ctx, Span<EValue*> args);
// aten::leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_leaky_relu_out(KernelContext& ctx, Span<EValue*> args);
// aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_linear_out(KernelContext& ctx, Span<EValue*> args);
// aten::log.out(Tensor self, *, Tensor(a!) out) -> out
//   -> args: 3 values (2 schema arguments + out)
Error aten_log_out(KernelContext& ctx, Span<EValue*> args);
// aten::lt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_lt_Scalar_out(KernelContext& ctx, Span<EValue*> args);
// aten::lt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_lt_Tensor_out(KernelContext& ctx, Span<EValue*> args);
// aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2]
// padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out, Tensor(b!) indices) ->
// (out, indices)   [+ TensorList of the outs]
//   -> args: 9 values (8 schema arguments + TensorList of the 2 outs)
Error aten_max_pool2d_with_indices_out(KernelContext& ctx, Span<EValue*> args);
// aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
// Tensor(a!) out) -> out
//   -> args: 6 values (5 schema arguments + out)
Error aten_mean_out(KernelContext& ctx, Span<EValue*> args);
// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_mm_out(KernelContext& ctx, Span<EValue*> args);
// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_mul_out(KernelContext& ctx, Span<EValue*> args);
// aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_mul_Scalar_out(KernelContext& ctx, Span<EValue*> args);
// aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor?
// bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (out0, out1, out2) [+
// TensorList of the outs]
//   -> args: 9 values (8 schema arguments + TensorList of the 3 outs)
Error aten_native_layer_norm_out(KernelContext& ctx, Span<EValue*> args);
// aten::ne.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_ne_Scalar_out(KernelContext& ctx, Span<EValue*> args);
// aten::ne.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_ne_Tensor_out(KernelContext& ctx, Span<EValue*> args);
// aten::neg.out(Tensor self, *, Tensor(a!) out) -> out
//   -> args: 3 values (2 schema arguments + out)
Error aten_neg_out(KernelContext& ctx, Span<EValue*> args);
// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_permute_copy_out(KernelContext& ctx, Span<EValue*> args);
// aten::relu.out(Tensor self, *, Tensor(a!) out) -> out
//   -> args: 3 values (2 schema arguments + out)
Error aten_relu_out(KernelContext& ctx, Span<EValue*> args);
// aten::rsqrt.out(Tensor self, *, Tensor(a!) out) -> out
//   -> args: 3 values (2 schema arguments + out)
Error aten_rsqrt_out(KernelContext& ctx, Span<EValue*> args);
// aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_select_copy_int_out(KernelContext& ctx, Span<EValue*> args);
// aten::sigmoid.out(Tensor self, *, Tensor(a!) out) -> out
//   -> args: 3 values (2 schema arguments + out)
Error aten_sigmoid_out(KernelContext& ctx, Span<EValue*> args);
// aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt
// step=1, *, Tensor(a!) out) -> out
//   -> args: 7 values (6 schema arguments + out)
Error aten_slice_copy_Tensor_out(KernelContext& ctx, Span<EValue*> args);
// aten::sqrt.out(Tensor self, *, Tensor(a!) out) -> out
//   -> args: 3 values (2 schema arguments + out)
Error aten_sqrt_out(KernelContext& ctx, Span<EValue*> args);
// aten::squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_squeeze_copy_dim_out(KernelContext& ctx, Span<EValue*> args);
// aten::squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_squeeze_copy_dims_out(KernelContext& ctx, Span<EValue*> args);
// aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_sub_out(KernelContext& ctx, Span<EValue*> args);
// aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_sub_Scalar_out(KernelContext& ctx, Span<EValue*> args);
// aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
// Tensor(a!) out) -> out
//   -> args: 6 values (5 schema arguments + out)
Error aten_sum_IntList_out(KernelContext& ctx, Span<EValue*> args);
// aten::tanh.out(Tensor self, *, Tensor(a!) out) -> out
//   -> args: 3 values (2 schema arguments + out)
Error aten_tanh_out(KernelContext& ctx, Span<EValue*> args);
// aten::transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_transpose_copy_int_out(KernelContext& ctx, Span<EValue*> args);
// aten::unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_unsqueeze_copy_out(KernelContext& ctx, Span<EValue*> args);
// aten::upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors, *,
// Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_upsample_nearest2d_vec_out(KernelContext& ctx, Span<EValue*> args);
// aten::upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
// float[]? scale_factors, *, Tensor(a!) out) -> out
//   -> args: 6 values (5 schema arguments + out)
Error aten_upsample_bilinear2d_vec_out(KernelContext& ctx, Span<EValue*> args);
// aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out) -> out
//   -> args: 4 values (3 schema arguments + out)
Error aten_view_copy_out(KernelContext& ctx, Span<EValue*> args);
// aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error aten_where_self_out(KernelContext& ctx, Span<EValue*> args);
// dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False, int[]?
// dim_order=None, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error dim_order_ops__clone_dim_order_out(KernelContext& ctx, Span<EValue*> args);
// dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]?
// dim_order=None, Tensor(a!) out) -> out
//   -> args: 5 values (4 schema arguments + out)
Error dim_order_ops__to_dim_order_copy_out(KernelContext& ctx, Span<EValue*> args);

}  // namespace kernels
}  // namespace etmcu
