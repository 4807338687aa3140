// aten::native_layer_norm.out: normalizes over the trailing `normalized_shape` dims (two-pass
// mean/variance in float for f32), out = (x - mean) * rstd * weight + bias; also writes mean and
// rstd ([..., 1, ...]) when those outs are non-empty. Contiguous tensors only.
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
void layer_norm(const Tensor& in, const Tensor* w, const Tensor* b, double eps, const Tensor& out,
                const Tensor& mean_out, const Tensor& rstd_out, int64_t rows, int64_t cols) {
  const T* px = in.const_data_ptr<T>();
  T* py = out.mutable_data_ptr<T>();
  const T* pw = w ? w->const_data_ptr<T>() : nullptr;
  const T* pb = b ? b->const_data_ptr<T>() : nullptr;
  const bool stats = mean_out.numel() == static_cast<size_t>(rows) && rows > 0;
  for (int64_t r = 0; r < rows; ++r) {
    const T* x = px + r * cols;
    T* y = py + r * cols;
    T sum = 0;
    for (int64_t i = 0; i < cols; ++i) sum += x[i];
    const T mean = cols ? sum / static_cast<T>(cols) : static_cast<T>(0);
    T sq = 0;
    for (int64_t i = 0; i < cols; ++i) sq += (x[i] - mean) * (x[i] - mean);
    const T var = cols ? sq / static_cast<T>(cols) : static_cast<T>(0);
    const T rstd = static_cast<T>(1) / sqrt_of<T>(var + static_cast<T>(eps));
    for (int64_t i = 0; i < cols; ++i) {
      T v = (x[i] - mean) * rstd;
      if (pw) v *= pw[i];
      if (pb) v += pb[i];
      y[i] = v;
    }
    if (stats) {
      mean_out.mutable_data_ptr<T>()[r] = mean;
      rstd_out.mutable_data_ptr<T>()[r] = rstd;
    }
  }
}
}  // namespace

// native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias,
//     float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (out0, out1, out2)
//     [+ TensorList of the outs]
Error aten_native_layer_norm_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 9 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_list_arg(args, 1) ||
      !util::is_optional_tensor_arg(args, 2) || !util::is_optional_tensor_arg(args, 3) ||
      !util::is_double_arg(args, 4) || !util::is_valid_tensor_arg(args, 5) ||
      !util::is_valid_tensor_arg(args, 6) || !util::is_valid_tensor_arg(args, 7) ||
      !util::is_out_list(args, 8, 5, 3))
    return ctx.fail(Error::InvalidArgument, "native_layer_norm.out: bad argument count or tags");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor* w = args[2]->is_tensor() ? &util::tensor_arg(args, 2) : nullptr;
  const Tensor* b = args[3]->is_tensor() ? &util::tensor_arg(args, 3) : nullptr;
  const double eps =
      args[4]->is_double() ? args[4]->to_double() : static_cast<double>(args[4]->to_int());
  const Tensor& out = util::tensor_arg(args, 5);
  const Tensor& mean_out = util::tensor_arg(args, 6);
  const Tensor& rstd_out = util::tensor_arg(args, 7);
  Span<const int64_t> ns = args[1]->to_int_list();
  if (ns.size() == 0 || ns.size() > in.dim)
    return ctx.fail(Error::InvalidArgument, "native_layer_norm.out: bad normalized_shape");
  const int axis = in.dim - static_cast<int>(ns.size());
  int64_t cols = 1;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (ns[i] != in.sizes[axis + i])
      return ctx.fail(Error::InvalidArgument, "native_layer_norm.out: normalized_shape mismatch");
    cols *= ns[i];
  }
  const int64_t rows = cols ? static_cast<int64_t>(in.numel()) / cols : 0;
  if (!util::is_float_compute(in.dtype) || out.dtype != in.dtype || mean_out.dtype != in.dtype ||
      rstd_out.dtype != in.dtype)
    return ctx.fail(Error::InvalidType, "native_layer_norm.out: tensors must share a float dtype");
  const Tensor* params[2] = {w, b};
  for (const Tensor* p : params)
    if (p &&
        (p->dtype != in.dtype || p->numel() != static_cast<size_t>(cols) || !p->is_contiguous()))
      return ctx.fail(Error::InvalidArgument,
                      "native_layer_norm.out: weight/bias != normalized_shape");
  if (!in.same_shape(out))
    return ctx.fail(Error::InvalidArgument, "native_layer_norm.out: out shape mismatch");
  if ((mean_out.numel() != 0 && mean_out.numel() != static_cast<size_t>(rows)) ||
      mean_out.numel() != rstd_out.numel())
    return ctx.fail(Error::InvalidArgument, "native_layer_norm.out: mean/rstd shape mismatch");
  if (!in.is_contiguous() || !out.is_contiguous())
    return ctx.fail(Error::NotSupported, "native_layer_norm.out: contiguous tensors only");
  (void)util::dispatch_float(in.dtype, [&](auto tag) {
    layer_norm<decltype(tag)>(in, w, b, eps, out, mean_out, rstd_out, rows, cols);
  });
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
