// aten::permute_copy.out: out[i0..] = self[permuted index]; any dim orders (strided gather).
#include "kernels/api/kernel_paths.h"
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

// permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out) -> out
Error aten_permute_copy_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_list_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "permute_copy.out: expected (self, dims, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 2);
  Span<const int64_t> dims = args[1]->to_int_list();
  if (in.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "permute_copy.out: dtype mismatch");
  if (dims.size() != in.dim || out.dim != in.dim)
    return ctx.fail(Error::InvalidArgument, "permute_copy.out: dims length != rank");
  int64_t in_strides[kTensorMaxDim], st[kTensorMaxDim];
  in.strides(in_strides);
  uint32_t seen = 0;
  for (int d = 0; d < out.dim; ++d) {
    int src;
    if (!util::normalize_dim(dims[d], in.dim, &src) || (seen & (1u << src)))
      return ctx.fail(Error::InvalidArgument, "permute_copy.out: dims is not a permutation");
    seen |= 1u << src;
    if (out.sizes[d] != in.sizes[src])
      return ctx.fail(Error::InvalidArgument, "permute_copy.out: out shape mismatch");
    st[d] = in_strides[src];
  }
  if (!util::gather_copy(out, in.data, st, 0, out.element_size())) return kernel_path_missing(ctx);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
