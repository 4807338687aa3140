"""Upstream out-variant schemas the runtime's kernels implement (argument kinds in schema order).

Copied in meaning from pytorch's native_functions.yaml (checked against torch 1.13's registered
schemas where 1.13 has the op) and executorch's kernels/portable/functions.yaml for the
dim_order_ops. Only operators upstream's portable, quantized or Cortex-M libraries register
belong here (tests/python/test_upstream_ops.py holds the table); anything else is decomposed by
a pass first (passes.decompose_linear). Each entry lists the non-out arguments as "kind name"
and how many out tensors follow, and optionally the op's alias contract (below). The lowering materialises *every* argument (defaults included) in this order, then the
out tensor(s), then the return value: the single out again, or a TensorList of all outs.
"""

_SCHEMAS = {
    "aten::add.out": ("Tensor self, Tensor other, Scalar alpha", 1, ("self", "other")),
    "aten::add.Scalar_out": ("Tensor self, Scalar other, Scalar alpha", 1, ("self",)),
    "aten::sub.out": ("Tensor self, Tensor other, Scalar alpha", 1, ("self", "other")),
    "aten::sub.Scalar_out": ("Tensor self, Scalar other, Scalar alpha", 1, ("self",)),
    "aten::mul.out": ("Tensor self, Tensor other", 1, ("self", "other")),
    "aten::mul.Scalar_out": ("Tensor self, Scalar other", 1, ("self",)),
    "aten::div.out": ("Tensor self, Tensor other", 1, ("self", "other")),
    "aten::div.Scalar_out": ("Tensor self, Scalar other", 1, ("self",)),
    "aten::relu.out": ("Tensor self", 1, ("self",)),
    "aten::hardtanh.out": ("Tensor self, Scalar min_val, Scalar max_val", 1, ("self",)),
    "aten::clamp.out": ("Tensor self, Scalar? min, Scalar? max", 1, ("self",)),
    "aten::sigmoid.out": ("Tensor self", 1, ("self",)),
    "aten::tanh.out": ("Tensor self", 1, ("self",)),
    "aten::_softmax.out": ("Tensor self, int dim, bool half_to_float", 1),
    "aten::_log_softmax.out": ("Tensor self, int dim, bool half_to_float", 1),
    "aten::convolution.out": (
        "Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, "
        "bool transposed, int[] output_padding, int groups", 1),
    "aten::addmm.out": ("Tensor self, Tensor mat1, Tensor mat2, Scalar beta, Scalar alpha", 1),
    "aten::mm.out": ("Tensor self, Tensor mat2", 1),
    "aten::bmm.out": ("Tensor self, Tensor mat2", 1),
    "aten::max_pool2d_with_indices.out": (
        "Tensor self, int[] kernel_size, int[] stride, int[] padding, int[] dilation, bool ceil_mode", 2),
    "aten::avg_pool2d.out": (
        "Tensor self, int[] kernel_size, int[] stride, int[] padding, bool ceil_mode, "
        "bool count_include_pad, int? divisor_override", 1),
    "aten::mean.out": ("Tensor self, int[]? dim, bool keepdim, ScalarType? dtype", 1),
    "aten::sum.IntList_out": ("Tensor self, int[]? dim, bool keepdim, ScalarType? dtype", 1),
    "aten::permute_copy.out": ("Tensor self, int[] dims", 1),
    "aten::view_copy.out": ("Tensor self, int[] size", 1),
    "aten::expand_copy.out": ("Tensor self, int[] size, bool implicit", 1),
    "aten::cat.out": ("Tensor[] tensors, int dim", 1),
    "aten::select_copy.int_out": ("Tensor self, int dim, int index", 1),
    "aten::slice_copy.Tensor_out": ("Tensor self, int dim, int? start, int? end, int step", 1),
    "aten::clone.out": ("Tensor self, MemoryFormat? memory_format", 1),
    "dim_order_ops::_to_dim_order_copy.out": ("Tensor self, bool non_blocking, int[]? dim_order", 1),
    "dim_order_ops::_clone_dim_order.out": ("Tensor self, bool non_blocking, int[]? dim_order", 1),
    "aten::full.out": ("int[] size, Scalar fill_value", 1),
    "aten::eq.Scalar_out": ("Tensor self, Scalar other", 1),
    "aten::where.self_out": ("Tensor condition, Tensor self, Tensor other", 1),
    "aten::_native_batch_norm_legit_no_training.out": (
        "Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, "
        "float momentum, float eps", 3),
    "aten::upsample_nearest2d.vec_out": ("Tensor input, int[]? output_size, float[]? scale_factors", 1),
    "aten::upsample_bilinear2d.vec_out": (
        "Tensor input, int[]? output_size, bool align_corners, float[]? scale_factors", 1),
    "aten::native_layer_norm.out": (
        "Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps", 3),
    "aten::constant_pad_nd.out": ("Tensor self, int[] pad, Scalar value", 1),
    # Upstream ExecuTorch Cortex-M backend (backends/cortex_m/ops/operators.yaml), int8 path.
    "cortex_m::quantize_per_tensor.out": (
        "Tensor input, float scale, int zero_point, int quant_min, int quant_max, "
        "ScalarType dtype", 1),
    "cortex_m::dequantize_per_tensor.out": (
        "Tensor input, float scale, int zero_point, int quant_min, int quant_max, "
        "ScalarType dtype", 1),
    "cortex_m::quantized_add.out": (
        "Tensor self, int self_zero_point, int self_multiplier, int self_shift, Tensor other, "
        "int other_zero_point, int other_multiplier, int other_shift, int output_zero_point, "
        "int output_multiplier, int output_shift, int activation_min, int activation_max", 1,
        ("self", "other")),
    "cortex_m::quantized_mul.out": (
        "Tensor self, int self_zero_point, Tensor other, int other_zero_point, "
        "int output_zero_point, int output_multiplier, int output_shift", 1, ("self", "other")),
    "cortex_m::quantized_activation.out": ("Tensor input, Tensor lut", 1, ("input",)),
    "cortex_m::softmax.out": (
        "Tensor input, int dim, int input_zero_point, int output_zero_point, "
        "int input_multiplier, int input_shift, int diff_min", 1),
    "cortex_m::quantized_linear.out": (
        "Tensor input, Tensor weights, Tensor? bias, Tensor? kernel_sum, int input_offset, "
        "int filter_offset, int output_offset, int[] requantize_multipliers, "
        "int[] requantize_shifts, int activation_max, int activation_min", 1),
    "cortex_m::pad.out": ("Tensor input, int[] pre_pad, int[] post_pad, int pad_value", 1),
    "cortex_m::quantized_conv2d.out": (
        "Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, "
        "int input_offset, int output_offset, Tensor requantize_multipliers, "
        "Tensor requantize_shifts, int activation_min, int activation_max, Tensor scratch", 1),
    "cortex_m::quantized_depthwise_conv2d.out": (
        "Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, "
        "int depth_multiplier, int input_offset, int output_offset, "
        "Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min, "
        "int activation_max, Tensor scratch", 1),
    "cortex_m::quantized_avg_pool2d.out": (
        "Tensor input, int[] kernel_size, int[] stride, int[] padding, bool ceil_mode, "
        "int zero_point, int multiplier, int shift, Tensor scratch", 1),
    # etmcu's own int8 op (no upstream library registers one): kernels/cortex_m/ref/
    "etmcu::quantized_upsample_bilinear2d.out": ("Tensor input, bool align_corners", 1),
    "cortex_m::quantized_max_pool2d.out": (
        "Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, "
        "bool ceil_mode, int input_zero_point, int output_zero_point, int activation_min, "
        "int activation_max", 1),
}


def _parse(spec):
    args = []
    for part in spec.split(","):
        kind, name = part.strip().rsplit(" ", 1)
        args.append((kind, name))
    return args


SCHEMAS = {key: (_parse(row[0]), row[1]) for key, row in _SCHEMAS.items()}

# Alias contract: the (Tensor) arguments an op's single out may occupy *exactly* - same bytes,
# shape, dtype and dim order - because every variant of its kernel computes out[i] from in[i]
# only, reading element i before writing it (elementwise ops, LUT activations, residual add; the
# *other* operand may broadcast, but then it differs in shape and is not a candidate). The planner
# merges such an out with a dying candidate; method load (runtime/executor/method.cpp with
# kernels/api/alias_contract.cpp, checked against this table by tests/python/test_alias_contract.py)
# refuses any other overlap of an op's out with its inputs; tests/python/int8 runs each declared
# int8 kernel with out == input on every variant.
INPLACE_ARGS = {}
for _key, _row in _SCHEMAS.items():
    if len(_row) > 2:
        _names = [name for _, name in SCHEMAS[_key][0]]
        INPLACE_ARGS[_key] = tuple(_names.index(a) for a in _row[2])
INPLACE_SAFE = set(INPLACE_ARGS)


def split_key(key):
    """'aten::add.Scalar_out' -> ('aten::add', 'Scalar_out')."""
    name, overload = key.rsplit(".", 1)
    return name, overload
