// aten::expand_copy.out: broadcasts self to `size` (-1 keeps a dim); any dim orders.
#include "kernels/api/kernel_paths.h"
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

// expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out) -> out
Error aten_expand_copy_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_list_arg(args, 1) ||
      !util::is_bool_arg(args, 2) || !util::is_valid_tensor_arg(args, 3) ||
      !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument,
                    "expand_copy.out: expected (self, size, implicit, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 3);
  Span<const int64_t> size = args[1]->to_int_list();
  if (in.dtype != out.dtype) return ctx.fail(Error::InvalidType, "expand_copy.out: dtype mismatch");
  if (size.size() != out.dim || out.dim < in.dim)
    return ctx.fail(Error::InvalidArgument, "expand_copy.out: size length mismatch");
  const int lead = out.dim - in.dim;
  for (int d = 0; d < out.dim; ++d) {
    const int64_t s = size[d];
    const int32_t src = d >= lead ? in.sizes[d - lead] : 1;
    const int64_t want = s == -1 ? src : s;
    if (s == -1 && d < lead)
      return ctx.fail(Error::InvalidArgument, "expand_copy.out: -1 in a new dim");
    if (want < 0 || (src != 1 && src != want) || out.sizes[d] != want)
      return ctx.fail(Error::InvalidArgument, "expand_copy.out: cannot expand to size");
  }
  int64_t in_strides[kTensorMaxDim], st[kTensorMaxDim];
  in.strides(in_strides);
  for (int d = 0; d < out.dim; ++d)
    st[d] = (d >= lead && in.sizes[d - lead] != 1) ? in_strides[d - lead] : 0;
  if (!util::gather_copy(out, in.data, st, 0, out.element_size())) return kernel_path_missing(ctx);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
