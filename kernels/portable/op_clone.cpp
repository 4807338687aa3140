// aten::clone.out: copies self into out (same shape and dtype); out's dim order may differ from
// self's, the logical values are preserved.
#include "kernels/api/kernel_paths.h"
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

// clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> out
Error aten_clone_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) || args[1] == nullptr ||
      !(args[1]->is_none() || args[1]->is_int()) || !util::is_valid_tensor_arg(args, 2) ||
      !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "clone.out: expected (self, memory_format?, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 2);
  if (in.dtype != out.dtype) return ctx.fail(Error::InvalidType, "clone.out: dtype mismatch");
  if (!in.same_shape(out)) return ctx.fail(Error::InvalidArgument, "clone.out: shape mismatch");
  // MemoryFormat: 0 contiguous, 1 preserve, 2 channels_last; the planned out says which one.
  if (args[1]->is_int()) {
    int64_t mf = args[1]->to_int();
    if (mf == 0 && !out.is_contiguous())
      return ctx.fail(Error::InvalidArgument, "clone.out: memory_format contiguous, out is not");
    if (mf == 2 && !out.is_channels_last())
      return ctx.fail(Error::InvalidArgument, "clone.out: memory_format channels_last, out is not");
    if (mf < 0 || mf > 2)
      return ctx.fail(Error::NotSupported, "clone.out: unsupported memory_format");
  }
  if (!util::copy_strided(in, out)) return kernel_path_missing(ctx);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
