// aten::select_copy.int_out: out = self[..., index, ...] along `dim` (rank drops by one).
#include "kernels/api/kernel_paths.h"
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

// select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out) -> out
Error aten_select_copy_int_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_arg(args, 1) ||
      !util::is_int_arg(args, 2) || !util::is_valid_tensor_arg(args, 3) ||
      !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument,
                    "select_copy.int_out: expected (self, dim, index, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 3);
  if (in.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "select_copy.int_out: dtype mismatch");
  int dim;
  if (in.dim == 0 || !util::normalize_dim(args[1]->to_int(), in.dim, &dim))
    return ctx.fail(Error::InvalidArgument, "select_copy.int_out: dim out of range");
  int64_t index = args[2]->to_int();
  if (index < 0) index += in.sizes[dim];
  if (index < 0 || index >= in.sizes[dim])
    return ctx.fail(Error::InvalidArgument, "select_copy.int_out: index out of range");
  if (out.dim != in.dim - 1)
    return ctx.fail(Error::InvalidArgument, "select_copy.int_out: out rank");
  int64_t in_strides[kTensorMaxDim], st[kTensorMaxDim];
  in.strides(in_strides);
  for (int d = 0, s = 0; d < in.dim; ++d) {
    if (d == dim) continue;
    if (out.sizes[s] != in.sizes[d])
      return ctx.fail(Error::InvalidArgument, "select_copy.int_out: out shape mismatch");
    st[s++] = in_strides[d];
  }
  if (!util::gather_copy(out, in.data, st, index * in_strides[dim], out.element_size()))
    return kernel_path_missing(ctx);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
