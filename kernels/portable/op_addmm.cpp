// aten::addmm.out: out = beta * self + alpha * (mat1 @ mat2), self broadcast to [n,m]; beta = 0
// ignores self (NaN/inf in it do not propagate), as in PyTorch.
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/matmul.h"

namespace etmcu {
namespace kernels {

// addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//           Tensor(a!) out) -> out
Error aten_addmm_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 7 || !util::is_valid_tensor_arg(args, 0) ||
      !util::is_valid_tensor_arg(args, 1) || !util::is_valid_tensor_arg(args, 2) ||
      !util::is_scalar_arg(args, 3) || !util::is_scalar_arg(args, 4) ||
      !util::is_valid_tensor_arg(args, 5) || !util::is_return_of(args, 6, 5))
    return ctx.fail(Error::InvalidArgument,
                    "addmm.out: expected (self, mat1, mat2, beta, alpha, out)");
  const Tensor& bias = util::tensor_arg(args, 0);
  const Tensor& a = util::tensor_arg(args, 1);
  const Tensor& b = util::tensor_arg(args, 2);
  const Tensor& out = util::tensor_arg(args, 5);
  if (a.dim != 2 || b.dim != 2 || out.dim != 2 || a.sizes[1] != b.sizes[0] ||
      out.sizes[0] != a.sizes[0] || out.sizes[1] != b.sizes[1])
    return ctx.fail(Error::InvalidArgument, "addmm.out: shapes must be [n,k] @ [k,m] -> [n,m]");
  if (!util::broadcasts_to(bias, out))
    return ctx.fail(Error::InvalidArgument, "addmm.out: self does not broadcast to [n,m]");
  if (a.dtype != b.dtype || a.dtype != out.dtype || bias.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "addmm.out: dtypes must match");
  if (!util::is_floating(out.dtype) && (args[3]->is_double() || args[4]->is_double()))
    return ctx.fail(Error::InvalidArgument, "addmm.out: float beta/alpha with integer tensors");
  int64_t sa[2], sb[2], so[2], sbias[2] = {0, 0}, st[kTensorMaxDim];
  a.strides(sa);
  b.strides(sb);
  out.strides(so);
  bias.strides(st);
  // Bias strides per out dim; size-1 and missing dims broadcast with stride 0.
  for (int d = 0; d < bias.dim; ++d) {
    int od = d + (2 - bias.dim);
    sbias[od] = bias.sizes[d] == 1 ? 0 : st[d];
  }
  const double beta = args[3]->scalar_as_double();
  const double alpha = args[4]->scalar_as_double();
  bool ok = util::dispatch_matmul(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    using Acc = typename util::AccOf<T>::type;
    const T* pb = bias.const_data_ptr<T>();
    const Acc cb = util::saturate_cast<Acc>(beta), ca = util::saturate_cast<Acc>(alpha);
    const bool unit = beta == 1.0 && alpha == 1.0;  // exact acc + bias, the nn.Linear case
    util::matmul(a.const_data_ptr<T>(), sa[0], sa[1], b.const_data_ptr<T>(), sb[0], sb[1],
                 out.mutable_data_ptr<T>(), so[0], so[1], a.sizes[0], a.sizes[1], b.sizes[1],
                 [&](int64_t i, int64_t j, Acc acc) -> Acc {
                   const Acc s = static_cast<Acc>(pb[i * sbias[0] + j * sbias[1]]);
                   if (unit) return util::wrap_add(acc, s);
                   if (beta == 0.0) return util::wrap_mul(ca, acc);
                   return util::wrap_add(util::wrap_mul(cb, s), util::wrap_mul(ca, acc));
                 });
  });
  if (!ok) return ctx.fail(Error::InvalidType, "addmm.out: unsupported dtype");
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
