// aten::_to_copy.out: dtype conversion copy (float -> int truncates, nonzero -> true) into out's
// dtype and dim order.
#include "kernels/api/kernel_paths.h"
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

// _to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None,
//              Tensor(a!) out) -> out
Error aten__to_copy_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) || !util::is_bool_arg(args, 1) ||
      args[2] == nullptr || !(args[2]->is_none() || args[2]->is_int()) ||
      !util::is_valid_tensor_arg(args, 3) || !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument,
                    "_to_copy.out: expected (self, non_blocking, memory_format?, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 3);
  if (!in.same_shape(out)) return ctx.fail(Error::InvalidArgument, "_to_copy.out: shape mismatch");
  if (!util::is_supported_dtype(in.dtype) || !util::is_supported_dtype(out.dtype))
    return ctx.fail(Error::InvalidType, "_to_copy.out: unsupported dtype");
  if (!util::convert_copy(in, out)) return kernel_path_missing(ctx);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
