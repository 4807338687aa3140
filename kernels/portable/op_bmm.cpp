// aten::bmm.out: out[b,n,m] = self[b,n,k] @ mat2[b,k,m]; any dim orders (strided).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/matmul.h"

namespace etmcu {
namespace kernels {

// bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> out
Error aten_bmm_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) ||
      !util::is_valid_tensor_arg(args, 1) || !util::is_valid_tensor_arg(args, 2) ||
      !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "bmm.out: expected (self, mat2, out, out)");
  const Tensor& a = util::tensor_arg(args, 0);
  const Tensor& b = util::tensor_arg(args, 1);
  const Tensor& out = util::tensor_arg(args, 2);
  if (a.dim != 3 || b.dim != 3 || out.dim != 3 || a.sizes[0] != b.sizes[0] ||
      a.sizes[2] != b.sizes[1] || out.sizes[0] != a.sizes[0] || out.sizes[1] != a.sizes[1] ||
      out.sizes[2] != b.sizes[2])
    return ctx.fail(Error::InvalidArgument, "bmm.out: shapes must be [b,n,k] @ [b,k,m] -> [b,n,m]");
  if (a.dtype != b.dtype || a.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "bmm.out: dtypes must match");
  int64_t sa[3], sb[3], so[3];
  a.strides(sa);
  b.strides(sb);
  out.strides(so);
  bool ok = util::dispatch_matmul(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int32_t i = 0; i < a.sizes[0]; ++i)
      util::matmul(a.const_data_ptr<T>() + i * sa[0], sa[1], sa[2],
                   b.const_data_ptr<T>() + i * sb[0], sb[1], sb[2],
                   out.mutable_data_ptr<T>() + i * so[0], so[1], so[2], a.sizes[1], a.sizes[2],
                   b.sizes[2], [](int64_t, int64_t, auto acc) { return acc; });
  });
  if (!ok) return ctx.fail(Error::InvalidType, "bmm.out: unsupported dtype");
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
