// aten::mm.out: out[n,m] = self[n,k] @ mat2[k,m]; any 2-D dim orders (strided).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/matmul.h"

namespace etmcu {
namespace kernels {

// mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> out
Error aten_mm_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) ||
      !util::is_valid_tensor_arg(args, 1) || !util::is_valid_tensor_arg(args, 2) ||
      !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "mm.out: expected (self, mat2, out, out)");
  const Tensor& a = util::tensor_arg(args, 0);
  const Tensor& b = util::tensor_arg(args, 1);
  const Tensor& out = util::tensor_arg(args, 2);
  if (a.dim != 2 || b.dim != 2 || out.dim != 2 || a.sizes[1] != b.sizes[0] ||
      out.sizes[0] != a.sizes[0] || out.sizes[1] != b.sizes[1])
    return ctx.fail(Error::InvalidArgument, "mm.out: shapes must be [n,k] @ [k,m] -> [n,m]");
  if (a.dtype != b.dtype || a.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "mm.out: dtypes must match");
  int64_t sa[2], sb[2], so[2];
  a.strides(sa);
  b.strides(sb);
  out.strides(so);
  bool ok = util::dispatch_matmul(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    util::matmul(a.const_data_ptr<T>(), sa[0], sa[1], b.const_data_ptr<T>(), sb[0], sb[1],
                 out.mutable_data_ptr<T>(), so[0], so[1], a.sizes[0], a.sizes[1], b.sizes[1],
                 [](int64_t, int64_t, auto acc) { return acc; });
  });
  if (!ok) return ctx.fail(Error::InvalidType, "mm.out: unsupported dtype");
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
