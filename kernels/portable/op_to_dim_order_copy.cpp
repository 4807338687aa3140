// dim_order_ops::_to_dim_order_copy.out and _clone_dim_order.out: copy self into out, whose dim
// order is given by `dim_order` (None = keep self's order); _to_dim_order_copy also converts the
// dtype to out's.
#include "kernels/api/kernel_paths.h"
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

namespace {
// Shared body; `convert` allows a dtype change (_to_dim_order_copy).
Error dim_order_copy(KernelContext& ctx, Span<EValue*> args, bool convert) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) || !util::is_bool_arg(args, 1) ||
      args[2] == nullptr || !(args[2]->is_none() || util::is_int_list_arg(args, 2)) ||
      !util::is_valid_tensor_arg(args, 3) || !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument,
                    "dim_order copy: expected (self, non_blocking, dim_order?, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 3);
  if (!in.same_shape(out))
    return ctx.fail(Error::InvalidArgument, "dim_order copy: shape mismatch");
  if (convert) {
    if (!util::is_supported_dtype(in.dtype) || !util::is_supported_dtype(out.dtype))
      return ctx.fail(Error::InvalidType, "_to_dim_order_copy: unsupported dtype");
  } else if (in.dtype != out.dtype) {
    return ctx.fail(Error::InvalidType, "_clone_dim_order: dtype mismatch");
  }
  if (args[2]->is_int_list()) {
    Span<const int64_t> order = args[2]->to_int_list();
    if (order.size() != out.dim)
      return ctx.fail(Error::InvalidArgument, "dim_order copy: dim_order length != rank");
    for (size_t i = 0; i < order.size(); ++i)
      if (order[i] != out.dim_order[i])
        return ctx.fail(Error::InvalidArgument, "dim_order copy: out dim order != dim_order arg");
  } else if (!out.same_dim_order(in)) {
    return ctx.fail(Error::InvalidArgument, "dim_order copy: out dim order != requested");
  }
  const bool done = convert ? util::convert_copy(in, out) : util::copy_strided(in, out);
  return done ? Error::Ok : kernel_path_missing(ctx);
}
}  // namespace

// _to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None,
//                        Tensor(a!) out) -> out
Error dim_order_ops__to_dim_order_copy_out(KernelContext& ctx, Span<EValue*> args) {
  return dim_order_copy(ctx, args, true);
}

// _clone_dim_order.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None,
//                      Tensor(a!) out) -> out
Error dim_order_ops__clone_dim_order_out(KernelContext& ctx, Span<EValue*> args) {
  return dim_order_copy(ctx, args, false);
}

}  // namespace kernels
}  // namespace etmcu
