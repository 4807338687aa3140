// aten::view_copy.out, unsqueeze_copy.out, squeeze_copy.dims_out/.dim_out: same elements in logical
// order under a new shape; out's shape is checked against the requested one (-1 inferred).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

// view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out) -> out
Error aten_view_copy_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_list_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "view_copy.out: expected (self, size, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 2);
  Span<const int64_t> size = args[1]->to_int_list();
  if (in.dtype != out.dtype) return ctx.fail(Error::InvalidType, "view_copy.out: dtype mismatch");
  if (size.size() != out.dim)
    return ctx.fail(Error::InvalidArgument, "view_copy.out: rank mismatch");
  int infer = -1;
  uint64_t known = 1;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] == -1) {
      if (infer >= 0) return ctx.fail(Error::InvalidArgument, "view_copy.out: more than one -1");
      infer = static_cast<int>(d);
    } else if (size[d] < 0 || size[d] != out.sizes[d]) {
      return ctx.fail(Error::InvalidArgument, "view_copy.out: out shape != size");
    } else {
      known *= static_cast<uint64_t>(size[d]);
    }
  }
  if (infer >= 0 && static_cast<uint64_t>(out.sizes[infer]) * known != in.numel())
    return ctx.fail(Error::InvalidArgument, "view_copy.out: cannot infer -1");
  if (out.numel() != in.numel())
    return ctx.fail(Error::InvalidArgument, "view_copy.out: numel mismatch");
  util::copy_reshaped(in, out);
  return Error::Ok;
}

// unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out) -> out
Error aten_unsqueeze_copy_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "unsqueeze_copy.out: expected (self, dim, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 2);
  if (in.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "unsqueeze_copy.out: dtype mismatch");
  int dim;
  if (out.dim != in.dim + 1 || !util::normalize_dim(args[1]->to_int(), in.dim + 1, &dim))
    return ctx.fail(Error::InvalidArgument, "unsqueeze_copy.out: bad dim or out rank");
  for (int d = 0, s = 0; d < out.dim; ++d) {
    int32_t want = d == dim ? 1 : in.sizes[s++];
    if (out.sizes[d] != want)
      return ctx.fail(Error::InvalidArgument, "unsqueeze_copy.out: out shape mismatch");
  }
  util::copy_reshaped(in, out);
  return Error::Ok;
}

// squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out) -> out
Error aten_squeeze_copy_dims_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_list_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument,
                    "squeeze_copy.dims_out: expected (self, dims, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 2);
  if (in.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "squeeze_copy.dims_out: dtype mismatch");
  Span<const int64_t> dims = args[1]->to_int_list();
  uint32_t squeeze = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    int d;
    if (!util::normalize_dim(dims[i], in.dim, &d))
      return ctx.fail(Error::InvalidArgument, "squeeze_copy.dims_out: dim out of range");
    if (in.dim > 0 && in.sizes[d] == 1) squeeze |= 1u << d;  // non-1 dims are kept, as in PyTorch
  }
  int o = 0;
  for (int d = 0; d < in.dim; ++d) {
    if (squeeze & (1u << d)) continue;
    if (o >= out.dim || out.sizes[o] != in.sizes[d])
      return ctx.fail(Error::InvalidArgument, "squeeze_copy.dims_out: out shape mismatch");
    ++o;
  }
  if (o != out.dim)
    return ctx.fail(Error::InvalidArgument, "squeeze_copy.dims_out: out rank mismatch");
  util::copy_reshaped(in, out);
  return Error::Ok;
}

// squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out) -> out
Error aten_squeeze_copy_dim_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "squeeze_copy.dim_out: expected (self, dim, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 2);
  if (in.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "squeeze_copy.dim_out: dtype mismatch");
  int dim;
  if (!util::normalize_dim(args[1]->to_int(), in.dim, &dim))
    return ctx.fail(Error::InvalidArgument, "squeeze_copy.dim_out: dim out of range");
  const bool drop = in.dim > 0 && in.sizes[dim] == 1;  // a non-1 dim is kept, as in PyTorch
  if (out.dim != in.dim - (drop ? 1 : 0))
    return ctx.fail(Error::InvalidArgument, "squeeze_copy.dim_out: out rank mismatch");
  for (int d = 0, o = 0; d < in.dim; ++d) {
    if (drop && d == dim) continue;
    if (out.sizes[o++] != in.sizes[d])
      return ctx.fail(Error::InvalidArgument, "squeeze_copy.dim_out: out shape mismatch");
  }
  util::copy_reshaped(in, out);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
