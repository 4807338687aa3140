// aten::slice_copy.Tensor_out: out = self[start:end:step] along `dim` (Python clamping rules).
#include "kernels/api/kernel_paths.h"
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

// slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None,
//                       SymInt step=1, *, Tensor(a!) out) -> out
Error aten_slice_copy_Tensor_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 7 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_arg(args, 1) ||
      args[2] == nullptr || !(args[2]->is_none() || args[2]->is_int()) || args[3] == nullptr ||
      !(args[3]->is_none() || args[3]->is_int()) || !util::is_int_arg(args, 4) ||
      !util::is_valid_tensor_arg(args, 5) || !util::is_return_of(args, 6, 5))
    return ctx.fail(Error::InvalidArgument,
                    "slice_copy.Tensor_out: expected (self, dim, start?, end?, step, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 5);
  if (in.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "slice_copy.Tensor_out: dtype mismatch");
  int dim;
  if (in.dim == 0 || !util::normalize_dim(args[1]->to_int(), in.dim, &dim))
    return ctx.fail(Error::InvalidArgument, "slice_copy.Tensor_out: dim out of range");
  const int64_t step = args[4]->to_int();
  if (step <= 0) return ctx.fail(Error::InvalidArgument, "slice_copy.Tensor_out: step must be > 0");
  const int64_t n = in.sizes[dim];
  int64_t start = args[2]->is_int() ? args[2]->to_int() : 0;
  int64_t end = args[3]->is_int() ? args[3]->to_int() : n;
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = start < 0 ? 0 : (start > n ? n : start);
  end = end < start ? start : (end > n ? n : end);
  const int64_t len =
      end == start ? 0 : 1 + (end - start - 1) / step;  // no overflow for huge steps
  if (out.dim != in.dim) return ctx.fail(Error::InvalidArgument, "slice_copy.Tensor_out: out rank");
  int64_t in_strides[kTensorMaxDim], st[kTensorMaxDim];
  in.strides(in_strides);
  for (int d = 0; d < in.dim; ++d) {
    if (out.sizes[d] != (d == dim ? len : in.sizes[d]))
      return ctx.fail(Error::InvalidArgument, "slice_copy.Tensor_out: out shape mismatch");
    st[d] = d == dim ? (len > 1 ? in_strides[d] * step : 0) : in_strides[d];  // len > 1: step < n
  }
  if (len > 0 && !util::gather_copy(out, in.data, st, start * in_strides[dim], out.element_size()))
    return kernel_path_missing(ctx);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
