// aten::transpose_copy.int_out: swaps two dims; any dim orders (strided gather).
#include "kernels/api/kernel_paths.h"
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

// transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out) -> out
Error aten_transpose_copy_int_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_arg(args, 1) ||
      !util::is_int_arg(args, 2) || !util::is_valid_tensor_arg(args, 3) ||
      !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument, "transpose_copy.int_out: expected (self, d0, d1, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 3);
  int d0, d1;
  if (!util::normalize_dim(args[1]->to_int(), in.dim, &d0) ||
      !util::normalize_dim(args[2]->to_int(), in.dim, &d1))
    return ctx.fail(Error::InvalidArgument, "transpose_copy.int_out: dim out of range");
  if (in.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "transpose_copy.int_out: dtype mismatch");
  if (out.dim != in.dim)
    return ctx.fail(Error::InvalidArgument, "transpose_copy.int_out: rank mismatch");
  if (in.dim == 0) {
    if (!util::copy_strided(in, out)) return kernel_path_missing(ctx);
    return Error::Ok;
  }
  int64_t in_strides[kTensorMaxDim], st[kTensorMaxDim];
  in.strides(in_strides);
  for (int d = 0; d < out.dim; ++d) {
    int src = d == d0 ? d1 : (d == d1 ? d0 : d);
    if (out.sizes[d] != in.sizes[src])
      return ctx.fail(Error::InvalidArgument, "transpose_copy.int_out: out shape mismatch");
    st[d] = in_strides[src];
  }
  if (!util::gather_copy(out, in.data, st, 0, out.element_size())) return kernel_path_missing(ctx);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
