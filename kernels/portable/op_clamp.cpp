// aten::clamp.out: out = min(max(self, min), max) with optional bounds; the result dtype follows
// PyTorch promotion of self with the bounds (int tensor with a float bound gives float).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/elementwise.h"

namespace etmcu {
namespace kernels {

namespace {
template <typename C>
void clamp_loop(const Tensor& in, const Tensor& out, bool has_lo, double lo, bool has_hi,
                double hi) {
  const C clo = util::saturate_cast<C>(lo), chi = util::saturate_cast<C>(hi);
  util::map_unary<C>(in, out, [=](C x) {
    if (has_lo && x < clo) x = clo;  // NaN passes through, like PyTorch
    if (has_hi && x > chi) x = chi;  // min > max gives max, like PyTorch
    return x;
  });
}
}  // namespace

// clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> out
Error aten_clamp_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) || args[1] == nullptr ||
      args[2] == nullptr || !(args[1]->is_none() || args[1]->is_scalar()) ||
      !(args[2]->is_none() || args[2]->is_scalar()) || !util::is_valid_tensor_arg(args, 3) ||
      !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument, "clamp.out: expected (self, min?, max?, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 3);
  const bool has_lo = args[1]->is_scalar(), has_hi = args[2]->is_scalar();
  if (!has_lo && !has_hi)
    return ctx.fail(Error::InvalidArgument, "clamp.out: min and max are both None");
  if (!util::is_supported_dtype(in.dtype) || !util::is_supported_dtype(out.dtype) ||
      in.dtype == ScalarType::Bool)
    return ctx.fail(Error::InvalidType, "clamp.out: unsupported dtype");
  if (!in.same_shape(out)) return ctx.fail(Error::InvalidArgument, "clamp.out: out shape != self");
  ScalarType res = in.dtype;
  if (has_lo) res = util::result_type(in, util::scalar_dtype(*args[1]), true, true);
  if (has_hi) {
    // Promote against the already-combined type: it stands for self with the same priority.
    Tensor tmp = in;
    tmp.dtype = res;
    res = util::result_type(tmp, util::scalar_dtype(*args[2]), true, true);
  }
  if (!util::can_cast(res, out.dtype))
    return ctx.fail(Error::InvalidType, "clamp.out: result dtype cannot be cast to out dtype");
  const double lo = has_lo ? args[1]->scalar_as_double() : 0.0;
  const double hi = has_hi ? args[2]->scalar_as_double() : 0.0;
  if (res == ScalarType::Double) {
    if constexpr (util::kF64) clamp_loop<double>(in, out, has_lo, lo, has_hi, hi);
  } else if (res == ScalarType::Float)
    clamp_loop<float>(in, out, has_lo, lo, has_hi, hi);
  else
    clamp_loop<int64_t>(in, out, has_lo, lo, has_hi, hi);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
