// aten::_native_batch_norm_legit_no_training.out: inference batch norm over channel dim 1,
// out = x * a + b with a = weight / sqrt(var + eps), b = bias - mean * a (PyTorch's CPU
// formulation, in float for f32). The save_mean/save_invstd outs ([0] in exported programs) are
// left untouched. Any dim order.
#include <math.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

namespace {
template <typename T>
T sqrt_of(T v) {
  return sizeof(T) == sizeof(float) ? static_cast<T>(sqrtf(static_cast<float>(v)))
                                    : static_cast<T>(sqrt(static_cast<double>(v)));
}

template <typename T>
void batch_norm(const Tensor& in, const Tensor* w, const Tensor* b, const Tensor& mean,
                const Tensor& var, double eps, const Tensor& out) {
  int64_t st[2][kTensorMaxDim];
  in.strides(st[0]);
  out.strides(st[1]);
  int32_t sizes[kTensorMaxDim];
  for (int d = 0; d < in.dim; ++d) sizes[d] = d == 1 ? 1 : in.sizes[d];
  Tensor slice = in;  // one channel: dim 1 collapsed
  slice.sizes = sizes;
  const size_t n = slice.numel();
  const T* px = in.const_data_ptr<T>();
  T* py = out.mutable_data_ptr<T>();
  const int32_t channels = in.dim > 1 ? in.sizes[1] : 1;
  for (int32_t c = 0; c < channels; ++c) {
    const T invstd =
        static_cast<T>(1) / sqrt_of<T>(var.const_data_ptr<T>()[c] + static_cast<T>(eps));
    const T alpha = invstd * (w ? w->const_data_ptr<T>()[c] : static_cast<T>(1));
    const T beta =
        (b ? b->const_data_ptr<T>()[c] : static_cast<T>(0)) - mean.const_data_ptr<T>()[c] * alpha;
    const int64_t base[2] = {c * st[0][1], c * st[1][1]};
    util::StridedIter it(slice, st, 2, base);
    for (size_t i = 0; i < n; ++i, it.next()) py[it.offset(1)] = px[it.offset(0)] * alpha + beta;
  }
}

bool is_channel_vector(const Tensor* t, const Tensor& in) {
  return t == nullptr || (t->dim == 1 && t->sizes[0] == in.sizes[1] && t->dtype == in.dtype);
}
}  // namespace

// _native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
//     Tensor running_mean, Tensor running_var, float momentum, float eps, *, Tensor(a!) out0,
//     Tensor(b!) out1, Tensor(c!) out2) -> (out0, out1, out2)   [+ TensorList of the outs]
Error aten__native_batch_norm_legit_no_training_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 11 || !util::is_valid_tensor_arg(args, 0) ||
      !util::is_optional_tensor_arg(args, 1) || !util::is_optional_tensor_arg(args, 2) ||
      !util::is_valid_tensor_arg(args, 3) || !util::is_valid_tensor_arg(args, 4) ||
      !util::is_double_arg(args, 5) || !util::is_double_arg(args, 6) ||
      !util::is_valid_tensor_arg(args, 7) || !util::is_valid_tensor_arg(args, 8) ||
      !util::is_valid_tensor_arg(args, 9) || !util::is_out_list(args, 10, 7, 3))
    return ctx.fail(Error::InvalidArgument,
                    "batch_norm_no_training.out: bad argument count or tags");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor* w = args[1]->is_tensor() ? &util::tensor_arg(args, 1) : nullptr;
  const Tensor* b = args[2]->is_tensor() ? &util::tensor_arg(args, 2) : nullptr;
  const Tensor& mean = util::tensor_arg(args, 3);
  const Tensor& var = util::tensor_arg(args, 4);
  const Tensor& out = util::tensor_arg(args, 7);
  const double eps =
      args[6]->is_double() ? args[6]->to_double() : static_cast<double>(args[6]->to_int());
  if (in.dim < 2) return ctx.fail(Error::InvalidArgument, "batch_norm_no_training.out: rank < 2");
  if (!util::is_float_compute(in.dtype) || out.dtype != in.dtype)
    return ctx.fail(Error::InvalidType, "batch_norm_no_training.out: float input/out required");
  if (!is_channel_vector(w, in) || !is_channel_vector(b, in) || !is_channel_vector(&mean, in) ||
      !is_channel_vector(&var, in))
    return ctx.fail(Error::InvalidArgument, "batch_norm_no_training.out: params must be [C]");
  if (!in.same_shape(out))
    return ctx.fail(Error::InvalidArgument, "batch_norm_no_training.out: out shape mismatch");
  (void)util::dispatch_float(
      in.dtype, [&](auto tag) { batch_norm<decltype(tag)>(in, w, b, mean, var, eps, out); });
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
