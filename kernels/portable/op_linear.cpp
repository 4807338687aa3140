// aten::linear.out: out[..., m] = input[..., k] @ weight[m, k]^T + bias[m]; input/out of rank
// other than 2 must be contiguous (their leading dims are flattened into rows).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/matmul.h"

namespace etmcu {
namespace kernels {

// linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out) -> out
Error aten_linear_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) ||
      !util::is_valid_tensor_arg(args, 1) || !util::is_optional_tensor_arg(args, 2) ||
      !util::is_valid_tensor_arg(args, 3) || !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument,
                    "linear.out: expected (input, weight, bias?, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& w = util::tensor_arg(args, 1);
  const Tensor* bias = args[2]->is_tensor() ? &util::tensor_arg(args, 2) : nullptr;
  const Tensor& out = util::tensor_arg(args, 3);
  if (in.dim < 1 || w.dim != 2 || out.dim != in.dim || in.sizes[in.dim - 1] != w.sizes[1] ||
      out.sizes[out.dim - 1] != w.sizes[0])
    return ctx.fail(Error::InvalidArgument, "linear.out: shapes must be [..,k], [m,k] -> [..,m]");
  for (int d = 0; d + 1 < in.dim; ++d)
    if (out.sizes[d] != in.sizes[d])
      return ctx.fail(Error::InvalidArgument, "linear.out: out leading dims != input's");
  if (in.dtype != w.dtype || in.dtype != out.dtype || (bias && bias->dtype != in.dtype))
    return ctx.fail(Error::InvalidType, "linear.out: dtypes must match");
  const int64_t m = w.sizes[0], k = w.sizes[1];
  int64_t bstride = 0;
  if (bias) {
    if (bias->dim > 1 || (bias->dim == 1 && bias->sizes[0] != m && bias->sizes[0] != 1))
      return ctx.fail(Error::InvalidArgument, "linear.out: bias must be [m]");
    bstride = (bias->dim == 1 && bias->sizes[0] == m) ? 1 : 0;
  }
  int64_t si[2] = {k, 1}, so[2] = {m, 1}, sw[2];
  w.strides(sw);
  if (in.dim == 2) {
    in.strides(si);
    out.strides(so);
  } else if (!in.is_contiguous() || !out.is_contiguous()) {
    return ctx.fail(Error::NotSupported, "linear.out: non-contiguous input of rank != 2");
  }
  const int64_t rows = k == 0 ? static_cast<int64_t>(out.numel() / (m ? m : 1))
                              : static_cast<int64_t>(in.numel()) / k;
  bool ok = util::dispatch_matmul(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    using Acc = typename util::AccOf<T>::type;
    const T* pb = bias ? bias->const_data_ptr<T>() : nullptr;
    // weight^T is k x m with strides (sw[1], sw[0]).
    util::matmul(in.const_data_ptr<T>(), si[0], si[1], w.const_data_ptr<T>(), sw[1], sw[0],
                 out.mutable_data_ptr<T>(), so[0], so[1], rows, k, m,
                 [&](int64_t, int64_t j, Acc acc) -> Acc {
                   return pb ? util::wrap_add(acc, static_cast<Acc>(pb[j * bstride])) : acc;
                 });
  });
  if (!ok) return ctx.fail(Error::InvalidType, "linear.out: unsupported dtype");
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
